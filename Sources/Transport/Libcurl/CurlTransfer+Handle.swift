import LibcurlBridge
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Each hop's easy handle: the options `EasyHandleOptions` builds, the transfer's callbacks,
/// and the handle's release when the hop ends.
extension CurlTransfer {
    /// Starts a hop of the current request on a configured easy handle, or fails the task
    /// when the request cannot be sent.
    func startHop() {
        // An `http+unix` URL names its socket; otherwise the transport's socket, if any.
        let socketAddress = request.url.flatMap(UnixSocketAddress.init)
        guard let url = socketAddress?.requestURL ?? request.url, ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
            return perform(machine.failed(TransferErrorMapping.refused(.unsupportedURL, url: request.url)))
        }
        if case .stream(_, consumed: true) = body {
            return perform(machine.failed(TransferErrorMapping.refused(.requestBodyStreamExhausted, url: url)))
        }
        guard let milliseconds = timeouts.hopMilliseconds(elapsed: seconds(since: transferStart)) else {
            return perform(machine.failed(timeouts.error(.total, url: request.url)))
        }
        if let stub = transport.stub { return startStubHop(stub, totalMilliseconds: milliseconds.total) }
        guard let easy = transport.takeHandle() else {
            return perform(machine.failed(TransferErrorMapping.refused(.unknown, url: url)))
        }
        if case .stream(let stream, _) = body { startReadingBody(stream) }
        self.easy = easy
        errorBuffer.initialize(repeating: 0, count: 256)
        let socketPath = socketAddress?.socketPath ?? transport.connection.unixSocketPath
        hop = CurlHop(
            proxy: socketPath == nil ? transport.proxyRoutes.proxy(for: url) : nil, serverName: url.host, totalMilliseconds: milliseconds.total,
            start: transport.clock.now())
        let bodyKind: EasyHandleOptions.Body = switch body {
        case .none: .none
        case .data(let data, _): .data(count: data.count)
        // The declared length by the rule responses are read by: `5, 5` is 5; a value that is no
        // length (`-5`, `5, 6`) declares none, and the body goes chunked.
        case .stream: .stream(declaredLength: request.value(forHTTPHeaderField: "Content-Length").flatMap { try? ContentLength.length(of: $0).get() })
        }
        // A body with trailers goes over HTTP/1.1, the one framing libcurl sends them in.
        let trailing = if case .stream(let stream, _) = body, (stream as? any TrailingBodyStream)?.hasTrailers == true { true } else { false }
        hop.requiresTrust = url.scheme?.lowercased() == "https"
        var sink = HandleSink(easy: easy)
        hop.uploadLength = EasyHandleOptions.apply(EasyHandleOptions.Input(
            url: url, socketPath: socketPath, proxy: hop.proxy, clientIdentity: clientIdentity,
            httpVersion: trailing ? .http1_1 : transport.connection.httpVersion,
            receiveBufferSize: receiveBufferSize, connectMilliseconds: milliseconds.connect, totalMilliseconds: milliseconds.total,
            method: request.httpMethod, headers: transport.settings.headers(of: request, excluding: EasyHandleOptions.framingFields),
            body: bodyKind, protocolNames: CurlTransport.takesProtocolNames), to: &sink)
        headerList = sink.headerList
        sink.check(CurlOption.httpHeader, afn_easy_setopt_pointer(easy, CurlOption.httpHeader, sink.headerList))
        setCallbacks(easy, into: &sink)
        if case .stream = body { watchResponseEnd(easy, into: &sink) }
        if trailing {
            hop.sendsTrailers = true
            sink.check(CurlOption.trailerFunction,
                       afn_easy_setopt_pointer(easy, CurlOption.trailerFunction, unsafeBitCast(Self.trailerCallback, to: UnsafeRawPointer.self)))
            sink.check(CurlOption.trailerData, afn_easy_setopt_pointer(easy, CurlOption.trailerData, Unmanaged.passUnretained(self).toOpaque()))
        }
        if let refusal = sink.refusal {
            // Nothing was sent: the handle goes back unused (closed when it held trailer state).
            releaseHandle()
            return perform(machine.failed(refusal))
        }
        startIdleTimer()
        transport.startNextHop(self, easy: easy)
    }

    private func setCallbacks(_ easy: UnsafeMutableRawPointer, into sink: inout HandleSink) {
        sink.check(CurlOption.errorBuffer, afn_easy_setopt_pointer(easy, CurlOption.errorBuffer, errorBuffer))
        for (option, function) in [(CurlOption.writeFunction, unsafeBitCast(Self.writeCallback, to: UnsafeRawPointer.self)),
                                   (CurlOption.headerFunction, unsafeBitCast(Self.headerCallback, to: UnsafeRawPointer.self)),
                                   (CurlOption.readFunction, unsafeBitCast(Self.readCallback, to: UnsafeRawPointer.self)),
                                   (CurlOption.seekFunction, unsafeBitCast(Self.seekCallback, to: UnsafeRawPointer.self)),
                                   (CurlOption.transferInfoFunction, unsafeBitCast(Self.progressCallback, to: UnsafeRawPointer.self)),
                                   (CurlOption.sslContextFunction, unsafeBitCast(Self.sslContextCallback, to: UnsafeRawPointer.self)),
                                   (CurlOption.closeSocketFunction, unsafeBitCast(CurlSockets.closeSocketCallback, to: UnsafeRawPointer.self))] {
            sink.check(option, afn_easy_setopt_pointer(easy, option, function))
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        for option in [CurlOption.writeData, CurlOption.headerData, CurlOption.readData, CurlOption.seekData, CurlOption.transferInfoData,
                       CurlOption.sslContextData] {
            sink.check(option, afn_easy_setopt_pointer(easy, option, context))
        }
        sink.check(CurlOption.closeSocketData, afn_easy_setopt_pointer(easy, CurlOption.closeSocketData, transport.socketsContext))
    }

    /// Gives the hop's handle back to the transport (removed from the multi handle already).
    func releaseHandle() {
        // Kept (stopped) until the next hop, which rewinds the stream only when no read is in flight.
        bodyReader?.stop()
        // libcurl 7.88's curl_easy_reset keeps a handle's request-trailer state: the next chunked
        // upload on the reset handle corrupted the heap (a crash in free after a 307 re-sent a
        // body with trailers). Such a handle is closed instead.
        if let easy { transport.recycle(easy, reusable: !hop.sendsTrailers) }
        easy = nil
        if let headerList { afn_slist_free_all(headerList) }
        headerList = nil
    }
}

