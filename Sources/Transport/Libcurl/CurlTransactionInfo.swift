import LibcurlBridge
import Foundation

/// What libcurl tells of one finished transfer (a hop of a task), read with `curl_easy_getinfo`,
/// and turned into `TransactionMetrics`. The conversion is pure: tested without a server.
struct CurlTransactionInfo: Equatable {
    /// Microseconds from the start of the transfer to the end of each phase (libcurl's `*_TIME_T`):
    /// 0 for a phase that did not happen.
    var nameLookup: Int64 = 0
    var connect: Int64 = 0
    var appConnect: Int64 = 0
    var preTransfer: Int64 = 0
    var startTransfer: Int64 = 0
    var total: Int64 = 0
    var newConnections = 0
    var httpVersion = 0
    var remoteAddress: String?
    var remotePort = 0
    var localAddress: String?
    var localPort = 0
    var requestSize = 0
    var headerSize = 0
    var uploaded: Int64 = 0
    var downloaded: Int64 = 0

    init() {}

    /// The finished transfer of `easy`.
    init(reading easy: UnsafeMutableRawPointer) {
        func off(_ info: Int32) -> Int64 {
            var value: Int64 = 0
            _ = afn_easy_getinfo_off(easy, 0x600000 + info, &value)
            return value
        }
        func long(_ info: Int32) -> Int {
            var value = 0
            _ = afn_easy_getinfo_long(easy, 0x200000 + info, &value)
            return value
        }
        func string(_ info: Int32) -> String? {
            var value: UnsafePointer<CChar>?
            _ = afn_easy_getinfo_string(easy, 0x100000 + info, &value)
            return value.map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
        }
        nameLookup = off(51)
        connect = off(52)
        appConnect = off(56)
        preTransfer = off(53)
        startTransfer = off(54)
        total = off(50)
        newConnections = long(26)
        httpVersion = long(46)
        remoteAddress = string(32)
        remotePort = long(40)
        localAddress = string(41)
        localPort = long(42)
        requestSize = long(12)
        headerSize = long(11)
        uploaded = off(7)
        downloaded = off(8)
    }

    /// The metrics of this transfer of `url`, which started at `fetchStart`; `requestEnd` is when
    /// its body's last byte went (nil: no body); `tls` the connection's version and cipher suite.
    func metrics(url: URL?, fetchStart: Date, requestEnd: Date?, tls: (version: String, cipher: String)?) -> TransactionMetrics {
        func date(_ microseconds: Int64) -> Date? {
            microseconds > 0 ? fetchStart.addingTimeInterval(TimeInterval(microseconds) / 1_000_000) : nil
        }
        let reused = newConnections == 0
        let requestStart = date(preTransfer)
        return TransactionMetrics(
            url: url, fetchStartDate: fetchStart,
            domainLookupStartDate: reused ? nil : fetchStart, domainLookupEndDate: reused ? nil : date(nameLookup),
            connectStartDate: reused ? nil : date(nameLookup) ?? fetchStart, connectEndDate: reused ? nil : date(max(connect, appConnect)),
            secureConnectionStartDate: reused || appConnect == 0 ? nil : date(connect),
            secureConnectionEndDate: reused ? nil : date(appConnect),
            requestStartDate: requestStart, requestEndDate: requestEnd.map { max($0, requestStart ?? $0) } ?? requestStart,
            responseStartDate: date(startTransfer), responseEndDate: date(total),
            networkProtocolName: Self.protocolName(httpVersion), isReusedConnection: reused,
            remoteAddress: remoteAddress, remotePort: remotePort > 0 ? remotePort : nil,
            localAddress: localAddress, localPort: localPort > 0 ? localPort : nil,
            negotiatedTLSProtocolVersion: tls?.version, negotiatedTLSCipherSuite: tls?.cipher,
            countOfRequestHeaderBytesSent: Int64(requestSize),
            countOfRequestBodyBytesSent: uploaded,
            countOfResponseHeaderBytesReceived: Int64(headerSize), countOfResponseBodyBytesReceived: downloaded)
    }

    /// `CURL_HTTP_VERSION_*` as ALPN names it.
    static func protocolName(_ version: Int) -> String? {
        switch version {
        case 1: return "http/1.0"
        case 2: return "http/1.1"
        case 3: return "h2"
        case 30: return "h3"
        default: return nil
        }
    }
}
