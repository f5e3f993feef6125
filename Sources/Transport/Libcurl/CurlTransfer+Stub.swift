import AFLocking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The reply of a stub, played as a hop: the request's whole body taken (a stream read away from
/// the transport's queue), then after the reply's delay its head through the same checks as a
/// server's, and its body chunk by chunk through the same delivery, within the task's limits
/// and its consumer's window, and within the task's idle and total timeouts, which a stub's
/// delays run out as a server's silence would.
struct StubPlayback {
    /// The reply; `nil` while the request's body is read.
    var reply: StubbedReply?
    /// The index of the next chunk to deliver.
    var chunk = 0
    /// The timer of the delay or of the interval before the next chunk.
    var timer: (any TransportTimer)?
    /// The timer that ends the hop when its idle or total timeout runs out.
    var watchdog: (any TransportTimer)?

    /// Cancels the timers.
    func stop() {
        timer?.cancel()
        watchdog?.cancel()
    }
}

extension CurlTransfer {
    /// Starts a hop answered by `stub`, within `totalMilliseconds` (0 for no limit).
    func startStubHop(_ stub: TransportStub, totalMilliseconds: Int) {
        lastActivity = transport.clock.now()
        hop = CurlHop(proxy: nil, serverName: request.url?.host, totalMilliseconds: totalMilliseconds, start: lastActivity)
        stubPlayback = StubPlayback()
        watchStubTimeouts()
        switch body {
        case .none:
            answer(stub, body: Data())
        case .data(let data, _):
            hop.requestEnd = Date()
            answer(stub, body: data)
        case .stream(let stream, _):
            // The stream is read whole, as a server would receive it, and counts as consumed.
            body = .stream(stream, consumed: true)
            let reference = StreamReference(stream: stream)
            reference.readToEnd { [weak self, transport] read in
                transport.async { [weak self] in
                    guard let self, stubPlayback != nil else { return }
                    guard let data = read.body else {
                        // As a read callback's abort on a server's hop: the task ends with the
                        // source's failure (the delegate reports it as `bodyStreamFailed`).
                        stubPlayback?.stop()
                        stubPlayback = nil
                        return perform(machine.failed(read.failure ?? URLError(.requestBodyStreamExhausted)))
                    }
                    hop.requestEnd = Date()
                    answer(stub, body: data, trailers: read.trailers)
                }
            }
        }
    }

    private func answer(_ stub: TransportStub, body: Data, trailers: [String: String] = [:]) {
        if !body.isEmpty {
            reportedUpload = Int64(body.count)
            events?.transferDidSendBodyData(totalBytesSent: Int64(body.count), totalBytesExpectedToSend: Int64(body.count))
        }
        switch stub.respond(request, body, trailers) {
        case .now(let reply):
            play(reply)
        case .later(let start):
            start { [weak self, transport] reply in
                transport.async { [weak self] in
                    guard let self, stubPlayback != nil, stubPlayback?.reply == nil else { return }
                    play(reply)
                }
            }
        }
    }

    /// Plays `reply` after its delay.
    private func play(_ reply: StubbedReply) {
        stubPlayback?.reply = reply
        after(reply.delay) { $0.beginStubReply() }
    }

    /// Ends the hop with a timeout when the idle or the total one has run out, or checks again
    /// when one may next: what libcurl and the transport's idle timer do for a server.
    private func watchStubTimeouts() {
        let totalLeft = hop.totalMilliseconds > 0 ? Double(hop.totalMilliseconds) / 1000 - seconds(since: hop.start) : nil
        // A hop paused for its consumer is not idle.
        let idleLeft = timeouts.idle.map { receiveFlow.isPaused ? $0 : $0 - seconds(since: lastActivity) }
        if let totalLeft, totalLeft <= 0 { return endStubHop(failure: timeouts.error(.total, url: request.url)) }
        if let idleLeft, idleLeft <= 0 { return endStubHop(failure: timeouts.error(.idle, url: request.url)) }
        guard let next = [totalLeft, idleLeft].compactMap({ $0 }).min() else { return }
        stubPlayback?.watchdog = transport.run(after: next) { [weak self] in
            guard let self, stubPlayback != nil else { return }
            watchStubTimeouts()
        }
    }

    /// Runs `step` on the transport's queue after `delay` seconds, unless the task stops first.
    private func after(_ delay: TimeInterval, _ step: @escaping (CurlTransfer) -> Void) {
        guard delay > 0 else { return step(self) }
        stubPlayback?.timer = transport.run(after: delay) { [weak self] in
            guard let self, stubPlayback != nil else { return }
            stubPlayback?.timer = nil
            step(self)
        }
    }

