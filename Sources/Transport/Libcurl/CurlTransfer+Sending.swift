import LibcurlBridge
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The request side of a hop: the body handed to libcurl (bytes in memory, or a stream read
/// ahead away from the transport's queue, with sending paused while it has nothing), rewound
/// when libcurl re-sends the request on a fresh connection, and the upload's progress.
extension CurlTransfer {
    /// Reads `stream` for libcurl from its current position, away from the transport's queue.
    /// The stream counts as consumed from now on: the reader reads ahead of libcurl, so a hop
    /// that sent nothing may still have advanced it.
    func startReadingBody(_ stream: InputStream) {
        body = .stream(stream, consumed: true)
        let reader = StreamedBodyReader(stream: stream) { [weak self, transport] in
            if let self { transport.resumeSending(self) }
        }
        bodyReader = reader
        reader.start()
    }

    /// Sending resumes after the body stream had no bytes for libcurl; on the transport's
    /// queue. Receiving stays paused if the window paused it.
    func resumeSending() {
        if let easy { _ = afn_easy_pause(easy, receiveFlow.isPaused ? CurlPause.receive : CurlPause.resumeAll) }
    }


    static let readCallback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
        buffer, size, count, context in
        guard let buffer else { return CurlSocket.readFunctionAbort }
        return transfer(context).readBody(into: UnsafeMutableRawPointer(buffer).assumingMemoryBound(to: UInt8.self), capacity: size * count)
    }

    private func readBody(into buffer: UnsafeMutablePointer<UInt8>, capacity: Int) -> Int {
        lastActivity = transport.clock.now()
        switch body {
        case .none:
            return 0
        case .data(let data, let offset):
            let count = min(capacity, data.count - offset)
            guard count > 0 else {
                hop.requestEnd = Date()
                return 0
            }
            data.copyBytes(to: buffer, from: (data.startIndex + offset)..<(data.startIndex + offset + count))
            body = .data(data, offset: offset + count)
            return count
        case .stream:
            switch bodyReader?.take(into: UnsafeMutableRawBufferPointer(start: buffer, count: capacity)) {
            case .bytes(let count): return count
            case .end:
                hop.requestEnd = Date()
                return 0
            case .pause:
                return CurlSocket.readFunctionPause
            case .failed, nil: return CurlSocket.readFunctionAbort
            }
        }
    }

    /// libcurl asks for the trailer fields after the last chunk of a body that has them: each
    /// goes as a "Name: value" line on libcurl's list (which libcurl frees once sent). The
    /// fields were checked when the body made them.
    static let trailerCallback: @convention(c) (UnsafeMutablePointer<UnsafeMutableRawPointer?>?, UnsafeMutableRawPointer?) -> Int32 = {
        list, context in
        guard let list else { return CurlTrailer.abort }
        guard case .stream(let stream, _) = transfer(context).body, let trailing = stream as? any TrailingBodyStream else { return CurlTrailer.ok }
        for (name, value) in trailing.trailerFields.sorted(by: { $0.key < $1.key }) {
            guard let appended = afn_slist_append(list.pointee, "\(name): \(value)") else { return CurlTrailer.abort }
            list.pointee = appended
        }
        return CurlTrailer.ok
    }

    /// libcurl rewinds the body to re-send a request on a fresh connection when a reused one
    /// was closed before any response byte (the keep-alive race): a data body starts over at
    /// any offset; a stream that can be replayed (a file, multipart of files and data) starts
    /// over from its beginning when no read of it is in flight; any other stream cannot
    /// (CURL_SEEKFUNC_CANTSEEK: the task fails, and a retry policy decides).
    static let seekCallback: @convention(c) (UnsafeMutableRawPointer?, Int64, Int32) -> Int32 = { context, offset, origin in
        let transfer = transfer(context)
        switch transfer.body {
        case .data(let data, _):
            guard origin == SEEK_SET, offset >= 0, offset <= Int64(data.count) else { return 1 }
            transfer.body = .data(data, offset: Int(offset))
            return 0
        case .stream(let stream, _):
            guard origin == SEEK_SET, offset == 0, let upload = stream as? any ReplayableBodyStream, upload.isRewindable,
                  transfer.bodyReader?.waitUntilIdle() ?? true else { return 2 }
            transfer.bodyReader?.stop()
            guard upload.rewind() else { return 1 }
            transfer.startReadingBody(stream)
            return 0
        case .none:
            return 2
        }
    }

    static let progressCallback: @convention(c) (UnsafeMutableRawPointer?, Int64, Int64, Int64, Int64) -> Int32 = {
        context, _, downloaded, _, uploaded in
        let transfer = transfer(context)
        transfer.hop.receivedBodyBytes = downloaded
        guard uploaded > transfer.reportedUpload else { return 0 }
        transfer.reportedUpload = uploaded
        transfer.events?.transferDidSendBodyData(totalBytesSent: uploaded, totalBytesExpectedToSend: transfer.hop.uploadLength)
        return 0
    }
}
