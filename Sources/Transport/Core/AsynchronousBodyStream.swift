import Foundation

/// A request body stream that can hand its bytes by callback instead of a blocking `read`, so
/// that its reader never holds a thread while the body's source waits (a `StreamedRequestBody`
/// whose sequence has nothing yet). The libcurl transport reads such a stream this way;
/// URLSession's own protocol reads every stream with `read`.
package protocol AsynchronousBodyStream: InputStream {
    /// Whether `readChunk` can be used; otherwise the stream is read with `read`.
    var readsAsynchronously: Bool { get }
    /// Asks for the next bytes (the stream opened first); `completion` gets them, the end, or
    /// the failure (the stream's `streamError`), on any thread, at most once. One request at a
    /// time; closing the stream answers a pending one with a failure.
    func readChunk(_ completion: @escaping @Sendable (BodyChunk) -> Void)
}

/// What `AsynchronousBodyStream.readChunk` answers.
package enum BodyChunk: Sendable {
    /// Bytes, never empty.
    case bytes(Data)
    /// The body ended.
    case end
    /// The stream failed (its `streamError` says why) or was closed.
    case failed
}

/// A body stream carried into a read's callback, which may run on another thread.
package struct CallbackBodyStream<Stream>: @unchecked Sendable {
    // @unchecked: used only for streams whose state the callbacks touch under their locks
    // (`AsynchronousBodyStream` conformers keep it `Locked`), one read in flight at a time.
    package let stream: Stream

    package init(_ stream: Stream) {
        self.stream = stream
    }
}
