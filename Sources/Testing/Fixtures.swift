import AFNetworking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Real exchanges recorded once to files and replayed as stubs. Each fixture is a directory of
/// its own: `exchange.json` (the request's method, URL and header fields, the response's status
/// and header fields) and `body` (the response body's bytes, decoded). Secrets are redacted when recorded, by the
/// manager's redaction list (`URLSessionManager.redaction`): sensitive header values and query
/// parameters are written as `<redacted>`. Files are written private (0600, in directories
/// 0700), each to a new file renamed into place, never through a symbolic link.
public enum Fixtures {
    /// What a fixture's JSON files hold.
    struct Exchange: Codable, Equatable {
        var method: String
        var url: String
        var requestFields: [[String]]
        var status: Int
        var responseFields: [[String]]
    }

    /// Sends `request` with `manager` for real, writes the exchange under `directory/name`, and
    /// returns the response.
    @discardableResult
    public static func record(
        _ request: URLRequest, named name: String, with manager: URLSessionManager, to directory: URL
    ) async throws -> HTTPResponse<Data> {
        let response = try await manager.data(for: request)
        let folder = directory.appendingPathComponent(name, isDirectory: true)
        try makePrivateDirectory(directory)
        try makePrivateDirectory(folder)
        try save(exchange(of: request, response: response.response, redaction: manager.redaction), body: response.value, in: folder)
        return response
    }

    /// The exchange of `request` and `response`, secrets redacted by `redaction`.
    static func exchange(of request: URLRequest, response: HTTPURLResponse, redaction: Redaction) -> Exchange {
        Exchange(
            method: request.httpMethod ?? "GET", url: request.url.map { redaction.url($0) } ?? "",
            requestFields: (request.allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }.map { [$0.key, redaction.value($0.value, ofHeader: $0.key)] },
            status: response.statusCode,
            responseFields: (response.allHeaderFields as? [String: String] ?? [:]).sorted { $0.key < $1.key }
                .map { [$0.key, redaction.value($0.value, ofHeader: $0.key)] })
    }

    /// Writes `exchange` and `body` into `folder`.
    static func save(_ exchange: Exchange, body: Data, in folder: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try writePrivately(encoder.encode(exchange), to: folder.appendingPathComponent("exchange.json"))
        try writePrivately(body, to: folder.appendingPathComponent("body"))
    }

    /// The header fields a replay answers with: the recorded ones without those that framed the
    /// recorded body (its length, chunking and content coding, which the body as stored has not).
    static func replayedFields(_ fields: [(name: String, value: String)]) -> [RecordedRequest.Field] {
        fields.filter { !["content-length", "transfer-encoding", "content-encoding"].contains($0.name.lowercased()) }
            .map { RecordedRequest.Field(name: $0.name, value: $0.value) }
    }

