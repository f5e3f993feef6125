import AFNetworking
import Foundation

/// Query-string encoding and multipart assembly per second. Baselines in the same run:
/// Foundation's `URLComponents` encoding the equivalent flat query items, and concatenating
/// the multipart body's bytes into one `Data` by hand (no streaming, no validation).
enum SerializerThroughputBenchmark {
    static func run(_ arguments: [String]) throws -> Bool {
        let parameters: [String: Any] = [
            "q": "swift networking on linux", "page": 2, "tags": ["linux", "server", "async"],
            "filter": ["from": "2024-01-01", "to": "2024-12-31"], "flag": true,
        ]
        let items = [
            URLQueryItem(name: "filter[from]", value: "2024-01-01"), URLQueryItem(name: "filter[to]", value: "2024-12-31"),
            URLQueryItem(name: "flag", value: "1"), URLQueryItem(name: "page", value: "2"),
            URLQueryItem(name: "q", value: "swift networking on linux"), URLQueryItem(name: "tags[]", value: "linux"),
            URLQueryItem(name: "tags[]", value: "server"), URLQueryItem(name: "tags[]", value: "async"),
        ]
        let query = try rate(iterations: 50_000) { _ = try QueryStringEncoding.queryString(from: parameters) }
        let components = try rate(iterations: 50_000) {
            var components = URLComponents()
            components.queryItems = items
            _ = components.percentEncodedQuery
        }
        print("query_string_encoding: \(Int(query)) per s")
        print("baseline_urlcomponents_query: \(Int(components)) per s")
        print(String(format: "query_string_ratio_vs_baseline: %.2f", query / components))

        let attachment = Data((0..<65_536).map { UInt8(truncatingIfNeeded: $0) })
        let fields = ["title": "Quarterly report", "author": "Al", "tags": "finance,q3"]
        let multipart = try rate(iterations: 5_000) {
            let form = StreamingMultipartFormData(boundary: "Boundary+0123456789ABCDEF")
            for (name, value) in fields.sorted(by: { $0.key < $1.key }) { try form.appendPart(withForm: value, name: name) }
            try form.appendPart(withFileData: attachment, name: "file", fileName: "report.pdf", mimeType: "application/pdf")
            _ = try drain(form.makeBodyStream())
        }
        let concatenated = try rate(iterations: 5_000) {
            var body = Data()
            for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
                body.append(Data("--Boundary+0123456789ABCDEF\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8))
            }
            body.append(Data("--Boundary+0123456789ABCDEF\r\nContent-Disposition: form-data; name=\"file\"; filename=\"report.pdf\"\r\nContent-Type: application/pdf\r\n\r\n".utf8))
            body.append(attachment)
            body.append(Data("\r\n--Boundary+0123456789ABCDEF--\r\n".utf8))
            _ = body.count
        }
        print("multipart_assembly: \(Int(multipart)) bodies per s (3 fields + 64 KiB file, streamed)")
        print("baseline_in_memory_concatenation: \(Int(concatenated)) bodies per s")
        print(String(format: "multipart_ratio_vs_baseline: %.2f", multipart / concatenated))
        return true
    }

    private static func rate(iterations: Int, _ body: () throws -> Void) throws -> Double {
        for _ in 0..<(iterations / 10) { try body() }
        let start = Date()
        for _ in 0..<iterations { try body() }
        return Double(iterations) / Date().timeIntervalSince(start)
    }

    private static func drain(_ stream: InputStream) throws -> Int {
        var buffer = [UInt8](repeating: 0, count: 65_524)
        var total = 0
        stream.open()
        defer { stream.close() }
        while true {
            let count = buffer.withUnsafeMutableBufferPointer { stream.read($0.baseAddress!, maxLength: $0.count) }
            if count < 0 { throw stream.streamError ?? CocoaError(.fileReadUnknown) }
            if count == 0 { return total }
            total += count
        }
    }
}
