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
    /// When the host name lookup started.
    public var domainLookupStartDate: Date?
    /// When the host name lookup ended.
    public var domainLookupEndDate: Date?
    /// When the connection started.
    public var connectStartDate: Date?
    /// When the connection was established, TLS handshake included.
    public var connectEndDate: Date?
    /// When the TLS handshake started.
    public var secureConnectionStartDate: Date?
    /// When the TLS handshake ended.
    public var secureConnectionEndDate: Date?
    /// When the request started.
    public var requestStartDate: Date?
    /// When the request's last byte (of the body, if any) was handed over.
    public var requestEndDate: Date?
    /// When the first byte of the response arrived.
    public var responseStartDate: Date?
    /// When the exchange ended.
    public var responseEndDate: Date?
    /// The protocol, as ALPN names it: `http/1.1` or `h2`.
    public var networkProtocolName: String?
    /// Whether the request went on a connection an earlier request opened.
    public var isReusedConnection: Bool
    /// The address connected to (the proxy's, through a proxy).
    public var remoteAddress: String?
    /// The port connected to (the proxy's, through a proxy).
    public var remotePort: Int?
    /// The local address of the connection.
    public var localAddress: String?
    /// The local port of the connection.
    public var localPort: Int?
    /// The TLS version of the connection (`TLSv1.3`).
    public var negotiatedTLSProtocolVersion: String?
    /// The TLS cipher suite of the connection (`TLS_AES_256_GCM_SHA384`).
    public var negotiatedTLSCipherSuite: String?
    /// Bytes of the request's head sent.
    public var countOfRequestHeaderBytesSent: Int64
    /// Bytes of the request's body sent.
    public var countOfRequestBodyBytesSent: Int64
    /// Bytes of the response's heads received.
    public var countOfResponseHeaderBytesReceived: Int64
    /// Bytes of the response's body received, as it arrived (before content decoding).
    public var countOfResponseBodyBytesReceived: Int64
}
