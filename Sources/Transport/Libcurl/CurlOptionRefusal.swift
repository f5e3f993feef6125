/// What a refusal of a libcurl option means: every option the transport sets carries the
/// policy's enforcement or something the request asked for, so a refusal (an option the
/// loaded libcurl lacks, `CURLE_UNKNOWN_OPTION`, or one its build cannot honour,
/// `CURLE_NOT_BUILT_IN`) fails the task with a `TransportError.optionRefused` naming the option
/// and what it needs, rather than the request going out without it. Only tuning is passed
/// over: buffer sizes, waiting to multiplex, and the automatic HTTP version on a libcurl built
/// without HTTP/2 (which then speaks HTTP/1.1, as `.automatic` means there). Pure.
enum CurlOptionRefusal {
    /// Each option's name in curl.h and what it needs (curl's `symbols-in-versions`).
    static let catalog: [Int32: (name: String, requires: String)] = [
        CurlOption.writeData: ("CURLOPT_WRITEDATA", "libcurl 7.9.7"),
        CurlOption.url: ("CURLOPT_URL", "libcurl 7.1"),
        CurlOption.readData: ("CURLOPT_READDATA", "libcurl 7.9.7"),
        CurlOption.errorBuffer: ("CURLOPT_ERRORBUFFER", "libcurl 7.1"),
        CurlOption.writeFunction: ("CURLOPT_WRITEFUNCTION", "libcurl 7.1"),
        CurlOption.readFunction: ("CURLOPT_READFUNCTION", "libcurl 7.1"),
        CurlOption.seekFunction: ("CURLOPT_SEEKFUNCTION", "libcurl 7.18.0"),
        CurlOption.seekData: ("CURLOPT_SEEKDATA", "libcurl 7.18.0"),
        CurlOption.httpHeader: ("CURLOPT_HTTPHEADER", "libcurl 7.1"),
        CurlOption.headerData: ("CURLOPT_HEADERDATA", "libcurl 7.10"),
        CurlOption.trailerFunction: ("CURLOPT_TRAILERFUNCTION", "libcurl 7.64.0"),
        CurlOption.trailerData: ("CURLOPT_TRAILERDATA", "libcurl 7.64.0"),
        CurlOption.customRequest: ("CURLOPT_CUSTOMREQUEST", "libcurl 7.1"),
        CurlOption.noProgress: ("CURLOPT_NOPROGRESS", "libcurl 7.1"),
        CurlOption.noBody: ("CURLOPT_NOBODY", "libcurl 7.1"),
        CurlOption.upload: ("CURLOPT_UPLOAD", "libcurl 7.1"),
        CurlOption.sslVerifyPeer: ("CURLOPT_SSL_VERIFYPEER", "libcurl 7.4.2"),
        CurlOption.headerFunction: ("CURLOPT_HEADERFUNCTION", "libcurl 7.7.2"),
        CurlOption.sslVerifyHost: ("CURLOPT_SSL_VERIFYHOST", "libcurl 7.8.1"),
        CurlOption.bufferSize: ("CURLOPT_BUFFERSIZE", "libcurl 7.10"),
        CurlOption.noSignal: ("CURLOPT_NOSIGNAL", "libcurl 7.10"),
        CurlOption.acceptEncoding: ("CURLOPT_ACCEPT_ENCODING", "libcurl 7.21.6"),
        CurlOption.sslContextFunction: ("CURLOPT_SSL_CTX_FUNCTION", "libcurl built with OpenSSL (the TLS hook of the security policy)"),
        CurlOption.sslContextData: ("CURLOPT_SSL_CTX_DATA", "libcurl built with OpenSSL (the TLS hook of the security policy)"),
        CurlOption.inFileSizeLarge: ("CURLOPT_INFILESIZE_LARGE", "libcurl 7.11.0"),
        CurlOption.sslSessionIDCache: ("CURLOPT_SSL_SESSIONID_CACHE", "libcurl 7.16.0"),
        CurlOption.timeoutMilliseconds: ("CURLOPT_TIMEOUT_MS", "libcurl 7.16.2"),
        CurlOption.connectTimeoutMilliseconds: ("CURLOPT_CONNECTTIMEOUT_MS", "libcurl 7.16.2"),
        CurlOption.closeSocketFunction: ("CURLOPT_CLOSESOCKETFUNCTION", "libcurl 7.21.7"),
        CurlOption.closeSocketData: ("CURLOPT_CLOSESOCKETDATA", "libcurl 7.21.7"),
        CurlOption.transferInfoData: ("CURLOPT_XFERINFODATA", "libcurl 7.32.0"),
        CurlOption.transferInfoFunction: ("CURLOPT_XFERINFOFUNCTION", "libcurl 7.32.0"),
        CurlOption.uploadBufferSize: ("CURLOPT_UPLOAD_BUFFERSIZE", "libcurl 7.62.0"),
        CurlOption.protocols: ("CURLOPT_PROTOCOLS", "libcurl 7.19.4"),
        CurlOption.redirectProtocols: ("CURLOPT_REDIR_PROTOCOLS", "libcurl 7.19.4"),
        CurlOption.protocolsString: ("CURLOPT_PROTOCOLS_STR", "libcurl 7.85.0"),
        CurlOption.redirectProtocolsString: ("CURLOPT_REDIR_PROTOCOLS_STR", "libcurl 7.85.0"),
        CurlOption.unixSocketPath: ("CURLOPT_UNIX_SOCKET_PATH", "libcurl 7.40.0"),
        CurlOption.httpVersion: ("CURLOPT_HTTP_VERSION", "libcurl built with HTTP/2 (nghttp2)"),
        CurlOption.pipeWait: ("CURLOPT_PIPEWAIT", "libcurl 7.43.0"),
        CurlOption.forbidReuse: ("CURLOPT_FORBID_REUSE", "libcurl 7.7"),
        CurlOption.proxy: ("CURLOPT_PROXY", "libcurl 7.1"),
        CurlOption.proxyUsername: ("CURLOPT_PROXYUSERNAME", "libcurl 7.19.1"),
        CurlOption.proxyPassword: ("CURLOPT_PROXYPASSWORD", "libcurl 7.19.1"),
        CurlOption.suppressConnectHeaders: ("CURLOPT_SUPPRESS_CONNECT_HEADERS", "libcurl 7.54.0"),
        CurlOption.proxyCAPath: ("CURLOPT_PROXY_CAPATH", "libcurl 7.52.0 built with OpenSSL (the proxy's anchors alone)"),
        CurlOption.proxyCAInfoBlob: ("CURLOPT_PROXY_CAINFO_BLOB", "libcurl 7.77.0 built with OpenSSL (the proxy's anchors)"),
        CurlOption.sslCertificateBlob: ("CURLOPT_SSLCERT_BLOB", "libcurl 7.71.0 built with OpenSSL (the client identity)"),
        CurlOption.sslKeyBlob: ("CURLOPT_SSLKEY_BLOB", "libcurl 7.71.0 built with OpenSSL (the client identity)"),
    ]

