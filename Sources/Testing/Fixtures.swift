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
        let redaction = manager.redaction
        let exchange = Exchange(
            method: request.httpMethod ?? "GET", url: request.url.map { redaction.url($0) } ?? "",
            requestFields: (request.allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }.map { [$0.key, redaction.value($0.value, ofHeader: $0.key)] },
            status: response.statusCode,
            responseFields: (response.response.allHeaderFields as? [String: String] ?? [:]).sorted { $0.key < $1.key }
                .map { [$0.key, redaction.value($0.value, ofHeader: $0.key)] })
        let folder = directory.appendingPathComponent(name, isDirectory: true)
        try makePrivateDirectory(directory)
        try makePrivateDirectory(folder)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try writePrivately(encoder.encode(exchange), to: folder.appendingPathComponent("exchange.json"))
        try writePrivately(response.value, to: folder.appendingPathComponent("body"))
        return response
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

    private static func makePrivateDirectory(_ url: URL) throws {
        var status = stat()
        if lstat(url.path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFDIR else { throw CocoaError(.fileWriteFileExists, userInfo: [NSFilePathErrorKey: url.path]) }
            return
        }
        guard mkdir(url.path, 0o700) == 0 || errno == EEXIST else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: url.path]) }
    }

    /// Writes `data` to a new private file beside `url`, then renames it over `url`.
    private static func writePrivately(_ data: Data, to url: URL) throws {
        let temporary = url.path + ".\(UUID().uuidString).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: temporary]) }
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
    /// Adds a route for each fixture under `directory` (recorded by `Fixtures.record`): its
    /// method and URL (without the query, whose values may be redacted) answered with the
    /// recorded status, header fields and body. Returns the routes, in the fixtures' name order.
    @discardableResult
    public func replay(fixturesAt directory: URL) throws -> [StubRoute] {
        try Fixtures.load(from: directory).map { fixture in
            var components = URLComponents(string: fixture.exchange.url)
            components?.query = nil
            let fields = fixture.exchange.responseFields.compactMap { $0.count == 2 ? RecordedRequest.Field(name: $0[0], value: $0[1]) : nil }
                .filter { !["content-length", "transfer-encoding", "content-encoding"].contains($0.name.lowercased()) }
            var reply = StubReply.status(fixture.exchange.status, body: fixture.body)
            reply.fields = fields
            return on(fixture.exchange.method, components?.string ?? fixture.exchange.url).reply(reply)
        }
    }
}
