import AFLocking
import AFNetworkingTesting
import Foundation
import TestSupport
import XCTest

/// Runs the built `afn` executable against the in-process `TestServer` (what `afn` sends, as
/// recorded, and what it makes of the replies; over TLS with the fixture certificates), and
/// against the proxies and the HTTP/2 server of `scripts/test.sh` where proxying or HTTP/2 is
/// the point.
final class AFNCommandTests: XCTestCase {
    struct Run {
        let status: Int32
        let stdout: Data
        let stderr: String

        var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: stdout)) as? [String: Any] }
    }

    var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory() }
    override func tearDown() { directory.remove() }

    /// `afn` is built next to the test bundle (this target depends on it).
    private func afn(_ arguments: String...) throws -> Run {
        try afn(arguments, environment: [:])
    }

    /// `afn` with `environment` over this process's (an empty value removes a variable); run
    /// through `launcher` (a program and its arguments, `afn`'s path and arguments after them)
    /// when given.
    private func afn(_ arguments: [String], environment: [String: String], launcher: [String] = []) throws -> Run {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("afn")
        let process = Process()
        process.executableURL = launcher.first.map { URL(fileURLWithPath: $0) } ?? binary
        process.arguments = launcher.isEmpty ? arguments : Array(launcher.dropFirst()) + [binary.path] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }.filter { !$0.value.isEmpty }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: stdout, stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// A `TestServer` on 127.0.0.1 answering with `handler`, stopped at the test's end.
    private func server(_ handler: @escaping TestServer.Handler) throws -> TestServer {
        let server = try TestServer(handler: handler)
        addTeardownBlock { server.stop() }
        return server
    }

    /// `path` on `server`, as text for `afn`'s arguments.
    private func address(_ server: TestServer, _ path: String) -> String { server.baseURL.absoluteString + path }

    /// What httpbin echoes of `request`, as JSON: its query items ("args"), the fields of its
    /// URL-encoded form ("form"), its JSON body ("json"), all as received, and its URL as the
    /// `Host` field names it ("url").
    private static func echo(_ request: RecordedRequest) -> ServerReply {
        var args: [String: String] = [:]
        for item in request.queryItems { args[item.name] = item.value ?? "" }
        var form: [String: String] = [:]
        if request.value(forHeader: "Content-Type")?.utf8.starts(with: "application/x-www-form-urlencoded".utf8) == true {
            for item in request.formFields { form[item.name] = item.value ?? "" }
        }
        let json = (try? JSONSerialization.jsonObject(with: request.body, options: [.fragmentsAllowed])) ?? NSNull()
        let url = "\(request.url?.scheme ?? "http")://\(request.value(forHeader: "Host") ?? "")\(request.target)"
        let body = (try? JSONSerialization.data(withJSONObject: ["args": args, "form": form, "json": json, "url": url] as [String: Any])) ?? Data()
        return .status(200, fields: ["Content-Type": "application/json"], body: body)
    }

    /// A `TestServer` over TLS answering with `echo`, presenting the fixture chain `chain` with
    /// the key `key` (as the TLS servers of `scripts/test.sh` do), asking every client for a
    /// certificate of the fixture client CA when `requiringClientCertificates`. Its base URL is
    /// `https://localhost:PORT`, the name the fixtures are for.
    private func tlsServer(_ chain: String, key: String, requiringClientCertificates: Bool = false) throws -> (server: TestServer, base: String) {
        var tls = try TestServerTLS(certificateChainPEM: Data(contentsOf: Fixtures.url(chain)), privateKeyPEM: Data(contentsOf: Fixtures.url(key)))
        if requiringClientCertificates {
            let authority = try TestServerTLS(certificateChainPEM: Data(contentsOf: Fixtures.url("client-ca.pem")),
                                              privateKeyPEM: Data(contentsOf: Fixtures.url("client-ca.key")))
            tls = tls.requiringClientCertificates(issuedBy: authority.certificates)
        }
        let server = try TestServer(tls: tls, handler: Self.echo)
        addTeardownBlock { server.stop() }
        return (server, "https://localhost:\(server.port)")
    }

    /// `count` bytes of the repeating pattern 0, 1, ... 255, as the fault server's resources.
    private static func pattern(_ count: Int) -> Data { Data((0..<count).map { UInt8($0 % 256) }) }

    /// `bytes` with their `Content-Length`, as `application/octet-stream`.
    private static func octets(_ bytes: Data) -> ServerReply {
        .status(200, fields: ["Content-Type": "application/octet-stream"], body: bytes)
    }

    /// The fault server's cut resource of `cutResource`'s bytes: without a `Range`, the whole
    /// resource declared (with an `ETag` and `Accept-Ranges`) but the connection closed after
    /// 40% of it; with `Range: bytes=k-`, a 206 with the rest.
    private static func cut(_ request: RecordedRequest) -> ServerReply {
        let total = cutResource.count
        let range = request.value(forHeader: "Range")
        if let range, range.unicodeScalars.starts(with: "bytes=".unicodeScalars), range.unicodeScalars.last == "-",
           let start = Int(String(range.unicodeScalars.dropFirst(6).dropLast())), start < total {
            return .status(206, fields: ["Content-Range": "bytes \(start)-\(total - 1)/\(total)", "ETag": "\"cut-v1\""],
                           body: cutResource.suffix(from: start))
        }
        return ServerReply.status(200, fields: ["ETag": "\"cut-v1\"", "Accept-Ranges": "bytes"], body: cutResource)
            .cut(afterBodyBytes: total * 2 / 5)
    }

    func testGetWithQueryPrintsThePrettyJSONBody() throws {
        let server = try server(Self.echo)
        let run = try afn("get", address(server, "/get"), "--query", "q=a b", "--query", "n=1")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.json?["args"] as? [String: String], ["q": "a b", "n": "1"])
        XCTAssertEqual(server.requests.map(\.target), ["/get?n=1&q=a%20b"], "the pairs sorted by name, as AFNetworking serializes them")
        XCTAssertTrue(String(decoding: run.stdout, as: UTF8.self).contains("\n  \"args\" : {"), "JSON is pretty-printed")
        XCTAssertTrue(run.stderr.contains("HTTP 200"), run.stderr)
    }

    /// `k=v` splits at its first `=`, also one followed by U+0301 (one `Character` with it),
    /// as curl splits its arguments.
    func testAQueryPairSplitsAtAnEqualsSignFollowedByACombiningMark() throws {
        let server = try server(Self.echo)
        let run = try afn("get", address(server, "/get"), "--query", "a=\u{301}=b")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.json?["args"] as? [String: String], ["a": "\u{301}=b"])
    }

    func testPostJSONSendsTheDocumentAsIs() throws {
        let server = try server(Self.echo)
        let run = try afn("post", address(server, "/post"), "--json", #"{"k":[1,2],"s":"x"}"#)
        XCTAssertEqual(run.status, 0, run.stderr)
        let echoed = try XCTUnwrap(run.json?["json"] as? [String: Any])
        XCTAssertEqual(echoed["k"] as? [Int], [1, 2])
        XCTAssertEqual(echoed["s"] as? String, "x")
        XCTAssertEqual(server.requests.first?.body, Data(#"{"k":[1,2],"s":"x"}"#.utf8), "the document as given, byte for byte")
        XCTAssertEqual(server.requests.first?.value(forHeader: "Content-Type"), "application/json")
    }

    func testPutFormSendsAFormBody() throws {
        let server = try server(Self.echo)
        let run = try afn("put", address(server, "/put"), "--form", "a=1", "--form", "b=two words")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(server.requests.map(\.method), ["PUT"])
        XCTAssertEqual(run.json?["form"] as? [String: String], ["a": "1", "b": "two words"])
    }

    func testUploadedFileComesBackIdentical() throws {
        let bytes = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 37) })
        let file = try directory.file("upload.bin", contents: bytes)
        let server = try server { _ in .status(200) }
        let run = try afn("upload", address(server, "/post"), "--file", file.path, "--name", "doc", "--field", "title=T")
        XCTAssertEqual(run.status, 0, run.stderr)
        let request = try XCTUnwrap(server.requests.first)
        let parts = MultipartParts.parse(request.body, contentType: request.value(forHeader: "Content-Type"))
        XCTAssertEqual(parts.filter { $0.filename == nil }.map { [$0.name, String(decoding: $0.content, as: UTF8.self)] }, [["title", "T"]])
        XCTAssertEqual(parts.filter { $0.filename != nil }.map(\.name), ["doc"])
        XCTAssertEqual(parts.first { $0.name == "doc" }?.content, bytes)
        XCTAssertTrue(run.stderr.contains("uploaded"), "a one-line summary when stderr is not a terminal: \(run.stderr)")
    }

    func testDownloadedFileMatchesTheResource() throws {
        let output = directory.url.appendingPathComponent("sub/out.bin")
        let expected = Data((0..<50_000).map { UInt8(ascii: "a") + UInt8($0 % 26) })
        let server = try server { _ in Self.octets(expected) }
        let run = try afn("download", address(server, "/range/50000"), "--output", output.path)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try Data(contentsOf: output), expected)
    }

    func testHTTPErrorStatusExitsWithOne() throws {
        let server = try server { _ in .status(404) }
        let run = try afn("get", address(server, "/status/404"))
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.contains("HTTP 404"), run.stderr)
    }

    func testRefusedPortExitsWithTwoAndOneLine() throws {
        let run = try afn("get", "http://127.0.0.1:9/")
        XCTAssertEqual(run.status, 2)
        XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, run.stderr)
        XCTAssertTrue(run.stderr.hasPrefix("afn: "), run.stderr)
    }

    private static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("SecurityTests/Fixtures")

    func testPinnedCertificateFetchesOverTLS() throws {
        let (server, base) = try tlsServer("localhost.pem", key: "localhost.key")
        let run = try afn("get", base + "/get", "--pin", Self.fixtures.appendingPathComponent("localhost.der").path)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.json?["url"] as? String, base + "/get")
        XCTAssertEqual(server.requests.map(\.target), ["/get"])
    }

    func testWrongPinExitsWithTwoAndSaysWhy() throws {
        let (server, base) = try tlsServer("localhost.pem", key: "localhost.key")
        let run = try afn("get", base + "/get", "--pin-mode", "public-key",
                          "--pin", Self.fixtures.appendingPathComponent("wrong-host.pem").path,
                          "--ca", Self.fixtures.appendingPathComponent("root-ca.pem").path)
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.stderr.contains("rejected: no public key of the chain is pinned"), run.stderr)
        XCTAssertEqual(server.requests.count, 0)
    }

    func testClientCertificateAsTheServersExitsWithTwoNamingTheKeyUsage() throws {
        let server = try CertificateMatrixServer()
        let row = try XCTUnwrap(CertificateMatrix.rows().first { $0.name == "eku-client-auth" })
        let run = try afn("get", server.url(for: row).absoluteString, "--ca", CertificateMatrix.directory.appendingPathComponent("root.pem").path)
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.stderr.contains("key usage or extended key usage does not allow a TLS server"), run.stderr)
        XCTAssertEqual(server.receivedBytes(row), [0])
    }

    func testPrivateCAWithoutPinningFetchesOverTLS() throws {
        let (server, base) = try tlsServer("chained-localhost-fullchain.pem", key: "chained-localhost.key")
        let run = try afn("get", base + "/get", "--ca", Self.fixtures.appendingPathComponent("root-ca.pem").path)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(server.requests.map(\.target), ["/get"])
    }

    func testPinningAPlainHTTPURLIsAUsageError() throws {
        let server = try server(Self.echo)
        let run = try afn("get", address(server, "/get"), "--pin", Self.fixtures.appendingPathComponent("localhost.der").path)
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.stderr.contains("needs an https base URL"), run.stderr)
        XCTAssertEqual(server.requests.count, 0, "refused before any request")
    }

    func testUsageErrorsExitWithTwo() throws {
        XCTAssertEqual(try afn("get").status, 2)
        XCTAssertEqual(try afn("post", "http://127.0.0.1:9/", "--json", "{", "--form", "a=b").status, 2)
        XCTAssertEqual(try afn("frobnicate").status, 2)
    }

    func testCredentialsAreNeverPrinted() throws {
        let server = try server(Self.echo)
        let run = try afn("get", address(server, "/headers"), "--user", "user:s3cret", "--verbose")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(server.requests.map { $0.value(forHeader: "Authorization") }, ["Basic dXNlcjpzM2NyZXQ="], "the credential is sent")
        XCTAssertTrue(run.stderr.contains("> Authorization: <redacted>"), run.stderr)
        XCTAssertFalse(run.stderr.contains("s3cret") || run.stderr.contains("dXNlcjpzM2NyZXQ="), run.stderr)
    }

    func testAnHTTPErrorTheManagerReportsAsAnErrorExitsWithOne() throws {
        // A 401 Basic challenge without --user: the manager fails the task with
        // SessionError.authenticationRequired, which still is an HTTP error status.
        let server = try server { _ in .status(401, fields: ["WWW-Authenticate": #"Basic realm="Fake Realm""#]) }
        let run = try afn("get", address(server, "/basic-auth/user/pass"))
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertTrue(run.stderr.contains("HTTP 401"), run.stderr)
    }

    func testAJSONBodyThatDoesNotParseExitsWithTwoAndKeepsTheRawBody() throws {
        let server = try server { _ in .status(200, fields: ["Content-Type": "application/json"], body: Data(#"{"truncated": [1, 2"#.utf8)) }
        let run = try afn("get", address(server, "/invalid-json/0"))
        XCTAssertEqual(run.status, 2, run.stderr)
        XCTAssertEqual(run.stdout, Data(#"{"truncated": [1, 2"#.utf8), "the raw body on stdout")
        XCTAssertTrue(run.stderr.contains("not valid JSON"), run.stderr)
    }

    func testABodyOverMaxFilesizeExitsWithTwoNamingTheLimit() throws {
        let server = try server { _ in Self.octets(Self.pattern(3_000_000)) }
        let run = try afn("get", address(server, "/bytes/3000000"), "--max-filesize", "1000000")
        XCTAssertEqual(run.status, 2, run.stderr)
        XCTAssertTrue(run.stderr.contains("1000000 bytes"), run.stderr)
        XCTAssertTrue(run.stdout.isEmpty)
    }

    func testABodyWithinMaxFilesizeArrives() throws {
        let server = try server { _ in Self.octets(Self.pattern(1000)) }
        let run = try afn("get", address(server, "/bytes/1000"), "--max-filesize", "1000")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdout, Self.pattern(1000))
    }

    func testHelpPrintsTheUsageToStandardOutputAndExitsWithZero() throws {
        let run = try afn("--help")
        XCTAssertEqual(run.status, 0)
        XCTAssertTrue(String(decoding: run.stdout, as: UTF8.self).hasPrefix("usage: afn get|head|delete URL"))
        XCTAssertTrue(String(decoding: run.stdout, as: UTF8.self).contains("--max-filesize BYTES"))
    }

    func testUnixSocketSendsTheRequestToTheSocket() throws {
        let socket = directory.url.appendingPathComponent("http.sock").path
        let server = try TestServer(unixSocketPath: socket, handler: Self.echo)
        defer { server.stop() }
        let run = try afn("get", "http://localhost/get?via=socket", "--unix-socket", socket)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.json?["args"] as? [String: String], ["via": "socket"])
        XCTAssertEqual(server.requests.map(\.target), ["/get?via=socket"])
    }

    func testAnHTTPUnixURLNeedsNoOption() throws {
        let server = try TestServer(unixSocketPath: directory.url.appendingPathComponent("http.sock").path, handler: Self.echo)
        defer { server.stop() }
        let run = try afn("get", address(server, "/get?via=url"))
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.json?["args"] as? [String: String], ["via": "url"])
        XCTAssertEqual(server.requests.map(\.target), ["/get?via=url"])
    }

    func testConnectTimeoutEndsAConnectionThatIsNeverEstablished() throws {
        let blackhole = try FullListener()
        defer { blackhole.close() }
        let start = Date()
        let run = try afn("get", "http://127.0.0.1:\(blackhole.port)/", "--connect-timeout", "0.3")
        XCTAssertEqual(run.status, 2, run.stderr)
        XCTAssertTrue(run.stderr.contains("connect timeout"), run.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(start), 2)
    }

    func testMaxTimeEndsATransferThatKeepsGoing() throws {
        // 100 body bytes declared, one every 100 ms, as the fault server's /drip/100.
        let server = try server { _ in Self.octets(Self.pattern(100)).dripped(1, every: 0.1) }
        let run = try afn("get", address(server, "/drip/100"), "--max-time", "0.8")
        XCTAssertEqual(run.status, 2, run.stderr)
        XCTAssertTrue(run.stderr.contains("total timeout"), run.stderr)
    }

    // MARK: Client certificates, proxies, HTTP versions

    private func fixture(_ name: String) -> String { Fixtures.url(name).path }

    func testCertAndKeyPresentAClientCertificate() throws {
        let (server, base) = try tlsServer("localhost.pem", key: "localhost.key", requiringClientCertificates: true)
        let run = try afn("get", base + "/get", "--ca", fixture("root-ca.pem"), "--cert", fixture("client.pem"), "--key", fixture("client.key"))
        XCTAssertEqual(run.status, 0, run.stderr)
        let client = try TestServerTLS(certificateChainPEM: Data(contentsOf: Fixtures.url("client.pem")), privateKeyPEM: Data(contentsOf: Fixtures.url("client.key")))
        XCTAssertEqual(client.certificates.first?.subjectCommonName, "afn-test-client")
        XCTAssertEqual(server.requests.map(\.clientCertificate), [client.certificates.first], "the request came with the fixture client certificate")
    }

    func testPKCS12CertWithPassPresentsAClientCertificate() throws {
        let (server, base) = try tlsServer("localhost.pem", key: "localhost.key", requiringClientCertificates: true)
        let run = try afn("get", base + "/get", "--ca", fixture("root-ca.pem"),
                          "--cert", fixture("client.p12"), "--cert-type", "p12", "--pass", "afn-fixture")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(server.requests.map { $0.clientCertificate?.subjectCommonName }, ["afn-test-client"])
    }

    func testWithoutCertAServerRequiringOneExitsWithTwoAndSaysSo() throws {
        let (server, base) = try tlsServer("localhost.pem", key: "localhost.key", requiringClientCertificates: true)
        let run = try afn("get", base + "/get", "--ca", fixture("root-ca.pem"))
        XCTAssertEqual(run.status, 2, run.stderr)
        XCTAssertTrue(run.stderr.contains("requires a client certificate"), run.stderr)
        XCTAssertEqual(server.requests.count, 0)
    }

    func testAKeyOfAnotherCertificateExitsWithTwoBeforeAnyRequest() throws {
        let (server, base) = try tlsServer("localhost.pem", key: "localhost.key", requiringClientCertificates: true)
        let run = try afn("get", base + "/get", "--ca", fixture("root-ca.pem"), "--cert", fixture("client.pem"), "--key", fixture("other-client.key"))
        XCTAssertEqual(run.status, 2, run.stderr)
        XCTAssertTrue(run.stderr.contains("does not belong to the client certificate"), run.stderr)
        XCTAssertFalse(run.stderr.contains("PRIVATE KEY"), run.stderr)
        XCTAssertEqual(server.requests.count, 0, "afn has exited: no request came, nor will")
        XCTAssertEqual(server.connectionCount, 0, "refused before connecting")
    }

    func testProxySendsTheRequestThroughTheProxy() throws {
        let proxy = try ProxyServer.named("open")
        let probe = UUID().uuidString
        let run = try afn("get", try HTTPBin.url("/get?probe=\(probe)").absoluteString, "--proxy", proxy.url())
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(proxy.receivedRequest(containing: probe))
    }

    func testAnHTTPSProxyIsReachedOverTLSWithItsOwnAnchors() throws {
        let proxy = try ProxyServer.named("open")
        let probe = UUID().uuidString
        let run = try afn("get", try HTTPBin.url("/get?probe=\(probe)").absoluteString, "--proxy", try ProxyServer.tlsURL(),
                          "--proxy-cacert", fixture("root-ca.pem"))
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(proxy.receivedRequest(containing: probe))
        let untrusted = try afn("get", try HTTPBin.url("/get").absoluteString, "--proxy", try ProxyServer.tlsURL())
        XCTAssertEqual(untrusted.status, 2, untrusted.stderr)
        XCTAssertTrue(untrusted.stderr.contains("The proxy localhost:"), untrusted.stderr)
    }

    func testAnHTTPSProxysAnchorsReplaceTheSystemsTrust() throws {
        // The system's trust store (/etc/ssl/certs, in a private mount namespace) holds only the
        // root the TLS proxy's certificate chains to; the anchors given for the proxy are another
        // CA's, so the proxy must be refused: libcurl's CA directory is not consulted beside them.
        let store = try directory.file("ca-certificates.crt", contents: Data(contentsOf: Fixtures.url("root-ca.pem")))
        let inNamespace = ["/usr/bin/unshare", "-r", "-m", "sh", "-c",
                           #"ln -sf ca-certificates.crt "$1/$(openssl x509 -in "$1/ca-certificates.crt" -noout -hash).0" && mount --bind "$1" /etc/ssl/certs && shift && exec "$@""#,
                           "sh", store.deletingLastPathComponent().path]
        let arguments = { (anchors: String) in
            ["get", try HTTPBin.url("/get").absoluteString, "--proxy", try ProxyServer.tlsURL(), "--proxy-cacert", self.fixture(anchors)]
        }
        let trusted = try afn(try arguments("root-ca.pem"), environment: [:], launcher: inNamespace)
        XCTAssertEqual(trusted.status, 0, "the proxy's own root as its anchor: \(trusted.stderr)")
        let other = try afn(try arguments("client-ca.pem"), environment: [:], launcher: inNamespace)
        XCTAssertEqual(other.status, 2, other.stderr)
        XCTAssertTrue(other.stderr.contains("The proxy localhost:"), other.stderr)
    }

    func testProxyCredentialsInTheProxyURLAreSentToTheProxy() throws {
        let proxy = try ProxyServer.named("guarded")
        let url = try HTTPBin.url("/get").absoluteString
        XCTAssertEqual(try afn("get", url, "--proxy", proxy.url()).status, 2, "407 without credentials")
        let run = try afn("get", url, "--proxy", proxy.url(username: ProxyServer.username, password: ProxyServer.password))
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertFalse(run.stderr.contains(ProxyServer.password), run.stderr)
    }

    func testNoproxyBypassesTheProxyOptionAndTheEnvironments() throws {
        let proxy = try ProxyServer.named("open")
        for (arguments, environment) in [(["--proxy", proxy.url()], [String: String]()), ([], ["http_proxy": proxy.url()])] {
            let probe = UUID().uuidString
            let run = try afn(["get", try HTTPBin.url("/get?probe=\(probe)").absoluteString, "--noproxy", "127.0.0.1"] + arguments,
                              environment: environment)
            XCTAssertEqual(run.status, 0, run.stderr)
            XCTAssertFalse(proxy.receivedRequest(containing: probe, within: 0.3), "\(arguments) \(environment)")
        }
    }

    func testTheEnvironmentsProxyIsUsedAndAnEmptyProxyOptionTurnsItOff() throws {
        let proxy = try ProxyServer.named("open")
        let environment = ["http_proxy": proxy.url()]
        let viaEnvironment = UUID().uuidString
        XCTAssertEqual(try afn(["get", try HTTPBin.url("/get?probe=\(viaEnvironment)").absoluteString], environment: environment).status, 0)
        XCTAssertTrue(proxy.receivedRequest(containing: viaEnvironment))
        let direct = UUID().uuidString
        XCTAssertEqual(try afn(["get", try HTTPBin.url("/get?probe=\(direct)").absoluteString, "--proxy", ""], environment: environment).status, 0)
        XCTAssertFalse(proxy.receivedRequest(containing: direct, within: 0.3))
    }

    func testHTTPSNegotiatesHTTP2AndHTTP1_1KeepsToHTTP1() throws {
        let server = try HTTP2Server.running()
        for (flags, expected) in [([String](), "HTTP/2.0"), (["--http1.1"], "HTTP/1.1")] {
            let probe = UUID().uuidString
            let run = try afn(["get", server.tlsURL.absoluteString + "/get?probe=\(probe)", "--ca", fixture("root-ca.pem")] + flags, environment: [:])
            XCTAssertEqual(run.status, 0, run.stderr)
            XCTAssertEqual(server.requests(containing: probe).map(\.protocol), [expected], "\(flags)")
        }
    }

    func testHTTP2PriorKnowledgeSpeaksHTTP2OverCleartext() throws {
        let server = try HTTP2Server.running()
        let probe = UUID().uuidString
        let run = try afn("get", server.cleartextURL.absoluteString + "/get?probe=\(probe)", "--http2-prior-knowledge")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(server.requests(containing: probe).map(\.protocol), ["HTTP/2.0"])
    }

    func testHelpListsTheConnectivityOptions() throws {
        let usage = String(decoding: try afn("--help").stdout, as: UTF8.self)
        for option in ["--cert FILE", "--key FILE", "--cert-type pem|p12", "--pass P", "--proxy", "--noproxy", "--proxy-cacert FILE", "--unix-socket PATH",
                       "--http1.1", "--http2-prior-knowledge", "--connect-timeout S", "--max-time S"] {
            XCTAssertTrue(usage.contains(option), option)
        }
    }
    // MARK: Retries and resuming

    /// The fault server's scripted sequence: the k-th request is answered by the k-th of
    /// `steps` (the last repeats), a status and, after a colon, its Retry-After in seconds; a
    /// 2xx with {"attempt": k}, any other status with {"error": status}.
    private static func sequence(_ steps: [String]) -> TestServer.Handler {
        let count = Locked(0)
        return { _ in
            let call = count.withLock { count -> Int in
                count += 1
                return count
            }
            let step = steps[min(call, steps.count) - 1].split(separator: ":").map(String.init)
            let status = Int(step[0]) ?? 500
            var fields = ["Content-Type": "application/json"]
            if step.count > 1 { fields["Retry-After"] = step[1] }
            let body = status < 300 ? #"{"attempt": \#(call)}"# : #"{"error": \#(status)}"#
            return .status(status, fields: fields, body: Data(body.utf8))
        }
    }

    func testRetryRetriesATransientFailureAndVerboseShowsEachAttemptWithItsPhases() throws {
        let id = 7
        let server = try server(Self.sequence(["503", "200"]))
        let run = try afn("get", address(server, "/seq/\(id)"), "--retry", "2", "--verbose")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.json?["attempt"] as? Int, 2)
        XCTAssertTrue(run.stderr.contains("* attempt 1: HTTP 503; retrying in "), run.stderr)
        XCTAssertTrue(run.stderr.contains("(attempt 2)\n"), run.stderr)
        XCTAssertTrue(run.stderr.contains("* attempt 1 /seq/\(id): http/1.1, new connection to 127.0.0.1:"), run.stderr)
        XCTAssertTrue(run.stderr.contains("* attempt 2 /seq/\(id): http/1.1, "), run.stderr)
        XCTAssertTrue(run.stderr.contains("first byte "), run.stderr)
        XCTAssertEqual(server.requests.map(\.target), ["/seq/\(id)", "/seq/\(id)"])
    }

    func testWithoutRetryATransientFailureExitsWithOne() throws {
        let server = try server(Self.sequence(["503", "200"]))
        let run = try afn("get", address(server, "/seq/1"))
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertEqual(server.requests.count, 1)
    }

    func testRetryMaxTimeStopsARetryThatWouldStartLater() throws {
        let server = try server(Self.sequence(["503:2", "200"]))
        let run = try afn("get", address(server, "/seq/1"), "--retry", "3", "--retry-max-time", "1")
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertEqual(server.requests.count, 1)
    }

    private static let cutResource = pattern(100_000)

    func testADownloadThatFailsKeepsResumeDataAndResumeCompletesIt() throws {
        let server = try server(Self.cut)
        let url = address(server, "/cut/100000")
        let output = directory.url.appendingPathComponent("cut.bin")
        let failed = try afn("download", url, "--output", output.path)
        XCTAssertEqual(failed.status, 2, failed.stderr)
        XCTAssertTrue(failed.stderr.contains("resume data kept in \(output.path).afnresume: continue with --resume"), failed.stderr)
        let resumed = try afn("download", url, "--output", output.path, "--resume")
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        XCTAssertEqual(try Data(contentsOf: output), Self.cutResource)
        XCTAssertEqual(server.requests.map { $0.value(forHeader: "Range") }, [nil, "bytes=40000-"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.path + ".afnresume"))
    }

    func testResumeWithoutResumeDataContinuesAPartialOutputWithARange() throws {
        let server = try server(Self.cut)
        let output = try directory.file("partial.bin", contents: Self.cutResource.prefix(30_000))
        let run = try afn("download", address(server, "/cut/100000"), "--output", output.path, "--resume")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("continued \(output.path) after 30000 bytes"), run.stderr)
        XCTAssertEqual(try Data(contentsOf: output), Self.cutResource)
        XCTAssertEqual(server.requests.map { $0.value(forHeader: "Range") }, ["bytes=30000-"])
    }

    func testResumeNeverAppendsWhenTheServerSendsTheWholeResource() throws {
        let output = try directory.file("stale.bin", contents: Data(repeating: 0xEE, count: 1200))
        let server = try server { _ in Self.octets(Self.pattern(5000)) }
        let run = try afn("download", address(server, "/bytes/5000"), "--output", output.path, "--resume")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("downloaded again"), run.stderr)
        XCTAssertEqual(server.requests.map { $0.value(forHeader: "Range") }, ["bytes=1200-"], "a range asked for, the whole resource answered")
        XCTAssertEqual(try Data(contentsOf: output), Data((0..<5000).map { UInt8($0 % 256) }))
    }

    func testRetryNeedsACount() throws {
        XCTAssertEqual(try afn("get", "http://127.0.0.1/", "--retry", "x").status, 2)
        XCTAssertEqual(try afn("get", "http://127.0.0.1/", "--retry-max-time", "3").status, 2)
    }

    func testDownloadToADeviceWritesIntoItAndLeavesTheDevice() throws {
        // A private /dev/null made in the scratch directory (CI runs as root), never the system's.
        try Privileges.requireRoot(for: "mknod")
        let device = directory.url.appendingPathComponent("null")
        XCTAssertEqual(mknod(device.path, S_IFCHR | 0o666, dev_t((1 << 8) | 3)), 0)
        let server = try server { _ in Self.octets(Self.pattern(2048)) }
        let run = try afn("download", address(server, "/bytes/2048"), "--output", device.path)
        XCTAssertEqual(run.status, 0, run.stderr)
        var info = stat()
        XCTAssertEqual(lstat(device.path, &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFCHR, "the device was replaced")
    }

    func testDownloadToDashWritesTheBodyToStandardOutput() throws {
        let server = try server { _ in Self.octets(Self.pattern(5000)) }
        let run = try afn("download", address(server, "/bytes/5000"), "--output", "-")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdout, Data((0..<5000).map { UInt8($0 % 256) }))
        XCTAssertTrue(run.stderr.contains("-> standard output"), run.stderr)
    }

    func testDownloadOntoASymbolicLinkIsRefusedAndTheTargetKept() throws {
        let target = try directory.file("target", contents: Data("keep".utf8))
        let link = directory.url.appendingPathComponent("link")
        XCTAssertEqual(symlink(target.path, link.path), 0)
        let server = try server { _ in Self.octets(Self.pattern(64)) }
        let run = try afn("download", address(server, "/bytes/64"), "--output", link.path)
        XCTAssertEqual(run.status, 2, run.stderr)
        XCTAssertTrue(run.stderr.contains("symbolic link"), run.stderr)
        XCTAssertEqual(try Data(contentsOf: target), Data("keep".utf8))
    }

    func testResumeDataIsPrivateHoldsNoCredentialAndIsNeverWrittenThroughALink() throws {
        let server = try server(Self.cut)
        let url = address(server, "/cut/100000")
        let output = directory.url.appendingPathComponent("cut.bin")
        let victim = try directory.file("victim", contents: Data("keep".utf8))
        XCTAssertEqual(symlink(victim.path, output.path + ".afnresume"), 0)
        let failed = try afn("download", url, "--output", output.path, "--header", "Authorization: Bearer s3cret")
        XCTAssertEqual(failed.status, 2, failed.stderr)
        XCTAssertEqual(server.requests.map { $0.value(forHeader: "Authorization") }, ["Bearer s3cret"])
        XCTAssertEqual(try Data(contentsOf: victim), Data("keep".utf8))
        var info = stat()
        XCTAssertEqual(lstat(output.path + ".afnresume", &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFREG)
        XCTAssertEqual(info.st_mode & 0o777, 0o600)
        let saved = try String(contentsOfFile: output.path + ".afnresume", encoding: .utf8)
        XCTAssertFalse(saved.contains("s3cret"), saved)
    }

    func testResumeDataForAnotherURLIsRefused() throws {
        let server = try server { request in request.path == "/cut/100000" ? Self.cut(request) : Self.octets(Self.pattern(5000)) }
        let output = directory.url.appendingPathComponent("cut.bin")
        XCTAssertEqual(try afn("download", address(server, "/cut/100000"), "--output", output.path).status, 2)
        let run = try afn("download", address(server, "/bytes/5000"), "--output", output.path, "--resume")
        XCTAssertEqual(run.status, 2, run.stderr)
        XCTAssertTrue(run.stderr.contains("Invalid resume data: it is for"), run.stderr)
        XCTAssertEqual(server.requests.filter { $0.path == "/cut/100000" }.count, 1, "the resume data's URL was requested")
    }

    func testProgressOfAContentCodedDownloadNeverTraps() throws {
        let output = directory.url.appendingPathComponent("coded.json")
        // httpbin's /gzip: the coded length declared, the body counted decoded.
        let server = try server { _ in .status(200, fields: ["Content-Type": "application/json", "Content-Encoding": "gzip"], body: GzipFixture.coded) }
        let run = try afn("download", address(server, "/gzip"), "--output", output.path)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try Data(contentsOf: output), GzipFixture.decoded)
    }

    func testTimeoutsOfInfinityOrTooLargeForLibcurlMeanNoLimit() throws {
        let server = try server(Self.echo)
        let url = address(server, "/get")
        for value in ["inf", "1e300", "9.3e15"] {
            let run = try afn("get", url, "--max-time", value, "--connect-timeout", value, "--timeout", value)
            XCTAssertEqual(run.status, 0, "\(value): \(run.stderr)")
        }
    }

    func testTimeoutsThatAreNotNumbersOfSecondsAreUsageErrors() throws {
        for value in ["nan", "-1"] {
            XCTAssertEqual(try afn("get", "http://127.0.0.1/", "--max-time", value).status, 2, value)
            XCTAssertEqual(try afn("get", "http://127.0.0.1/", "--connect-timeout", value).status, 2, value)
        }
    }

    // MARK: --cache

    func testWithACacheAFreshResponseAnswersTheNextRunWithoutTheNetwork() throws {
        let server = try server { _ in .status(200, fields: ["Cache-Control": "max-age=3600", "Content-Type": "text/plain"], body: Data("first".utf8)) }
        let cache = directory.url.appendingPathComponent("cache").path
        XCTAssertEqual(try afn("get", address(server, "/item"), "--cache", cache).status, 0)
        let second = try afn("get", address(server, "/item"), "--cache", cache, "--verbose")
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertEqual(second.stdout, Data("first".utf8))
        XCTAssertTrue(second.stderr.contains("* cache hit"), second.stderr)
        XCTAssertEqual(server.requests.count, 1)
        var info = stat()
        XCTAssertEqual(lstat(cache, &info), 0)
        XCTAssertEqual(info.st_mode & 0o7777, 0o700)
    }

    func testWithACacheAStaleResponseIsValidatedAndAnsweredByANotModified() throws {
        let server = try server { request in
            request.value(forHeader: "If-None-Match") == "\"v1\""
                ? .status(304, fields: ["ETag": "\"v1\""])
                : .status(200, fields: ["ETag": "\"v1\"", "Cache-Control": "no-cache", "Content-Type": "text/plain"], body: Data("first".utf8))
        }
        let cache = directory.url.appendingPathComponent("cache").path
        XCTAssertEqual(try afn("get", address(server, "/item"), "--cache", cache).status, 0)
        let second = try afn("get", address(server, "/item"), "--cache", cache, "--verbose")
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertEqual(second.stdout, Data("first".utf8))
        XCTAssertTrue(second.stderr.contains("HTTP 200"), second.stderr)
        XCTAssertTrue(second.stderr.contains("> If-None-Match: \"v1\""), second.stderr)
        XCTAssertTrue(second.stderr.contains("* cache revalidated"), second.stderr)
        XCTAssertEqual(server.requests.map { $0.value(forHeader: "If-None-Match") }, [nil, "\"v1\""])
    }

    func testARunWhileAnotherUsesTheCacheGoesUncached() throws {
        let server = try server { _ in .status(200, fields: ["Cache-Control": "max-age=3600", "Content-Type": "text/plain"], body: Data("first".utf8)) }
        let cache = directory.url.appendingPathComponent("cache").path
        XCTAssertEqual(try afn("get", address(server, "/item"), "--cache", cache).status, 0)
        // Another run holds the directory (a cache holds its lock while it lives).
        let held = open(cache, O_RDONLY | O_DIRECTORY)
        XCTAssertGreaterThanOrEqual(held, 0)
        defer { close(held) }
        XCTAssertEqual(flock(held, LOCK_EX | LOCK_NB), 0)
        let run = try afn("get", address(server, "/item"), "--cache", cache)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdout, Data("first".utf8))
        XCTAssertTrue(run.stderr.contains("is used by another run; this request goes uncached"), run.stderr)
        XCTAssertEqual(server.requests.count, 2, "sent, not answered by the cache it could not use")
    }

    func testACacheDirectoryOthersCanReachIsRefused() throws {
        let cache = directory.url.appendingPathComponent("cache").path
        XCTAssertEqual(mkdir(cache, 0o755), 0)
        XCTAssertEqual(chmod(cache, 0o755), 0)
        let run = try afn("get", "http://127.0.0.1:9/", "--cache", cache)
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.stderr.contains("other users can reach it (mode 755)"), run.stderr)
    }
}
