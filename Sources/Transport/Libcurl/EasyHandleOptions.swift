import AFSecurity
import Foundation

/// One libcurl option and its value, as `curl_easy_setopt` takes it.
enum CurlOptionValue: Equatable {
    case long(Int32, Int)
    case offset(Int32, Int64)
    case string(Int32, String)
    case blob(Int32, Data)
    /// A string or pointer option set to NULL (no value, not libcurl's built-in one).
    case null(Int32)
}

/// Where `EasyHandleOptions` puts what it builds: the easy handle itself in the transport
/// (`CurlTransfer+Handle`), a recorder in the tests. Options go straight to the sink, with no
/// list made per request.
protocol CurlOptionSink {
    /// Sets one option.
    mutating func set(_ value: CurlOptionValue)
    /// Adds a header line (`CURLOPT_HTTPHEADER`).
    mutating func appendHeader(_ line: String)
}

/// The options of one hop's easy handle, built from the request and the transport's settings:
/// every value option libcurl is given, the request's header lines as libcurl reads them
/// ("Name: value", and "Name;" for an empty value, since libcurl reads "Name:" as "remove this
/// header"; "Expect:" last, which keeps libcurl from waiting for a 100 Continue), and the
/// body's length. The callbacks and their context pointers are the transfer's
/// (`CurlTransfer+Handle`). Pure: tested without libcurl, through a recording sink.
enum EasyHandleOptions {
    /// How the hop's request body is sent.
    enum Body: Equatable {
        case none
        /// `count` bytes in memory.
        case data(count: Int)
        /// A stream, of the length its `Content-Length` header declares (`nil`: unknown, sent
        /// chunked).
        case stream(declaredLength: Int64?)
    }

    /// What a hop is made of.
    struct Input {
        /// The URL libcurl requests (an `http+unix` URL already turned into its HTTP URL).
        var url: URL
        var socketPath: String?
        var proxy: Proxy?
        var clientIdentity: ClientIdentity?
        var httpVersion: HTTPVersion = .automatic
        /// libcurl's receive buffer (`CURLOPT_BUFFERSIZE`).
        var receiveBufferSize: Int
        /// The hop's connect and total timeouts in milliseconds (a total of 0: none).
        var connectMilliseconds: Int
        var totalMilliseconds: Int
        /// The method as the request names it (nil: GET).
        var method: String?
        /// The request's headers, sorted, without the framing fields libcurl writes.
        var headers: [(name: String, value: String)]
        var body: Body
        /// Whether libcurl takes the protocols by name (`CURLOPT_PROTOCOLS_STR`, 7.85.0);
        /// earlier ones take a bitmask (`CURLOPT_PROTOCOLS`).
        var protocolNames = true
    }

    /// The request's fields libcurl writes itself from the body it sends (lower-case).
    static let framingFields: Set<String> = ["content-length", "transfer-encoding", "expect"]

