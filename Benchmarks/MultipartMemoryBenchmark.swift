import AFNetworking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Builds a multipart request around a 1 GiB file and reads its whole body stream the way
/// URLSession does (65,524-byte reads), checking the byte count against `contentLength` and
/// the peak resident memory against 64 MiB. Baseline: the same file read with `read(2)`.
enum MultipartMemoryBenchmark {
    static let fileSize: UInt64 = 1 << 30
    static let readSize = 65_524
    static let limit: UInt64 = 64 << 20

    static func run() throws -> Bool {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("afn-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("one-gib.bin")
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: fileSize)
        try handle.close()

        // The first read of a sparse file fills the page cache; warm it so both timings compare alike.
        _ = try readDirectly(file)
        let baselineStart = Date()
        let baselineBytes = try readDirectly(file)
        let baselineSeconds = Date().timeIntervalSince(baselineStart)
        let residentBefore = ResourceUsage.residentBytes

        let serializer = HTTPRequestSerializer()
        let request = try serializer.multipartFormRequest(
            method: "POST", urlString: "http://127.0.0.1/upload", parameters: ["note": "one gibibyte"]
        ) { form in
            try form.appendPart(withFileURL: file, name: "file")
        }
        guard let stream = request.httpBodyStream, let expected = request.multipartContentLength else {
            print("multipart-memory: the request has no multipart body stream")
            return false
        }
        let start = Date()
        let bodyBytes = try drain(stream)
        let seconds = Date().timeIntervalSince(start)
        let peak = ResourceUsage.peakResidentBytes

        print("multipart_file_size: \(fileSize) bytes")
        print("multipart_body_content_length: \(expected) bytes")
        print("multipart_body_bytes_read: \(bodyBytes) bytes")
        print("multipart_resident_before_body: \(mebibytes(residentBefore)) MiB")
        print("multipart_peak_resident: \(mebibytes(peak)) MiB (limit \(mebibytes(limit)) MiB)")
        print("multipart_read_throughput: \(Int(Double(bodyBytes) / 1_048_576 / seconds)) MiB/s")
        print("baseline_file_read_throughput: \(Int(Double(baselineBytes) / 1_048_576 / baselineSeconds)) MiB/s")
        print(String(format: "multipart_throughput_ratio_vs_baseline: %.2f", baselineSeconds / seconds))

        let ok = bodyBytes == expected && baselineBytes == fileSize && peak < limit
        print("multipart-memory: \(ok ? "PASS" : "FAIL")")
        return ok
    }

    /// The baseline: the file read with `read(2)` in the same chunk size.
    private static func readDirectly(_ file: URL) throws -> UInt64 {
        let descriptor = open(file.path, O_RDONLY)
        guard descriptor >= 0 else { throw CocoaError(.fileReadNoSuchFile) }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: readSize)
        var total: UInt64 = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, readSize) }
            if count < 0 { throw CocoaError(.fileReadUnknown) }
            if count == 0 { return total }
            total += UInt64(count)
        }
    }

    /// Reads `stream` to its end; throws its error if it fails.
    private static func drain(_ stream: InputStream) throws -> UInt64 {
        var buffer = [UInt8](repeating: 0, count: readSize)
        var total: UInt64 = 0
        stream.open()
        defer { stream.close() }
        while true {
            let count = buffer.withUnsafeMutableBufferPointer { stream.read($0.baseAddress!, maxLength: readSize) }
            if count < 0 { throw stream.streamError ?? CocoaError(.fileReadUnknown) }
            if count == 0 { return total }
            total += UInt64(count)
        }
    }
}
