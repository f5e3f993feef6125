import AFLocking
import AFNetworkingTesting
import Foundation
import XCTest

/// `afn -N` and `afn sse` against the loopback test server: output written as it arrives.
final class AFNStreamingCommandTests: XCTestCase {
    /// Starts `afn` with `arguments`; its standard output and error as pipes.
    private func start(_ arguments: [String]) throws -> (process: Process, stdout: FileHandle, stderr: FileHandle) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("afn")
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        addTeardownBlock { if process.isRunning { process.terminate() } }
        return (process, out.fileHandleForReading, err.fileHandleForReading)
    }

    private func server(_ handler: @escaping TestServer.Handler) throws -> TestServer {
        let server = try TestServer(handler: handler)
        addTeardownBlock { server.stop() }
        return server
    }

    func testNoBufferWritesTheBodyAsItArrives() throws {
        let server = try server { _ in ServerReply.text("first\nsecond\n").dripped(6, every: 3) }
        let started = Date()
        let afn = try start(["get", "-N", server.baseURL.absoluteString])
        let first = afn.stdout.availableData
        XCTAssertEqual(String(decoding: first, as: UTF8.self), "first\n")
        XCTAssertLessThan(Date().timeIntervalSince(started), 2.5, "the first chunk waited for the body's end")
        XCTAssertTrue(afn.process.isRunning)
        let rest = afn.stdout.readDataToEndOfFile()
        afn.process.waitUntilExit()
        XCTAssertEqual(String(decoding: first + rest, as: UTF8.self), "first\nsecond\n")
        XCTAssertEqual(afn.process.terminationStatus, 0)
        let summary = String(decoding: afn.stderr.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(summary.hasPrefix("HTTP 200 ") && summary.hasSuffix(" (13 bytes)\n"), summary)
    }

    func testNoBufferExitsOneForAnHTTPErrorStatus() throws {
        let server = try server { _ in .text("gone", status: 410) }
        let afn = try start(["get", "--no-buffer", server.baseURL.absoluteString])
        let output = afn.stdout.readDataToEndOfFile()
        afn.process.waitUntilExit()
        XCTAssertEqual(String(decoding: output, as: UTF8.self), "gone")
        XCTAssertEqual(afn.process.terminationStatus, 1)
    }

    func testSSEPrintsEventsAndReconnectsWithTheLastEventID() throws {
        let count = Locked(0)
        let server = try server { _ in
            let call = count.withLock { count -> Int in
                count += 1
                return count
            }
            let stream = call == 1 ? "retry: 10\nid: 1\nevent: tick\ndata: a\ndata: b\n\n" : call == 2 ? "id: 2\ndata: c\n\n" : ""
            return call > 2 ? .status(204) : .status(200, fields: ["Content-Type": "text/event-stream"], body: Data(stream.utf8))
        }
        let afn = try start(["sse", server.baseURL.absoluteString, "--retry", "1"])
        let output = afn.stdout.readDataToEndOfFile()
        afn.process.waitUntilExit()
        XCTAssertEqual(afn.process.terminationStatus, 0)
        XCTAssertEqual(String(decoding: output, as: UTF8.self), "event: tick\nid: 1\ndata: a\ndata: b\n\nid: 2\ndata: c\n\n")
        XCTAssertEqual(server.requests.map { $0.value(forHeader: "Last-Event-ID") }, [nil, "1", "2"])
    }
}