    /// Puts the options of the hop `input` describes into `sink`; returns the request body's
    /// length (-1 when unknown or none is sent).
    static func apply<Sink: CurlOptionSink>(_ input: Input, to sink: inout Sink) -> Int64 {
        sink.set(.string(CurlOption.url, input.url.absoluteString))
        if let socketPath = input.socketPath { sink.set(.string(CurlOption.unixSocketPath, socketPath)) }
        // Every hop names its proxy, or none: libcurl's own reading of the environment is off.
        sink.set(.string(CurlOption.proxy, input.proxy?.curlURL ?? ""))
        if let proxy = input.proxy {
            sink.set(.long(CurlOption.suppressConnectHeaders, 1))
            if proxy.kind == .https, !proxy.anchorCertificates.isEmpty {
                // The anchors replace the system's trust: the blob replaces libcurl's CA file,
                // and its built-in CA directory goes too.
                sink.set(.blob(CurlOption.proxyCAInfoBlob, proxy.anchorsPEM))
                sink.set(.null(CurlOption.proxyCAPath))
            }
            if let username = proxy.username { sink.set(.string(CurlOption.proxyUsername, username)) }
            if let password = proxy.password { sink.set(.string(CurlOption.proxyPassword, password)) }
        }
        if let identity = input.clientIdentity {
            // Part of libcurl's connection matching: a connection is reused for this identity only.
            sink.set(.blob(CurlOption.sslCertificateBlob, identity.certificateChainPEM))
            sink.set(.blob(CurlOption.sslKeyBlob, identity.privateKeyPEM))
        }
        if input.protocolNames {
            sink.set(.string(CurlOption.protocolsString, "http,https"))
            sink.set(.string(CurlOption.redirectProtocolsString, "http,https"))
        } else {
            sink.set(.long(CurlOption.protocols, 3)) // CURLPROTO_HTTP | CURLPROTO_HTTPS
            sink.set(.long(CurlOption.redirectProtocols, 3))
        }
        sink.set(.string(CurlOption.acceptEncoding, ""))
        sink.set(.long(CurlOption.noSignal, 1))
        sink.set(.long(CurlOption.httpVersion, input.httpVersion.curlValue))
        let scheme = input.url.scheme?.lowercased()
        switch input.httpVersion {
        case .automatic where scheme == "https":
            // Wait for a connection that may multiplex rather than open another beside it: only
            // where HTTP/2 can be negotiated (TLS with ALPN); over plain http the wait would hold
            // a request behind another's response on the one HTTP/1.1 connection.
            sink.set(.long(CurlOption.pipeWait, 1))
        case .http2PriorKnowledge where scheme == "http":
            // libcurl 7.88 fails every request after the first on a prior-knowledge connection,
            // in turn or multiplexed, with CURLE_HTTP2, "Error in the HTTP2 framing layer" (`curl
            // --http2-prior-knowledge URL URL` shows it against nginx): such a connection
            // carries one request (and the transport does not multiplex).
            sink.set(.long(CurlOption.forbidReuse, 1))
        default:
            break
        }
        sink.set(.long(CurlOption.bufferSize, input.receiveBufferSize))
        sink.set(.long(CurlOption.uploadBufferSize, 64 * 1024))
        sink.set(.long(CurlOption.noProgress, 0))
        // The policy replaces OpenSSL's verification (and the host check) in the handshake;
        // without session resumption every connection is verified.
        sink.set(.long(CurlOption.sslVerifyPeer, 1))
        sink.set(.long(CurlOption.sslVerifyHost, 0))
        sink.set(.long(CurlOption.sslSessionIDCache, 0))
        sink.set(.long(CurlOption.connectTimeoutMilliseconds, input.connectMilliseconds))
        sink.set(.long(CurlOption.timeoutMilliseconds, input.totalMilliseconds))

        let method = input.method?.uppercased() ?? "GET"
        let uploadLength: Int64 = switch input.body {
        case .data(let count): Int64(count)
        case .stream(let declared): declared ?? -1
        case .none: method == "POST" || method == "PUT" || method == "PATCH" ? 0 : -1
        }
        if method == "HEAD" {
            sink.set(.long(CurlOption.noBody, 1))
        } else if uploadLength >= 0 || input.body != .none {
            sink.set(.long(CurlOption.upload, 1))
            sink.set(.offset(CurlOption.inFileSizeLarge, uploadLength))
        }
        if method != "GET", method != "HEAD" { sink.set(.string(CurlOption.customRequest, method)) }
        for header in input.headers { sink.appendHeader(header.value.isEmpty ? header.name + ";" : header.name + ": " + header.value) }
        // URLSession's own protocol gives this type to a POST body that has none.
        if method == "POST", uploadLength != 0, !input.headers.contains(where: { $0.name.lowercased() == "content-type" }) {
            sink.appendHeader("Content-Type: application/x-www-form-urlencoded")
        }
        sink.appendHeader("Expect:")
        return uploadLength
    }
}
