import AFSecurity
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// Managers released on many threads while other managers handshake over TLS: tearing a
/// transport down (its multi handle, idle TLS connections and their OpenSSL contexts) must be
/// safe whatever thread drops the last reference.
final class TransportTeardownConcurrencyTests: XCTestCase {
    private final class Failures: @unchecked Sendable {
        // @unchecked: `messages` is only touched under `lock`.
        private let lock = NSLock()
        private var messages: [String] = []
        func record(_ message: String) { lock.withLock { messages.append(message) } }
        var all: [String] { lock.withLock { messages } }
    }

    private final class WeakManagers: @unchecked Sendable {
        // @unchecked: `managers` is only touched under `lock`.
        private let lock = NSLock()
        private var managers: [() -> URLSessionManager?] = []
        func add(_ manager: URLSessionManager) { lock.withLock { managers.append { [weak manager] in manager } } }
        var alive: Int { lock.withLock { managers.filter { $0() != nil }.count } }
    }

    func testManagersReleasedOnManyThreadsWhileOthersHandshake() throws {
        let server = try TLSServer.named("localhost")
        let policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [try Fixtures.certificate("localhost")],
                                    anchorCertificates: [try Fixtures.certificate("root-ca")])
        let failures = Failures()
        let released = WeakManagers()
        let threads = 4
        let managersPerThread = 8
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for round in 0..<managersPerThread {
                let manager = URLSessionManager()
                released.add(manager)
                do {
                    try manager.setSecurityPolicy(policy)
                    let done = DispatchGroup()
                    // Two connections per manager, each with its own handshake and SSL_CTX,
                    // left idle in the multi handle's cache when the tasks complete.
                    for index in 0..<2 {
                        done.enter()
                        let url = server.url("/get?thread=\(thread)&round=\(round)&index=\(index)")
                        let task = try manager.dataTask(with: URLRequest(url: url)) { response, _, error in
                            if let error { failures.record("\(url): \(error)") }
                            if (response as? HTTPURLResponse)?.statusCode != 200 { failures.record("\(url): no 200") }
                            done.leave()
                        }
                        manager.resume(task)
                    }
                    if done.wait(timeout: .now() + 30) == .timedOut { failures.record("thread \(thread) round \(round): timed out") }
                } catch {
                    failures.record("\(error)")
                }
                // Half are invalidated, half only dropped; either way the last reference goes
                // on whatever thread URLSession or this loop happens to release it.
                if round % 2 == 0 { manager.invalidateSession(cancelingTasks: false) }
            }
        }
        XCTAssertEqual(failures.all, [])
        let deadline = Date().addingTimeInterval(20)
        while released.alive > 0 && Date() < deadline { usleep(20_000) }
        XCTAssertEqual(released.alive, 0, "every manager is freed, with its transport")
    }

    /// A process that exits while its managers' transports are torn down on dispatch workers:
    /// OpenSSL's clean-up at exit must not pull its state from under the teardown. Before the
    /// bridge's exit gate, `transport-exit-probe` crashed in about one run in four under the
    /// thread sanitizer (SEGV in CRYPTO_free_ex_data below curl_multi_cleanup). The probe also
    /// reports on standard error when OpenSSL was cleaned up at exit at all, which the bridge,
    /// initializing OpenSSL first, asks it not to do.
    func testProcessExitingWhileTransportsAreTornDownExitsCleanly() throws {
        let server = try TLSServer.named("localhost")
        let probe = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("transport-exit-probe")
        for run in 0..<12 {
            let process = Process()
            process.executableURL = probe
            // Exits from at once to 12 ms after invalidating: the teardowns start in that window.
            process.arguments = [server.url("/").absoluteString, Fixtures.directory.path, "16", "\(run * 1_000)"]
            let errors = Pipe()
            process.standardError = errors
            try process.run()
            let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0, "run \(run): \(stderr)")
            XCTAssertEqual(stderr, "", "run \(run)")
        }
    }
}
