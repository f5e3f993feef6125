import AFLocking
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/1.1 server inside the test process, for what only a real socket shows: timeouts,
/// connection reuse and the transport's handling of a server that stalls, drips or cuts a
/// reply. It listens on a free port of 127.0.0.1 (`baseURL`) or on a Unix domain socket
/// (`http+unix://` URLs, as the managers take them), keeps connections alive, answers every
/// request with what `handler` returns (404 when none is set), and records every request as
/// received (`requests`). With `tls` it serves HTTPS (`https://`, `https+unix://`) with that
/// certificate; trust it in the manager under test with `tls.securityPolicy`. No Python, no
/// process: each connection is served by a thread of its own, blocking on its socket, until the
/// client closes it or `stop()` is called.
///
/// ```swift
/// let server = try TestServer { request in
///     request.path == "/slow" ? .text("late").delayed(by: 5) : .text("hello")
/// }
/// defer { server.stop() }
/// let url = server.baseURL.appendingPathComponent("slow")
///
/// let tls = try TestServerTLS.selfSigned()
/// let secure = try TestServer(tls: tls) { _ in .text("private") }
/// try manager.setSecurityPolicy(tls.securityPolicy)
/// ```
public final class TestServer: Sendable {
    /// Answers one request.
    public typealias Handler = @Sendable (RecordedRequest) -> ServerReply

    /// `http://127.0.0.1:PORT`, or `http+unix://<socket path>` for a Unix domain socket.
    public let baseURL: URL
    /// The port listened on; 0 on a Unix domain socket.
    public let port: Int
    /// The certificate and key served, or `nil` for plain HTTP.
    public let tls: TestServerTLS?
    /// What the server's threads share; they hold it, not the server, so that a server nobody
    /// holds stops (`deinit`).
    private let core: Core

    /// Starts a server on a free port of 127.0.0.1, or on a Unix domain socket at
    /// `unixSocketPath` (replaced if it exists), answering with `handler`; over TLS with `tls`'s
    /// certificate when it is set (default: plain HTTP).
    public init(unixSocketPath: String? = nil, tls: TestServerTLS? = nil, handler: Handler? = nil) throws {
        let context = try tls?.makeContext()
        let scheme = tls == nil ? "http" : "https"
        let listener: Int32
        if let unixSocketPath {
            unlink(unixSocketPath)
            listener = try Core.listen(unixSocketPath: unixSocketPath)
            port = 0
            let encoded = unixSocketPath.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? unixSocketPath
            baseURL = URL(string: "\(scheme)+unix://\(encoded)")!
        } else {
            (listener, port) = try Core.listenOnLoopback()
            baseURL = URL(string: "\(scheme)://127.0.0.1:\(port)")!
        }
        self.tls = tls
        core = Core(listener: listener, socketPath: unixSocketPath, baseURL: baseURL, tlsContext: context, handler: handler)
        let core = self.core
        let thread = Thread { core.acceptConnections() }
        thread.name = "AFNetworkingTesting.TestServer"
        thread.start()
    }

    deinit {
        core.stop()
    }

    /// Replaces the handler (for the requests that come next).
    public func setHandler(_ handler: @escaping Handler) {
        core.state.withLock { $0.handler = handler }
    }

    /// Every request received so far, in order.
    public var requests: [RecordedRequest] { core.state.withLock { $0.requests } }

    /// How many connections clients have opened so far.
    public var connectionCount: Int { core.state.withLock { $0.connectionCount } }

    /// Stops listening and closes every connection (a client waiting for a reply sees the
    /// connection close). Idempotent.
    public func stop() {
        core.stop()
    }
}

/// The listening socket, the connections and the recorded requests of a `TestServer`.
private final class Core: Sendable {
    struct State {
        var handler: TestServer.Handler?
        var requests: [RecordedRequest] = []
        var connections: [Int32] = []
        var connectionCount = 0
        var stopped = false
    }

    let listener: Int32
    let socketPath: String?
    let baseURL: URL
    let tlsContext: ServerTLSContext?
    let state: Locked<State>

    init(listener: Int32, socketPath: String?, baseURL: URL, tlsContext: ServerTLSContext?, handler: TestServer.Handler?) {
        self.listener = listener
        self.socketPath = socketPath
        self.baseURL = baseURL
        self.tlsContext = tlsContext
        state = Locked(State(handler: handler))
    }

