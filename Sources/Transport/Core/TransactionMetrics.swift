import Foundation

/// One request and its response within a task on the libcurl transport: each redirect hop and
/// the final exchange, in order. Dates are taken from libcurl's timings of the transfer; a phase
/// that did not happen is `nil` (no name lookup, connection or TLS handshake on a reused
/// connection). URLSession's own protocol reports none of these. Beyond AFNetworking, after
/// Foundation's `URLSessionTaskTransactionMetrics`.
public struct TransactionMetrics: Sendable, Equatable {
    /// The URL requested.
    public var url: URL?
    /// The attempt this exchange belongs to: 1 for the first, more after retries
    /// (`RequestInterceptor`).
    public var attempt = 1
    /// When the transport started the request.
    public var fetchStartDate: Date
    /// When the host name lookup started and ended.
    public var domainLookupStartDate: Date?
    public var domainLookupEndDate: Date?
    /// When the connection started and was established, TLS handshake included.
    public var connectStartDate: Date?
    public var connectEndDate: Date?
    /// When the TLS handshake started and ended.
    public var secureConnectionStartDate: Date?
    public var secureConnectionEndDate: Date?
    /// When the request started, and when its last byte (of the body, if any) was handed over.
    public var requestStartDate: Date?
    public var requestEndDate: Date?
    /// When the first byte of the response arrived, and when the exchange ended.
    public var responseStartDate: Date?
    public var responseEndDate: Date?
    /// The protocol, as ALPN names it: `http/1.1` or `h2`.
    public var networkProtocolName: String?
    /// Whether the request went on a connection an earlier request opened.
    public var isReusedConnection: Bool
    /// The address and port connected to (the proxy's, through a proxy), and the local ones.
    public var remoteAddress: String?
    public var remotePort: Int?
    public var localAddress: String?
    public var localPort: Int?
    /// The TLS version (`TLSv1.3`) and cipher suite (`TLS_AES_256_GCM_SHA384`) of the connection.
    public var negotiatedTLSProtocolVersion: String?
    public var negotiatedTLSCipherSuite: String?
    /// Bytes of the request's head and body sent, and of the response's heads and body received
    /// (the body as it arrived, before content decoding).
    public var countOfRequestHeaderBytesSent: Int64
    public var countOfRequestBodyBytesSent: Int64
    public var countOfResponseHeaderBytesReceived: Int64
    public var countOfResponseBodyBytesReceived: Int64
}
