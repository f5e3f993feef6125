import AFSerialization
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a cancelled download leaves for resuming, encoded as the opaque `Data` handed to the
/// caller. URLSession on Linux produces no resume data at all, so the manager makes its own:
/// the partial file, its length, and the validator (`ETag` or `Last-Modified`) that lets the
/// server confirm with `If-Range` that the resource did not change. It holds no credential:
/// headers the redaction list calls sensitive are left out (and taken from the new request
/// when one is given on resuming). Nothing in it is trusted on use: the partial file must be a
/// regular file of this user in the private staging directory (`DownloadStaging`).
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
        let strongTag = response.flatMap(ContentRange.strongEntityTag)
        guard let url = request.url, bytesReceived > 0, strongTag != nil || lastModified != nil else { return nil }
        self.url = url
        method = request.httpMethod ?? "GET"
        let redaction = Redaction()
        headers = (request.allHTTPHeaderFields ?? [:]).filter { !redaction.isSecret(header: $0.key) }
        partialFilePath = partialFile.path
        self.bytesReceived = bytesReceived
        self.entityTag = strongTag
        self.lastModified = strongTag == nil ? lastModified : nil
    }


    init(decoding data: Data) throws {
        guard let decoded = try? JSONDecoder().decode(ResumeData.self, from: data) else {
            throw SessionError.invalidResumeData(reason: "not produced by this library")
        }
        guard decoded.version == Self.currentVersion else {
            throw SessionError.invalidResumeData(reason: "version \(decoded.version) is not supported")
        }
        guard decoded.bytesReceived > 0, ["http", "https"].contains(decoded.url.scheme?.lowercased() ?? "") else {
            throw SessionError.invalidResumeData(reason: "not produced by this library")
        }
        self = decoded
    }

    var encoded: Data { (try? JSONEncoder().encode(self)) ?? Data() }

    /// The request asking for the rest: `request` (which must be for the same URL) or else the
    /// original one without its sensitive headers, with `Range` from the received length and
    /// `If-Range` so that a changed resource comes back whole (200) instead of spliced.
    /// Throws `SessionError.invalidResumeData` when `request` is for another URL.
    func continuationRequest(replacing request: URLRequest?) throws -> URLRequest {
        guard let request else { return continuation(of: original) }
        guard request.url?.absoluteString == url.absoluteString else {
            let redaction = Redaction()
            throw SessionError.invalidResumeData(
                reason: "it is for \(redaction.url(url)), not \(request.url.map(redaction.url) ?? "no URL")")
        }
        return continuation(of: request)
    }

    private var original: URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }

    private func continuation(of request: URLRequest) -> URLRequest {
        var request = request
        request.setValue("bytes=\(bytesReceived)-", forHTTPHeaderField: "Range")
        request.setValue(entityTag ?? lastModified, forHTTPHeaderField: "If-Range")
        return request
    }
}