    func stop() {
        let connections: [Int32]? = state.withLock { state in
            guard !state.stopped else { return nil }
            state.stopped = true
            return state.connections
        }
        guard let connections else { return }
        // Shut down rather than close: the threads blocked in accept() and recv() return, and
        // each closes its own descriptor, so none is closed twice or reused under a thread.
        shutdown(listener, Int32(SHUT_RDWR))
        for connection in connections { shutdown(connection, Int32(SHUT_RDWR)) }
        if let socketPath { unlink(socketPath) }
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    // MARK: Serving

    func acceptConnections() {
        defer { close(listener) }
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                if errno == EINTR, !isStopped { continue }
                return
            }
            let number: Int? = state.withLock { state in
                guard !state.stopped else { return nil }
                state.connections.append(connection)
                state.connectionCount += 1
                return state.connectionCount
            }
            guard let number else {
                close(connection)
                return
            }
            let thread = Thread { [self] in serve(connection, number: number) }
            thread.name = "AFNetworkingTesting.TestServer.connection"
            thread.start()
        }
    }

    private func serve(_ descriptor: Int32, number: Int) {
        let accepted = tlsContext.map { ServerConnection(descriptor: descriptor, context: $0) } ?? ServerConnection(plain: descriptor)
        defer { state.withLock { $0.connections.removeAll { $0 == descriptor } } }
        guard let connection = accepted else {
            close(descriptor)
            return
        }
        defer { connection.close() }
        var buffer = Data()
        var parser = RequestParser()
        var continued = false
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while !isStopped {
            let parsed: RequestParser.Parsed?
            do {
                parsed = try parser.parse(buffer)
            } catch {
                _ = connection.send(Data("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
                return
            }
            if let parsed {
                // Indexed from 0 again, as the parser reads it.
                buffer = Data(buffer.dropFirst(parsed.consumed))
                continued = false
                var request = RecordedRequest(
                    method: parsed.method, target: parsed.target, fields: parsed.fields, body: parsed.body, connection: number,
                    url: URL(string: parsed.target, relativeTo: baseURL)?.absoluteURL)
                request.trailers = parsed.trailers
                request.clientCertificate = connection.clientCertificate
                let handler: TestServer.Handler? = state.withLock { state in
                    state.requests.append(request)
                    return state.handler
                }
                let reply = handler?(request) ?? .status(404)
                guard perform(reply.steps(forMethod: parsed.method), on: connection), !parsed.closes else { return }
                continue
            }
            if !continued, RequestParser.expectsContinue(buffer) {
                continued = true
                guard connection.send(Data("HTTP/1.1 100 Continue\r\n\r\n".utf8)) else { return }
            }
            let count = connection.receive(into: &chunk)
            guard count > 0 else { return }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }

    /// Writes `steps`; `false` when the connection is to close (a step closed it, or a write failed).
    private func perform(_ steps: [ServerReply.Step], on connection: ServerConnection) -> Bool {
        for step in steps {
            switch step {
            case .send(let bytes):
                guard connection.send(bytes) else { return false }
            case .pause(let seconds):
                guard pause(seconds) else { return false }
            case .close:
                return false
            }
        }
        return true
    }

    /// Sleeps `seconds` in short steps, returning `false` early when the server stops.
    private func pause(_ seconds: TimeInterval) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if isStopped { return false }
            Thread.sleep(forTimeInterval: min(0.01, max(0, end.timeIntervalSinceNow)))
        }
        return true
    }

    // MARK: Listening

    static func listenOnLoopback() throws -> (Int32, Int) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestServerError.socket(errno: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, Glibc.listen(descriptor, 128) == 0 else {
            let error = errno
            close(descriptor)
            throw TestServerError.socket(errno: error)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }

    static func listen(unixSocketPath path: String) throws -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestServerError.socket(errno: errno) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.utf8.count < capacity else {
            close(descriptor)
            throw TestServerError.socketPathTooLong(path)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path.utf8)
            raw[path.utf8.count] = 0
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, Glibc.listen(descriptor, 128) == 0 else {
            let error = errno
            close(descriptor)
            throw TestServerError.socket(errno: error)
        }
        return descriptor
    }
}

/// Why a `TestServer` could not start.
public enum TestServerError: Error, Equatable {
    /// A socket call failed with `errno`.
    case socket(errno: Int32)
    /// The path does not fit a Unix domain socket's address (107 bytes on Linux).
    case socketPathTooLong(String)
    /// The TLS certificate or key could not be made or read, or OpenSSL could not be loaded.
    case tls(String)
}
