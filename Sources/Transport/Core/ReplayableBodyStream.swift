import Foundation

/// A request body stream that may start over: the transport re-sends such a body on a fresh
/// connection (the keep-alive race), a retry or a 307/308 redirect, and any other stream once
/// only. The manager wraps every body stream in one (`UploadBodyStream`).
package protocol ReplayableBodyStream: InputStream {
    /// Whether `rewind()` can start the body over.
    var isRewindable: Bool { get }
    /// Starts the body over; `false` when it cannot. On the thread reading the stream.
    func rewind() -> Bool
}
