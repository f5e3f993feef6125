@testable import AFTransport
import Foundation

/// libFuzzer target: any bytes as a response head, split into lines as libcurl hands them over,
/// checked for framing faults, parsed and turned into a response; libcurl's error messages read
/// for a TLS alert.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzResponseHead(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .newlines) }
    _ = ResponseFraming.fault(in: lines)
    if let head = ResponseHead.parse(lines) {
        _ = head.response(for: URL(string: "http://fuzz.example/")!)
    }
    _ = CurlError(code: 56, message: text).receivedTLSAlert
    return 0
}
