import AFSecurity
import Foundation
import XCTest

/// The certificate matrix (Tests/SecurityTests/Fixtures/Matrix, made by
/// `scripts/make-certificate-matrix.sh`): one server chain a row, with the verdict the library
/// must give and what OpenSSL and curl said of it.
public enum CertificateMatrix {
    public static let directory = Fixtures.directory.appendingPathComponent("Matrix")
    public static let table = directory.appendingPathComponent("matrix.tsv")

    public struct Row: Sendable {
        public let name: String
        /// The host the client asks for.
        public let host: String
        /// The chain the server presents, leaf first.
        public let chain: [Certificate]
        /// The client's trust anchors.
        public let anchors: [Certificate]
        /// Whether the library must trust the chain for the host.
        public let accepted: Bool
        /// OpenSSL's and curl's recorded verdicts, for messages.
        public let recorded: String
        /// The pinning mode and the pinned certificate, when the row pins one.
        public let pin: (mode: SSLPinningMode, certificate: Certificate)?
    }

    public static func rows() throws -> [Row] {
        try String(contentsOf: table, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            func certificates(_ names: String) throws -> [Certificate] {
                try names.split(separator: ",").flatMap { try Certificate.certificates(contentsOf: directory.appendingPathComponent("\($0).pem")) }
            }
            // The pin column: `key:NAME` pins NAME's public key, `cert:NAME` NAME's certificate.
            var pin: (mode: SSLPinningMode, certificate: Certificate)?
            let pinColumn = columns[8].split(separator: ":", maxSplits: 1).map(String.init)
            if pinColumn.count == 2 {
                pin = (pinColumn[0] == "key" ? .publicKey : .certificate, try XCTUnwrap(certificates(pinColumn[1]).first))
            }
            return Row(name: columns[0], host: columns[1], chain: try certificates(columns[2]), anchors: try certificates(columns[3]),
                       accepted: columns[4] == "accept", recorded: "openssl: \(columns[5]); curl: \(columns[6]); \(columns[7])", pin: pin)
        }
    }

    /// The policy a row is evaluated under: its anchors, and its pin if it has one.
    public static func policy(for row: Row) -> SecurityPolicy {
        SecurityPolicy(pinningMode: row.pin?.mode ?? .none, pinnedCertificates: row.pin.map { [$0.certificate] } ?? [],
                       anchorCertificates: row.anchors)
    }
}

/// `scripts/tls_matrix_server.py`, started by the test: one TLS server a matrix row on
/// 127.0.0.1, each recording how many request bytes it received on every connection.
public final class CertificateMatrixServer: @unchecked Sendable {
    // @unchecked: every property is set in init and only read afterwards.
    private let process = Process()
    private let log: URL
    private let ports: [String: Int]

    public init() throws {
        let root = Fixtures.directory.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        log = FileManager.default.temporaryDirectory.appendingPathComponent("afn-matrix-\(UUID().uuidString).log")
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", root.appendingPathComponent("scripts/tls_matrix_server.py").path,
                             CertificateMatrix.directory.path, CertificateMatrix.table.path, log.path]
        process.standardOutput = output
        try process.run()
        var ports: [String: Int] = [:]
        var text = ""
        while !text.contains("ready\n") {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "the matrix server ended: \(text)"]) }
            text += String(decoding: chunk, as: UTF8.self)
        }
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let port = Int(parts[1]) { ports[String(parts[0])] = port }
        }
        self.ports = ports
    }

    deinit {
        // Not waited for: `Process.waitUntilExit` spins on a thread without a run loop.
        kill(process.processIdentifier, SIGKILL)
        try? FileManager.default.removeItem(at: log)
    }

    public func url(for row: CertificateMatrix.Row) -> URL {
        let host = row.host.contains(":") ? "[\(row.host)]" : row.host
        return URL(string: "https://\(host):\(ports[row.name] ?? 0)/matrix")!
    }

    /// The request bytes each connection to `row`'s server received, once at least one
    /// connection has ended (waiting up to `timeout`).
    public func receivedBytes(_ row: CertificateMatrix.Row, within timeout: TimeInterval = 5) -> [Int] {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            let lines = ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n")
            let counts = lines.compactMap { line -> Int? in
                let parts = line.split(separator: "\t")
                return parts.count == 2 && parts[0] == row.name ? Int(parts[1]) : nil
            }
            if !counts.isEmpty { return counts }
            Thread.sleep(forTimeInterval: 0.02)
        } while Date() < deadline
        return []
    }
}
