import AFLocking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Receiving the response and its body: kept in memory, written to the download's file or
/// handed to a streamed task's consumer; from URLSession on the delegate queue, or from the
/// libcurl transport (`TransferEvents`) on its queue.
extension TaskDelegate {
    func didReceive(response: URLResponse) {
        guard let response = response as? HTTPURLResponse, !(100..<200).contains(response.statusCode), !endedAtRedirect else { return }
        let outcome: (failed: Bool, stoppedAtRedirect: Bool)? = live { live, shown in
            // A 307/308 not followed because its body cannot be sent again arrives as the
            // response: the task fails with `redirectWouldDropBody`, which a streamed task's
            // consumer gets instead of the redirect's head.
            let stopped = if case .redirectStopped? = live.failure { true } else { false }
            shown.response = response
            live.responseStart = Date()
            live.data = Data()
            shown.bytesReceived = 0
            if let cache, handlers.bodyChannel != nil { live.cacheBodyRefused = !keepsStreamedBody(of: response, in: live, cache: cache) }
            guard let writer = live.writer else { return (false, stopped) }
            do {
                try writer.begin(response: response)
            } catch {
                live.record(.failed(error))
                return (true, stopped)
            }
            return (false, stopped)
        }
        // A response after the end (which a cancellation can race) is not the task's.
        guard let (failed, stoppedAtRedirect) = outcome else { return }
        if failed {
            // The file failed the task: nothing of this response goes on.
            task.cancel()
            return
        }
        if !monitors.isEmpty { monitors.notify { [task] in $0.task(task, didReceive: response) } }
        if !stoppedAtRedirect { handlers.bodyChannel?.receive(response) }
        // With a content coding the declared length counts encoded bytes while the body is
        // counted decoded: the total is unknown rather than a fraction past 1.
        // The header is read only for a declared length (a lookup costs thousands of instructions).
        var expected = response.expectedContentLength
        if expected >= 0, let coding = response.value(forHTTPHeaderField: "Content-Encoding")?.trimmingCharacters(in: .whitespaces).lowercased(),
           !coding.isEmpty, coding != "identity" {
            expected = -1
        }
        live { live, shown in
            let offset = live.writer?.bytesInFile ?? 0
            // The declared length is the server's: a sum past Int64.max is an unknown total.
            let (total, overflow) = expected.addingReportingOverflow(offset)
            shown.download.set(completed: offset, total: expected >= 0 && !overflow ? total : -1)
        }
    }

    /// The libcurl transport's window for this task's streamed body, told of every chunk its
    /// consumer processed (a body kept in memory or written to a file is taken as it arrives).
    func receiveBody(through window: ReceiveWindow) {
        handlers.bodyChannel?.receive(through: window)
    }

    /// The body's trailer fields, for its stream's consumer (other tasks have no use for them).
    func receiveTrailers(_ fields: [String: String]) {
        handlers.bodyChannel?.receive(trailers: fields)
    }

    /// Whether the body streams to a consumer rather than into memory or a file.
    var streamsBody: Bool { handlers.bodyChannel != nil }

    /// Returns the bytes now received in total, counting a resumed download's partial file;
    /// `nil` when the bytes are not the task's (the cache answered in the transfer's place).
    func didReceive(data: Data) -> Int64? {
        data.withUnsafeBytes { didReceive(bytes: $0) }
    }

    /// The bytes are copied once: appended to the body, or written to the download's file. A
    /// streamed body whose response may be stored is kept for the cache too, up to the
    /// cache's memory capacity (past it, it is let go of and not stored): a stream holds no
    /// more than the cache may keep in memory.
    func didReceive(bytes: UnsafeRawBufferPointer) -> Int64? {
        let (failed, total): (Bool, Int64?) = live { live, shown in
            if live.discardsBody { return (false, nil) }
            // The body of a redirect not followed (`didReceive(response:)`) reaches no consumer:
            // its stream's window counts it as consumed, or a long one would pause the transfer.
            if handlers.bodyChannel != nil, case .redirectStopped? = live.failure { return (false, nil) }
            shown.bytesReceived += Int64(bytes.count)
            if handlers.bodyChannel != nil {
                if let cache, live.cacheUse.storesResponse, !live.cacheBodyRefused {
                    if live.data.count + bytes.count <= cache.memoryCapacity {
                        live.data.append(contentsOf: bytes)
                    } else {
                        (live.cacheBodyRefused, live.data) = (true, Data())
                    }
                }
                return (false, shown.bytesReceived)
            }
            guard let writer = live.writer else {
                live.data.append(contentsOf: bytes)
                return (false, shown.bytesReceived)
            }
            do {
                return (false, try writer.write(bytes))
            } catch {
                live.record(.failed(SessionError.downloadFileFailed(reason: error.localizedDescription, destination: nil)))
                return (true, writer.bytesInFile)
            }
        } ?? (false, nil)
        guard let total else {
            // A body the cache's answer replaced (or that arrived after the end): its stream's
            // window counts it as consumed, or the transfer would pause for a consumer that
            // never sees it.
            handlers.bodyChannel?.discarded(bytes.count)
            return nil
        }
        if failed {
            task.cancel()
            return total
        }
        handlers.bodyChannel?.append(Data(bytes))
        state.withLock { $0.shown.download.set(completed: total) }
        deliver(handler: handlers.downloadProgress, direction: .download)
        return total
    }
}
