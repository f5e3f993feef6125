import AFSerialization
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// Requests built by the serializers, sent by URLSession to the local httpbin, parsed by its
/// real form and multipart parsers, and compared with what was put in.
final class HTTPBinRoundTripTests: XCTestCase {
    var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory() }
    override func tearDown() { directory.remove() }

    func testGETQueryArrivesAsArguments() async throws {
        let request = try HTTPRequestSerializer().request(
            method: "GET", urlString: try HTTPBin.url("/get").absoluteString,
            parameters: ["q": "a+b/c?&=", "list": ["x", "y"], "user": ["name": "Al B"], "flag": true])
        let (status, json) = try await HTTPBin.send(request)
        XCTAssertEqual(status, 200)
        let args = try XCTUnwrap(json["args"] as? [String: Any])
        XCTAssertEqual(args["q"] as? String, "a+b/c?&=")
        XCTAssertEqual(args["list[]"] as? [String], ["x", "y"])
        XCTAssertEqual(args["user[name]"] as? String, "Al B")
        XCTAssertEqual(args["flag"] as? String, "1")
    }

    func testFormBodyArrivesWithEveryField() async throws {
        let parameters: [String: Any] = [
            "name": "Al B", "q": "a+b/c?&=%", "list": ["x", "y"], "nested": ["k": "v"], "set": Set(["b", "a"]),
            "unicode": "日本語 🇫🇷", "empty": "", "none": NSNull(),
        ]
        let request = try HTTPRequestSerializer().request(method: "POST", urlString: try HTTPBin.url("/post").absoluteString, parameters: parameters)
        let (status, json) = try await HTTPBin.send(request)
        XCTAssertEqual(status, 200)
        XCTAssertEqual(HTTPBin.formValues(json), [
            "name": ["Al B"], "q": ["a+b/c?&=%"], "list[]": ["x", "y"], "nested[k]": ["v"], "set": ["a", "b"],
            "unicode": ["日本語 🇫🇷"], "empty": [""], "none": [""],
        ])
    }

    func testJSONBodyArrivesIntact() async throws {
        let parameters: [String: Any] = ["s": "é/\"q\"", "n": 1.5, "b": false, "a": [1, 2], "o": ["k": NSNull()]]
        let request = try JSONRequestSerializer().request(method: "PUT", urlString: try HTTPBin.url("/put").absoluteString, parameters: parameters)
        let (status, json) = try await HTTPBin.send(request)
        XCTAssertEqual(status, 200)
        let echoed = try XCTUnwrap(json["json"] as? [String: Any])
        XCTAssertEqual(echoed["s"] as? String, "é/\"q\"")
        XCTAssertEqual(echoed["n"] as? Double, 1.5)
        XCTAssertEqual(echoed["b"] as? Bool, false)
        XCTAssertEqual(echoed["a"] as? [Int], [1, 2])
        XCTAssertTrue((echoed["o"] as? [String: Any])?["k"] is NSNull)
    }

    func testMultipartWithEveryKindOfPartArrivesIntact() async throws {
        let fileBytes = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let file = try directory.file("données.bin", contents: fileBytes)
        let empty = try directory.file("empty.txt", contents: Data())
        let streamed = Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let request = try HTTPRequestSerializer().multipartFormRequest(
            method: "POST", urlString: try HTTPBin.url("/post").absoluteString,
            parameters: ["名前": "値", "zero": "", "tags": ["a", "b"]]
        ) { form in
            try form.appendPart(withFileURL: file, name: "file")
            try form.appendPart(withFileURL: empty, name: "empty")
            try form.appendPart(withFileData: Data("text file\r\nline 2".utf8), name: "text", fileName: "t.txt", mimeType: "text/plain")
            try form.appendPart(with: InputStream(data: streamed), name: "stream", fileName: "s.bin", length: UInt64(streamed.count), mimeType: "application/octet-stream")
            try form.appendPart(withForm: Data(), name: "zero-bytes")
            try form.appendPart(withHeaders: ["Content-Disposition": "form-data; name=\"raw\""], body: Data("raw value".utf8))
        }
        let (status, json) = try await HTTPBin.send(request)
        XCTAssertEqual(status, 200)
        XCTAssertEqual(HTTPBin.formValues(json), ["名前": ["値"], "zero": [""], "tags[]": ["a", "b"], "zero-bytes": [""], "raw": ["raw value"]])
        XCTAssertEqual(HTTPBin.fileContents(json), ["file": fileBytes, "empty": Data(), "text": Data("text file\r\nline 2".utf8), "stream": streamed])
    }

    /// A `"` followed by U+0301 in a name or a filename stays inside its quoted value:
    /// unescaped, Werkzeug ended the value there and took the `name*` that follows as the
    /// part's name (`evil`, `evil.php`).
    func testNamesAndFilenamesWithADoubleQuoteAndACombiningMarkArriveWhole() async throws {
        let name = "f\"\u{301}; name*=UTF-8''evil; x=\"\u{301}"
        let request = try HTTPRequestSerializer().multipartFormRequest(
            method: "POST", urlString: try HTTPBin.url("/post").absoluteString, parameters: [name: "v"]
        ) { form in
            try form.appendPart(withFileData: Data("png".utf8), name: "upload",
                                fileName: "x\"\u{301}; name*=UTF-8''evil.php; x=\"\u{301}.png", mimeType: "image/png")
        }
        let (status, json) = try await HTTPBin.send(request)
        XCTAssertEqual(status, 200)
        XCTAssertEqual(HTTPBin.formValues(json), [name: ["v"]])
        XCTAssertEqual(HTTPBin.fileContents(json), ["upload": Data("png".utf8)])
    }

    func testStreamedMultipartIsSentWithoutContentLength() async throws {
        let request = try HTTPRequestSerializer().multipartFormRequest(method: "POST", urlString: try HTTPBin.url("/post").absoluteString) { form in
            try form.appendPart(withForm: "v", name: "n")
        }
        let (status, json) = try await HTTPBin.send(request)
        XCTAssertEqual(status, 200)
        let headers = try XCTUnwrap(json["headers"] as? [String: Any])
        XCTAssertNil(headers["Content-Length"])
        XCTAssertEqual(HTTPBin.formValues(json), ["n": ["v"]])
    }

    func testMultipartBodyWrittenToAFileUploadsWithItsExactContentLength() async throws {
        let file = try directory.file("upload.bin", contents: Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0) }))
        let serializer = HTTPRequestSerializer()
        let streamed = try serializer.multipartFormRequest(method: "POST", urlString: try HTTPBin.url("/post").absoluteString, parameters: ["k": "v"]) { form in
            try form.appendPart(withFileURL: file, name: "file")
        }
        let length = try XCTUnwrap(streamed.multipartContentLength)
        let bodyFile = directory.url.appendingPathComponent("body")
        let request = try serializer.request(withMultipartFormRequest: streamed, writingStreamContentsToFile: bodyFile)
        let (status, json) = try await HTTPBin.upload(request, fromFile: bodyFile)
        XCTAssertEqual(status, 200)
        XCTAssertEqual((json["headers"] as? [String: Any])?["Content-Length"] as? String, String(length))
        XCTAssertEqual(HTTPBin.formValues(json), ["k": ["v"]])
        XCTAssertEqual(HTTPBin.fileContents(json)["file"], try Data(contentsOf: file))
    }

    func testRandomMultipartParameterSetsRoundTrip() async throws {
        let url = try HTTPBin.url("/post").absoluteString
        for seed in UInt64(1)...200 {
            var random = SeededGenerator(seed: seed)
            let set = try RandomMultipartSet(random: &random, directory: directory)
            let request = try HTTPRequestSerializer().multipartFormRequest(method: "POST", urlString: url, parameters: set.parameters, constructingBodyWith: set.appendParts)
            let (status, json) = try await HTTPBin.send(request)
            XCTAssertEqual(status, 200, "seed \(seed)")
            XCTAssertEqual(HTTPBin.formValues(json), set.expectedForm, "seed \(seed)")
            XCTAssertEqual(HTTPBin.fileContents(json), set.expectedFiles, "seed \(seed)")
        }
    }

    func testRandomFormParameterSetsRoundTrip() async throws {
        let url = try HTTPBin.url("/post").absoluteString
        for seed in UInt64(1)...200 {
            var random = SeededGenerator(seed: seed &* 7919)
            let set = RandomFormSet(random: &random)
            let request = try HTTPRequestSerializer().request(method: "POST", urlString: url, parameters: set.parameters)
            let (status, json) = try await HTTPBin.send(request)
            XCTAssertEqual(status, 200, "seed \(seed)")
            XCTAssertEqual(HTTPBin.formValues(json), set.expected, "seed \(seed)")
        }
    }
}