/// Sets each option on the easy handle as `EasyHandleOptions` builds it, keeping the first
/// refusal that matters (`CurlOptionRefusal`), and collects the header lines into libcurl's list.
struct HandleSink: CurlOptionSink {
    let easy: UnsafeMutableRawPointer
    var headerList: UnsafeMutableRawPointer?
    /// The error the hop fails with: the first option libcurl refused.
    var refusal: TransportError?

    init(easy: UnsafeMutableRawPointer) {
        self.easy = easy
    }

    mutating func set(_ value: CurlOptionValue) {
        let code = switch value {
        case .long(let option, let value): afn_easy_setopt_long(easy, option, value)
        case .offset(let option, let value): afn_easy_setopt_off(easy, option, value)
        case .string(let option, let value): value.withCString { afn_easy_setopt_pointer(easy, option, $0) }
        case .blob(let option, let value): value.withUnsafeBytes { afn_easy_setopt_blob(easy, option, $0.baseAddress, $0.count) }
        case .null(let option): afn_easy_setopt_pointer(easy, option, nil)
        }
        if code != CurlCode.ok, refusal == nil { refusal = CurlOptionRefusal.error(setting: value, code: code, libcurl: CurlTransport.libcurlVersion) }
    }

    /// Notes libcurl's answer `code` to setting the pointer or callback `option`.
    mutating func check(_ option: Int32, _ code: Int32) {
        if code != CurlCode.ok, refusal == nil { refusal = CurlOptionRefusal.error(setting: option, code: code, libcurl: CurlTransport.libcurlVersion) }
    }

    mutating func appendHeader(_ line: String) {
        headerList = afn_slist_append(headerList, line)
    }
}
