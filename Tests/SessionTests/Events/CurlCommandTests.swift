import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// `URLRequest.curlCommand`, exact text.
final class CurlCommandTests: XCTestCase {
    private func request() -> URLRequest {
        var request = URLRequest(url: URL(string: "https://api.example/v1/orders?token=t0p&page=1")!)
        request.httpMethod = "POST"
        request.setValue("Bearer s3cret", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"name":"O'Brien"}"#.utf8)
        return request
    }

    func testCredentialsAreRedactedByDefault() {
        XCTAssertEqual(request().curlCommand(), """
            curl -X 'POST' 'https://api.example/v1/orders?token=%3Credacted%3E&page=1' -H 'Authorization: <redacted>' \
            -H 'Content-Type: application/json' --data-binary '{"name":"O'\\''Brien"}'
            """)
    }

    func testWithoutRedactionEverythingIsShown() {
        XCTAssertEqual(request().curlCommand(redaction: nil), """
            curl -X 'POST' 'https://api.example/v1/orders?token=t0p&page=1' -H 'Authorization: Bearer s3cret' \
            -H 'Content-Type: application/json' --data-binary '{"name":"O'\\''Brien"}'
            """)
    }

    func testAGetHasNoMethodFlagAndABinaryBodyIsNamedByLength() {
        var request = URLRequest(url: URL(string: "http://127.0.0.1/upload")!)
        XCTAssertEqual(request.curlCommand(), "curl 'http://127.0.0.1/upload'")
        request.httpMethod = "PUT"
        request.httpBody = Data([0xFF, 0xFE, 0x00])
        XCTAssertEqual(request.curlCommand(), "curl -X 'PUT' 'http://127.0.0.1/upload' --data-binary '<3 bytes>'")
    }

    /// `'` then U+0301 is one `Character`: the quote must still be escaped, or the shell ends
    /// the quoting there and runs what follows.
    private func requestWithQuoteAndCombiningMark() -> URLRequest {
        var request = URLRequest(url: URL(string: "http://127.0.0.1/")!)
        request.setValue("a'\u{301}; touch F; echo '", forHTTPHeaderField: "X-Note")
        return request
    }

    func testAQuoteFollowedByACombiningMarkIsEscaped() {
        XCTAssertEqual(requestWithQuoteAndCombiningMark().curlCommand(),
                       "curl 'http://127.0.0.1/' -H 'X-Note: a'\\''\u{301}; touch F; echo '\\'''")
    }

    func testAShellRunningTheCommandReceivesEachArgumentIntactAndRunsNothingElse() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curl-command-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // `curl` is a shell function that prints each argument it gets, each ended by a NUL.
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-c", #"curl() { printf '%s\0' "$@"; }; "# + requestWithQuoteAndCombiningMark().curlCommand()]
        shell.currentDirectoryURL = directory
        let output = Pipe()
        shell.standardOutput = output
        try shell.run()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        shell.waitUntilExit()
        XCTAssertEqual(shell.terminationStatus, 0)
        XCTAssertEqual(printed, Data("http://127.0.0.1/\u{0}-H\u{0}X-Note: a'\u{301}; touch F; echo '\u{0}".utf8))
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("F").path))
    }
}
