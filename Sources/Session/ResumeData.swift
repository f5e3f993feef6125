import AFSerialization
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a cancelled download leaves for resuming, encoded as the opaque `Data` handed to the
/// caller. URLSession on Linux produces no resume data at all, so the manager makes its own:
/// the partial file, its length, and the validator (`ETag` or `Last-Modified`) that lets the
/// server confirm with `If-Range` that the resource did not change.
struct ResumeData: Codable, Equatable {
    static let currentVersion = 1

    var version = ResumeData.currentVersion
    var url: URL
    var method: String
    var headers: [String: String]
    var partialFilePath: String
    var bytesReceived: Int64
    var entityTag: String?
    var lastModified: String?

    init?(request: URLRequest, response: HTTPURLResponse?, partialFile: URL, bytesReceived: Int64) {
        let lastModified = response?.value(forHTTPHeaderField: "Last-Modified")
        // Without a validator a resumed download could splice two versions of the resource together.
        let strongTag = response.flatMap(Self.strongEntityTag)
        guard let url = request.url, bytesReceived > 0, strongTag != nil || lastModified != nil else { return nil }
        self.url = url
        method = request.httpMethod ?? "GET"
        headers = request.allHTTPHeaderFields ?? [:]
        partialFilePath = partialFile.path
        self.bytesReceived = bytesReceived
        self.entityTag = strongTag
        self.lastModified = strongTag == nil ? lastModified : nil
    }

    /// The `ETag` of `response` when it can validate a range: a weak one cannot (RFC 9110,
    /// 13.1.5).
    static func strongEntityTag(of response: HTTPURLResponse) -> String? {
        response.value(forHTTPHeaderField: "ETag").flatMap { $0.hasPrefix("W/") ? nil : $0 }
    }

    init(decoding data: Data) throws {
        guard let decoded = try? JSONDecoder().decode(ResumeData.self, from: data) else {
            throw SessionError.invalidResumeData(reason: "not produced by this library")
        }
        guard decoded.version == Self.currentVersion else {
            throw SessionError.invalidResumeData(reason: "version \(decoded.version) is not supported")
        }
        guard FileSize.ofRegularFile(atPath: decoded.partialFilePath).map(Int64.init) == decoded.bytesReceived else {
            throw SessionError.invalidResumeData(reason: "the partial file is missing or changed")
        }
        self = decoded
    }

    var encoded: Data { (try? JSONEncoder().encode(self)) ?? Data() }

    /// The original request asking for the rest: `Range` from the received length, and
    /// `If-Range` so that a changed resource comes back whole (200) instead of spliced.
    var continuationRequest: URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.setValue("bytes=\(bytesReceived)-", forHTTPHeaderField: "Range")
        request.setValue(entityTag ?? lastModified, forHTTPHeaderField: "If-Range")
        return request
    }
}