    /// The fixtures under `directory`, by name.
    static func load(from directory: URL) throws -> [(name: String, exchange: Exchange, body: Data)] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        return try names.compactMap { name in
            let folder = directory.appendingPathComponent(name, isDirectory: true)
            guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent("exchange.json").path) else { return nil }
            let exchange = try JSONDecoder().decode(Exchange.self, from: data)
            return (name, exchange, try Data(contentsOf: folder.appendingPathComponent("body")))
        }
    }

    /// Makes a new private directory `NNNN-name` under `directory` (made when missing), numbered
    /// after the ones already there; never one that exists, so that recorders in parallel
    /// tests or processes each get their own.
    static func makeNumberedDirectory(named name: String, in directory: URL) throws -> URL {
        try makePrivateDirectory(directory)
        let taken = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        var number = taken.compactMap { Int($0.prefix { $0.isNumber }) }.max() ?? 0
        while true {
            number += 1
            let folder = directory.appendingPathComponent(String(format: "%04d-", number) + name, isDirectory: true)
            if mkdir(folder.path, 0o700) == 0 { return folder }
            guard errno == EEXIST else { throw writeError(at: folder.path) }
        }
    }

    /// Makes `url` a private directory (0700) unless it is one, with any missing parents (each
    /// 0700 too: a first recording into `Fixtures/Users` makes both); `url` itself must not be
    /// a link.
    private static func makePrivateDirectory(_ url: URL) throws {
        var status = stat()
        if lstat(url.path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFDIR else { throw CocoaError(.fileWriteFileExists, userInfo: [NSFilePathErrorKey: url.path]) }
            return
        }
        try makeMissingDirectory(url)
    }

    /// Makes `url` and its missing parents, privately; existing parents are followed as they are.
    private static func makeMissingDirectory(_ url: URL) throws {
        var status = stat()
        if stat(url.path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFDIR else { throw CocoaError(.fileWriteFileExists, userInfo: [NSFilePathErrorKey: url.path]) }
            return
        }
        let parent = url.deletingLastPathComponent()
        if errno == ENOENT, parent.path != url.path { try makeMissingDirectory(parent) }
        guard mkdir(url.path, 0o700) == 0 || errno == EEXIST else { throw writeError(at: url.path) }
    }

    /// The error for a failed write at `path`, by `errno`: it names the path and the system's reason.
    private static func writeError(at path: String) -> CocoaError {
        let code = errno
        let kind: CocoaError.Code = switch code {
        case EACCES, EPERM: .fileWriteNoPermission
        case EROFS: .fileWriteVolumeReadOnly
        case ENOSPC, EDQUOT: .fileWriteOutOfSpace
        default: .fileWriteUnknown
        }
        return CocoaError(kind, userInfo: [NSFilePathErrorKey: path, NSUnderlyingErrorKey: POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)])
    }

    /// Writes `data` to a new private file beside `url`, then renames it over `url`.
    private static func writePrivately(_ data: Data, to url: URL) throws {
        let temporary = url.path + ".\(UUID().uuidString).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw writeError(at: temporary) }
        let written = data.withUnsafeBytes { buffer -> Bool in
            var offset = 0
            while offset < buffer.count {
                let count = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                guard count > 0 else { return false }
                offset += count
            }
            return true
        }
        close(descriptor)
        guard written, rename(temporary, url.path) == 0 else {
            unlink(temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
    }
}

extension StubTransport {
    /// Adds routes for the fixtures under `directory` (recorded by `Fixtures.record` or
    /// `record(unmatchedTo:with:)`): each answers its method and URL (the path, and the query
    /// items whose values were not redacted) with the recorded status, header fields and body.
    /// Fixtures of the same request answer in the order of their names, the last one repeating;
    /// a route asking for more query items is tried first. Returns the routes.
    @discardableResult
    public func replay(fixturesAt directory: URL) throws -> [StubRoute] {
        var routes: [(matcher: RequestMatcher, replies: [StubReply])] = []
        for fixture in try Fixtures.load(from: directory) {
            var components = URLComponents(string: fixture.exchange.url)
            let query = (components?.queryItems ?? []).filter { $0.value != Redaction.placeholder }
            components?.query = nil
            let matcher = RequestMatcher(
                method: fixture.exchange.method, path: components?.string ?? fixture.exchange.url,
                query: Dictionary(query.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first }))
            var reply = StubReply.status(fixture.exchange.status, body: fixture.body)
            reply.fields = Fixtures.replayedFields(fixture.exchange.responseFields.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil })
            if let index = routes.firstIndex(where: { $0.matcher.method == matcher.method && $0.matcher.path == matcher.path && $0.matcher.query == matcher.query }) {
                routes[index].replies.append(reply)
            } else {
                routes.append((matcher, [reply]))
            }
        }
        let specificFirst = routes.enumerated().sorted { ($0.element.matcher.query.count, $1.offset) > ($1.element.matcher.query.count, $0.offset) }
        return specificFirst.map { on($0.element.matcher).replies($0.element.replies) }
    }
}