/// Random multipart content: fields from parameters, files from data, file URLs and streams.
struct RandomMultipartSet {
    var parameters: [String: Any] = [:]
    var expectedForm: [String: [String]] = [:]
    var expectedFiles: [String: Data] = [:]
    private var files: [(name: String, fileName: String, bytes: Data, source: Int, url: URL?)] = []

    init(random: inout SeededGenerator, directory: TemporaryDirectory) throws {
        var names = Set<String>()
        func uniqueName(_ random: inout SeededGenerator) -> String {
            while true {
                // `"` is written as %22 by design, `[`/`]` would read as nesting here, and
                // Werkzeug strips surrounding white space from names.
                let name = random.string(maxLength: 10, minLength: 1, excluding: ["\r", "\n", "\"", "[", "]", "\t", " "])
                if names.insert(name).inserted { return name }
            }
        }
        for _ in 0..<Int.random(in: 0...5, using: &random) {
            let name = uniqueName(&random)
            let value = random.string(maxLength: 40)
            parameters[name] = value
            expectedForm[name] = [value]
        }
        let fileCount = Int.random(in: parameters.isEmpty ? 1...3 : 0...3, using: &random)
        for index in 0..<fileCount {
            let name = uniqueName(&random)
            let fileName = random.string(maxLength: 12, minLength: 1, excluding: ["\r", "\n", "\"", "\u{0}"])
            let bytes = Data(random.bytes(maxCount: index == 0 ? 0 : 6000))
            let source = Int.random(in: 0...2, using: &random)
            let url = source == 1 ? try directory.file("f\(index)-\(UUID().uuidString)", contents: bytes) : nil
            files.append((name, fileName, bytes, source, url))
            expectedFiles[name] = bytes
        }
    }

