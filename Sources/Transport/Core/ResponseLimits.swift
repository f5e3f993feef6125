/// How much of a response a task may take in, so that a hostile or broken server cannot grow
/// the process without bound (a compressed "bomb", an endless body). Exceeding a limit stops the
/// transfer and fails the task with `SessionError.responseLimitExceeded`. Set manager-wide with
/// `URLSessionManager.responseLimits`, or for one task with `setResponseLimits(_:for:)`.
/// Beyond AFNetworking, which has no limits.
public struct ResponseLimits: Sendable, Hashable {
    /// The largest body a data or upload task keeps in memory, in decoded bytes; `nil` for no
    /// limit. Default 256 MiB.
    public var maximumBodySize: Int64?
    /// The largest body a download task writes to its file, in decoded bytes; `nil` for no
    /// limit. Default `nil`.
    public var maximumDownloadSize: Int64?
    /// The largest ratio of decoded to received bytes of a compressed body (`Content-Encoding`),
    /// checked once `decompressionAllowance` decoded bytes have arrived; `nil` for no limit.
    /// Default 100. Carried by the libcurl transport only: URLSession's own protocol does not
    /// tell how many bytes it received.
    public var maximumDecompressionRatio: Int?
    /// The decoded bytes allowed before the decompression ratio is checked. Default 1 MiB.
    public var decompressionAllowance: Int64

    /// Limits of the given sizes; the defaults are those of `.default`.
    public init(
        maximumBodySize: Int64? = 256 << 20, maximumDownloadSize: Int64? = nil,
        maximumDecompressionRatio: Int? = 100, decompressionAllowance: Int64 = 1 << 20
    ) {
        self.maximumBodySize = maximumBodySize
        self.maximumDownloadSize = maximumDownloadSize
        self.maximumDecompressionRatio = maximumDecompressionRatio
        self.decompressionAllowance = decompressionAllowance
    }

    /// 256 MiB for bodies kept in memory, no size limit for downloads, 100:1 decompression
    /// after the first MiB.
    public static let `default` = ResponseLimits()

    /// No limit at all.
    public static let unlimited = ResponseLimits(maximumBodySize: nil, maximumDownloadSize: nil, maximumDecompressionRatio: nil)

    /// The size limit of a task that writes to a file (`isDownload`) or keeps its body.
    package func sizeLimit(isDownload: Bool) -> (bytes: Int64, limit: Limit)? {
        if isDownload { return maximumDownloadSize.map { ($0, .downloadSize($0)) } }
        return maximumBodySize.map { ($0, .bodySize($0)) }
    }

    /// Which limit a response exceeded.
    public enum Limit: Sendable, Hashable, CustomStringConvertible {
        /// A body kept in memory reached more than this many bytes.
        case bodySize(Int64)
        /// A download reached more than this many bytes.
        case downloadSize(Int64)
        /// A compressed body decoded to more than this many times the bytes received.
        case decompressionRatio(Int)

        /// The limit in words, e.g. "the body size limit of 1000 bytes".
        public var description: String {
            switch self {
            case .bodySize(let bytes): return "the body size limit of \(bytes) bytes"
            case .downloadSize(let bytes): return "the download size limit of \(bytes) bytes"
            case .decompressionRatio(let ratio): return "the decompression limit of \(ratio):1"
            }
        }
    }
}
