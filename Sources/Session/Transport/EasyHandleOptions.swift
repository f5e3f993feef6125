import AFSecurity
import Foundation

/// One libcurl option and its value, as `curl_easy_setopt` takes it.
enum CurlOptionValue: Equatable {
    case long(Int32, Int)
    case offset(Int32, Int64)
    case string(Int32, String)
    case blob(Int32, Data)
}

/// The options of one hop's easy handle, built from the request and the transport's settings:
/// every value option libcurl is given, the request's header lines as libcurl reads them, and
/// the body's length. The callbacks and their context pointers are the transfer's
/// (`CurlTransfer+Handle`). Pure: tested without libcurl.
struct EasyHandleOptions: Equatable {
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
    }

    /// The request's fields libcurl writes itself from the body it sends (lower-case).
    static let framingFields: Set<String> = ["content-length", "transfer-encoding", "expect"]

    var values: [CurlOptionValue]
    /// The header lines (`CURLOPT_HTTPHEADER`): "Name: value", and "Name;" for an empty value
    /// (libcurl reads "Name:" as "remove this header"); "Expect:" keeps libcurl from waiting
    /// for a 100 Continue.
    var headerLines: [String]
    /// The request body's length; -1 when unknown or none is sent.
    var uploadLength: Int64

    init(_ input: Input) {
        var values: [CurlOptionValue] = [.string(CurlOption.url, input.url.absoluteString)]
        if let socketPath = input.socketPath { values.append(.string(CurlOption.unixSocketPath, socketPath)) }
        // Every hop names its proxy, or none: libcurl's own reading of the environment is off.
        values.append(.string(CurlOption.proxy, input.proxy?.curlURL ?? ""))
        if let proxy = input.proxy {
            values.append(.long(CurlOption.suppressConnectHeaders, 1))
            if proxy.kind == .https, !proxy.anchorCertificates.isEmpty { values.append(.blob(CurlOption.proxyCAInfoBlob, proxy.anchorsPEM)) }
            if let username = proxy.username { values.append(.string(CurlOption.proxyUsername, username)) }
            if let password = proxy.password { values.append(.string(CurlOption.proxyPassword, password)) }
        }
        if let identity = input.clientIdentity {
            // Part of libcurl's connection matching: a connection is reused for this identity only.
            values.append(.blob(CurlOption.sslCertificateBlob, identity.certificateChainPEM))
            values.append(.blob(CurlOption.sslKeyBlob, identity.privateKeyPEM))
        }
        values += [
            .string(CurlOption.protocolsString, "http,https"), .string(CurlOption.redirectProtocolsString, "http,https"),
            .string(CurlOption.acceptEncoding, ""), .long(CurlOption.noSignal, 1), .long(CurlOption.httpVersion, input.httpVersion.curlValue),
        ]
        let scheme = input.url.scheme?.lowercased()
        switch input.httpVersion {
        case .automatic where scheme == "https":
            // Wait for a connection that may multiplex rather than open another beside it: only
            // where HTTP/2 can be negotiated (TLS with ALPN); over plain http the wait would hold
            // a request behind another's response on the one HTTP/1.1 connection.
            values.append(.long(CurlOption.pipeWait, 1))
        case .http2PriorKnowledge where scheme == "http":
            // libcurl 7.88 fails every request after the first on a prior-knowledge connection,
            // in turn or multiplexed, with CURLE_HTTP2, "Error in the HTTP2 framing layer" (`curl
            // --http2-prior-knowledge URL URL` shows it against nginx): such a connection
            // carries one request (and the transport does not multiplex).
            values.append(.long(CurlOption.forbidReuse, 1))
        default:
            break
        }
        values += [
            .long(CurlOption.bufferSize, input.receiveBufferSize), .long(CurlOption.uploadBufferSize, 64 * 1024),
            .long(CurlOption.noProgress, 0),
            // The policy replaces OpenSSL's verification (and the host check) in the handshake;
            // without session resumption every connection is verified.
            .long(CurlOption.sslVerifyPeer, 1), .long(CurlOption.sslVerifyHost, 0), .long(CurlOption.sslSessionIDCache, 0),
            .long(CurlOption.connectTimeoutMilliseconds, input.connectMilliseconds),
            .long(CurlOption.timeoutMilliseconds, input.totalMilliseconds),
        ]

        let method = input.method?.uppercased() ?? "GET"
        var headers = input.headers
        let uploadLength: Int64 = switch input.body {
        case .data(let count): Int64(count)
        case .stream(let declared): declared ?? -1
        case .none: method == "POST" || method == "PUT" || method == "PATCH" ? 0 : -1
        }
        if method == "HEAD" {
            values.append(.long(CurlOption.noBody, 1))
        } else if uploadLength >= 0 || input.body != .none {
            values.append(.long(CurlOption.upload, 1))
            values.append(.offset(CurlOption.inFileSizeLarge, uploadLength))
        }
        if method != "GET", method != "HEAD" { values.append(.string(CurlOption.customRequest, method)) }
        // URLSession's own protocol gives this type to a POST body that has none.
        if method == "POST", uploadLength != 0, !headers.contains(where: { $0.name.lowercased() == "content-type" }) {
            headers.append((name: "Content-Type", value: "application/x-www-form-urlencoded"))
        }
        self.values = values
        headerLines = headers.map { $0.value.isEmpty ? $0.name + ";" : $0.name + ": " + $0.value } + ["Expect:"]
        self.uploadLength = uploadLength
    }
}