    func appendParts(_ form: any MultipartFormData) throws {
        for file in files {
            switch file.source {
            case 0:
                try form.appendPart(withFileData: file.bytes, name: file.name, fileName: file.fileName, mimeType: "application/octet-stream")
            case 1:
                try form.appendPart(withFileURL: file.url!, name: file.name, fileName: file.fileName, mimeType: "application/octet-stream")
            default:
                try form.appendPart(with: InputStream(data: file.bytes), name: file.name, fileName: file.fileName, length: UInt64(file.bytes.count), mimeType: "application/octet-stream")
            }
        }
    }
}

/// Random form parameters: strings, arrays, sets, one level of nesting, nulls.
struct RandomFormSet {
    var parameters: [String: Any] = [:]
    var expected: [String: [String]] = [:]

    init(random: inout SeededGenerator) {
        var fields = Set<String>()
        func key(_ random: inout SeededGenerator) -> String {
            random.string(maxLength: 8, minLength: 1, excluding: ["[", "]"])
        }
        for _ in 0..<Int.random(in: 1...6, using: &random) {
            let name = key(&random)
            guard parameters[name] == nil else { continue }
            switch Int.random(in: 0...4, using: &random) {
            case 0:
                let values = (0..<Int.random(in: 1...3, using: &random)).map { _ in random.string(maxLength: 20) }
                guard fields.insert("\(name)[]").inserted else { continue }
                parameters[name] = values
                expected["\(name)[]"] = values
            case 1:
                let values = Set((0..<Int.random(in: 1...3, using: &random)).map { _ in random.string(maxLength: 20) })
                guard fields.insert(name).inserted else { continue }
                parameters[name] = values
                expected[name] = values.sorted { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) }
            case 2:
                let sub = key(&random)
                let value = random.string(maxLength: 20)
                guard fields.insert("\(name)[\(sub)]").inserted else { continue }
                parameters[name] = [sub: value]
                expected["\(name)[\(sub)]"] = [value]
            case 3:
                guard fields.insert(name).inserted else { continue }
                parameters[name] = NSNull()
                expected[name] = [""]
            default:
                let value = random.string(maxLength: 30)
                guard fields.insert(name).inserted else { continue }
                parameters[name] = value
                expected[name] = [value]
            }
        }
    }
}