    /// The error a task fails with when libcurl `libcurl` answered setting `value` with `code`,
    /// or `nil` when the option was set or its refusal may be passed over.
    static func error(setting value: CurlOptionValue, code: Int32, libcurl: String) -> TransportError? {
        isTuning(value) ? nil : error(setting: value.option, code: code, libcurl: libcurl)
    }

    /// The error a task fails with when libcurl `libcurl` answered setting `option` (a callback,
    /// a pointer, never tuning) with `code`, or `nil` when it was set.
    static func error(setting option: Int32, code: Int32, libcurl: String) -> TransportError? {
        guard code != CurlCode.ok else { return nil }
        let known = catalog[option] ?? (name: "libcurl option \(option)", requires: "a libcurl that knows it")
        // CURLE_UNKNOWN_OPTION (48): an older libcurl; CURLE_NOT_BUILT_IN (4) and, for the
        // HTTP version, CURLE_UNSUPPORTED_PROTOCOL (1): a build without the feature. Any other
        // code refuses the value itself (a string over libcurl's 8 MB limit).
        let requires = [48, 4, 1].contains(code) ? known.requires : "a value libcurl accepts"
        return .optionRefused(option: known.name, requires: requires, libcurl: libcurl, code: code)
    }

    /// Whether `value` only tunes how a request goes, not what it does.
    static func isTuning(_ value: CurlOptionValue) -> Bool {
        switch value {
        case .long(CurlOption.bufferSize, _), .long(CurlOption.uploadBufferSize, _), .long(CurlOption.pipeWait, _): return true
        case .long(CurlOption.httpVersion, let version): return version == HTTPVersion.automatic.curlValue
        default: return false
        }
    }
}

extension CurlOptionValue {
    /// The option the value is for.
    var option: Int32 {
        switch self {
        case .long(let option, _), .offset(let option, _), .string(let option, _), .blob(let option, _), .null(let option): return option
        }
    }
}