    private func beginStubReply() {
        guard let reply = stubPlayback?.reply else { return }
        lastActivity = transport.clock.now()
        switch reply.outcome {
        case .taskFailure(let error):
            stubPlayback?.stop()
            stubPlayback = nil
            perform(machine.failed(error))
        case .transportFailure(let error):
            endStubHop(failure: error)
        case .response(let status, let fields, _, let trailers):
            hop.receivedResponseBytes = true
            hop.headerLines = ["HTTP/1.1 \(status) Stubbed"] + fields.map { "\($0.name): \($0.value)" }
            hop.trailerLines = trailers.map { "\($0.name): \($0.value)" }
            guard headerBlockEnded() else { return endStubHop(failure: error(for: CurlCode.writeError)) }
            playStub()
        }
    }

    /// Delivers the reply's next chunks; waits for the consumer's window or the reply's interval.
    func playStub() {
        guard let playback = stubPlayback, playback.timer == nil, let reply = playback.reply, case .response(_, _, let chunks, _) = reply.outcome else { return }
        var index = playback.chunk
        while index < chunks.count {
            lastActivity = transport.clock.now()
            // A stub's body is not encoded: each byte counts as received (decompression ratio).
            hop.receivedBodyBytes += Int64(chunks[index].count)
            let written = chunks[index].withUnsafeBytes { receive($0) }
            // A paused chunk is offered again when reading resumes, and counted then.
            if written == CurlSocket.writeFunctionPause { return hop.receivedBodyBytes -= Int64(chunks[index].count) }
            guard written == chunks[index].count else { return endStubHop(failure: error(for: CurlCode.writeError)) }
            index += 1
            stubPlayback?.chunk = index
            if index < chunks.count, reply.interval > 0 {
                return after(reply.interval) { $0.playStub() }
            }
        }
        endStubHop(failure: reply.cut)
    }

    /// Ends the stub's hop: its metrics, then the hop's end, with `failure` when it failed.
    private func endStubHop(failure: URLError?) {
        stubPlayback?.stop()
        stubPlayback = nil
        var metrics = CurlTransactionInfo().metrics(url: request.url, fetchStart: hop.fetchStart, requestEnd: hop.requestEnd, tls: nil)
        metrics.attempt = machine.attempt
        metrics.responseEndDate = Date()
        events?.transferDidFinish(metrics)
        if failure == nil { receivedTrailers() }
        endHop(failure: failure)
    }
}

/// A body stream carried to the thread that reads it whole.
private struct StreamReference: @unchecked Sendable {
    // @unchecked: the stream is read by one read at a time (a dispatch worker, or its source's
    // callbacks one after another), while the transfer waits for it.
    let stream: InputStream

    typealias Read = (body: Data?, trailers: [String: String], failure: (any Error)?)

    /// Reads the whole body and gives `done` it and the trailer fields after it, or (`body`
    /// `nil`) the stream's failure: by callback from a stream that answers so (no thread waits
    /// on its source), otherwise on a dispatch worker.
    func readToEnd(then done: @escaping @Sendable (Read) -> Void) {
        if stream.streamStatus == .notOpen { stream.open() }
        if let source = stream as? any AsynchronousBodyStream, source.readsAsynchronously {
            return collect(from: CallbackBodyStream(source), into: Locked(Data()), then: done)
        }
        DispatchQueue.global().async { done(readToEnd()) }
    }

    private func collect(from source: CallbackBodyStream<any AsynchronousBodyStream>, into data: Locked<Data>,
                         then done: @escaping @Sendable (Read) -> Void) {
        source.stream.readChunk { chunk in
            switch chunk {
            case .bytes(let bytes):
                data.withLock { $0.append(bytes) }
                collect(from: source, into: data, then: done)
            case .end:
                let trailers = (source.stream as? TrailingBodyStream)?.trailerFields ?? [:]
                source.stream.close()
                done((data.withLock { $0 }, trailers, nil))
            case .failed:
                let failure = source.stream.streamError
                source.stream.close()
                done((nil, [:], failure))
            }
        }
    }

    private func readToEnd() -> Read {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        if stream.streamStatus == .notOpen { stream.open() }
        var count = 0
        repeat {
            count = stream.read(&buffer, maxLength: buffer.count)
            if count > 0 { data.append(buffer, count: count) }
        } while count > 0
        let failure = count < 0 ? stream.streamError : nil
        let trailers = (stream as? TrailingBodyStream)?.trailerFields ?? [:]
        stream.close()
        return count < 0 ? (nil, [:], failure) : (data, trailers, nil)
    }
}
