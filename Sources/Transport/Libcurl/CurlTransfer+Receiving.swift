import LibcurlBridge
import OpenSSLBridge
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The response side of a hop: header lines checked for framing and parsed into a head, which
/// decides the hop (a redirect, a Basic challenge, the final response), and the body handed
/// to the client or held, within the task's limits and its consumer's window.
extension CurlTransfer {
    static let headerCallback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
        bytes, size, count, context in
        let length = size * count
        guard let bytes else { return length }
        let transfer = transfer(context)
        transfer.lastActivity = transfer.transport.clock.now()
        transfer.hop.receivedResponseBytes = true
        // The line end goes as bytes: Foundation's trimming, through NSString, cost a quarter
        // of a small request's instructions (callgrind, BENCHMARKS.md).
        var end = length
        while end > 0, bytes[end - 1] == 0x0A || bytes[end - 1] == 0x0D { end -= 1 }
        let line = String(decoding: UnsafeRawBufferPointer(start: bytes, count: end), as: UTF8.self)
        if transfer.hop.response != nil {
            // After the final head: the trailer section, one field a call (no empty line ends it).
            return transfer.receivedTrailer(line, length: length) ? length : 0
        }
        if line.isEmpty {
            // A value other than `length` makes libcurl stop the transfer.
            guard transfer.headerBlockEnded() else { return 0 }
        } else if line.hasPrefix("HTTP/") {
            transfer.hop.headerLines = [line]
        } else {
            transfer.hop.headerLines.append(line)
        }
        return length
    }

    /// Keeps trailer line `line` (`length` bytes on the wire; an empty line is none) for the end
    /// of the body. Returns `false` when the transfer must stop (a fault in the line, or the
    /// section grew too large).
    func receivedTrailer(_ line: String, length: Int) -> Bool {
        guard !line.isEmpty else { return true }
        hop.trailerBytes += length
        if let fault = ResponseFraming.fault(inTrailer: line, sectionBytes: hop.trailerBytes) {
            hop.framingFault = fault
            return false
        }
        hop.trailerLines.append(line)
        return true
    }

    /// The hop ended well: its trailer fields, if any, go to the task with the body (or with
    /// the held response, when it is concluded).
    func receivedTrailers() {
        guard !hop.trailerLines.isEmpty else { return }
        let fields = ResponseHead.fields(of: hop.trailerLines[...]).fields
        switch machine.bodyDestination {
        case .client: events?.transfer(receivedTrailers: fields)
        case .held: machine.holdTrailers(fields)
        case .discarded: break
        }
    }

    /// A block of header lines ended. Returns `false` when the transfer must stop (a fault in
    /// the head's framing, a proxy's 407, a declared length over the task's limit: no byte of
    /// the body is read).
    func headerBlockEnded() -> Bool {
        let lines = hop.headerLines
        hop.headerLines = []
        if hop.requiresTrust, let easy, !hop.mayReceive(connectionTrusted: afn_ssl_is_trusted(afn_easy_tls_ssl(easy)) == 1) {
            hop.untrustedConnection = true
            return false
        }
        if let fault = ResponseFraming.fault(in: lines) {
            hop.framingFault = fault
            return false
        }
        guard let url = request.url, let head = ResponseHead.parse(lines), let response = head.response(for: url) else { return true }
        if hop.tls == nil, let easy, let ssl = afn_easy_tls_ssl(easy) { hop.tls = Self.describe(ssl) }
        // A request that does not handle cookies stores none (`httpShouldHandleCookies`).
        if originalRequest.httpShouldHandleCookies { transport.settings.storeCookies(head.setCookies, from: url) }
        guard machine.isDelivering else { return true }
        // Only a proxy answers 407; over plain HTTP its answer arrives as the response.
        if response.statusCode == 407, let proxy = hop.proxy {
            hop.proxyFailure = .authenticationRequired(proxy: proxy.address)
            return false
        }
        if let next = redirectRequest(after: response) {
            machine.redirected(to: next)
        } else if let next = authenticatedRequest(after: response) {
            machine.authenticated(with: next)
        } else if let continues = bodyContinuation.headArrived(response) {
            // The head of the rest is not the task's: its body goes on where it was cut.
            guard continues else { return false }
            hop.response = response
            if let limit = options.limits.sizeLimit(isDownload: options.isDownload),
               response.expectedContentLength > bodyContinuation.bytesLeft(of: limit.bytes) {
                exceeded(limit.limit)
                return false
            }
            guard followResponseEnd(of: response) else { return false }
        } else {
            hop.response = response
            if let limit = options.limits.sizeLimit(isDownload: options.isDownload), response.expectedContentLength > limit.bytes {
                exceeded(limit.limit)
                return false
            }
            if machine.receivedFinalResponse(response, isError: response.statusCode >= 400) { deliver(response) }
            guard followResponseEnd(of: response) else { return false }
        }
        return true
    }

    /// The request that follows a redirect `response`, when the task accepts one.
    private func redirectRequest(after response: HTTPURLResponse) -> URLRequest? {
        guard let target = FollowUpRules.redirectTarget(
            status: response.statusCode, location: response.value(forHTTPHeaderField: "Location"), relativeTo: request.url) else { return nil }
        let proposed = FollowUpRules.redirectRequest(from: request, to: target, status: response.statusCode)
        return events?.transfer(willRedirectWith: response, to: proposed, resendsBody: resendsBody)
    }

    /// The same request answering a first Basic challenge, when the task has a credential.
    private func authenticatedRequest(after response: HTTPURLResponse) -> URLRequest? {
        let isStream = if case .stream = body { true } else { false }
        guard FollowUpRules.answersBasicChallenge(
            status: response.statusCode, wwwAuthenticate: response.value(forHTTPHeaderField: "WWW-Authenticate"),
            alreadyAttempted: machine.authenticationAttempted, bodyIsStream: isStream) else { return nil }
        return events?.transfer(answeringBasicChallenge: response, to: request)
    }

    static let writeCallback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
        bytes, size, count, context in
        let length = size * count
        let transfer = transfer(context)
        transfer.lastActivity = transfer.transport.clock.now()
        guard let bytes, length > 0 else { return length }
        return transfer.receive(UnsafeRawBufferPointer(start: bytes, count: length))
    }

    /// Takes a chunk of the hop's body: to the client, within the consumer's window, or into
    /// the held response; both within the task's limits. Returns what the write callback returns.
    func receive(_ bytes: UnsafeRawBufferPointer) -> Int {
        switch machine.bodyDestination {
        case .discarded:
            return bytes.count
        case .client:
            guard receiveFlow.admitsChunk(windowAdmits: !options.readsThroughWindow || window.admit(bytes.count)) else {
                return CurlSocket.writeFunctionPause
            }
            if let limit = admitBody(bytes.count) {
                exceeded(limit)
                return 0
            }
            deliver(bytes)
        case .held:
            if let limit = admitBody(bytes.count) {
                exceeded(limit)
                return 0
            }
            // Past the hold's limit the response goes to the client after all, with what was
            // held, and the rest streams.
            if let released = machine.hold(bytes) {
                deliver(released.response)
                released.body.withUnsafeBytes { deliver($0) }
            }
        }
        return bytes.count
    }

    /// Tells the task the response exceeded `limit`; the caller then stops the hop, which ends
    /// the task (`endHop`).
    private func exceeded(_ limit: ResponseLimits.Limit) {
        hop.exceededLimit = limit
        let declared = hop.response.map(\.expectedContentLength).flatMap { $0 >= 0 ? $0 : nil }
        events?.transfer(exceeded: limit, declaredLength: declared, response: hop.response)
    }

    /// Counts `length` decoded body bytes; the limit they exceed, if any.
    private func admitBody(_ length: Int) -> ResponseLimits.Limit? {
        hop.decodedBodyBytes += Int64(length)
        let limits = options.limits
        if let limit = limits.sizeLimit(isDownload: options.isDownload), hop.decodedBodyBytes > bodyContinuation.bytesLeft(of: limit.bytes) {
            return limit.limit
        }
        // libcurl counts a read's raw bytes only after decoding it into write callbacks, so the
        // raw count may lack up to one receive buffer.
        guard let ratio = limits.maximumDecompressionRatio, hop.decodedBodyBytes > limits.decompressionAllowance else { return nil }
        let ratioExceeded = { (received: Int64) in self.hop.decodedBodyBytes / (received + Int64(self.receiveBufferSize)) > Int64(ratio) }
        guard ratioExceeded(hop.receivedBodyBytes) else { return nil }
        // The progress count lags further (libcurl may read many buffers between progress
        // calls): confirm with the exact count before stopping the transfer.
        var received = hop.receivedBodyBytes
        if let easy { _ = afn_easy_getinfo_off(easy, CurlInfo.sizeDownload, &received) }
        hop.receivedBodyBytes = received
        return ratioExceeded(received) ? .decompressionRatio(ratio) : nil
    }

    /// Reading resumes after the window paused it; on the transport's queue.
    func resumeReading() {
        receiveFlow.readingResumed()
        lastActivity = transport.clock.now()
        if let easy { _ = afn_easy_pause(easy, CurlPause.resumeAll) } else if stubPlayback != nil { playStub() }
        // A response that ended while reading was paused ends now that its body was delivered.
        if easy != nil, hop.responseEnd?.isComplete == true { transport.responseEnded(self) }
    }
}
