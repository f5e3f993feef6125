@testable import AFTransport
import Foundation

/// libFuzzer target: any bytes as a response head, split into lines as libcurl hands them over,
/// checked for framing faults, parsed and turned into a response; libcurl's error messages read
/// for a TLS alert; and the same bytes as a response body followed by `ResponseEnd` under each
/// framing, whole and in pieces cut where the first byte says, which must agree.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzResponseHead(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .newlines) }
    _ = ResponseFraming.fault(in: lines)
    if let head = ResponseHead.parse(lines) {
        _ = head.response(for: URL(string: "http://fuzz.example/")!)
    }
    _ = CurlError(code: 56, message: text).receivedTLSAlert
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    let cut = max(1, Int(bytes.first ?? 1) % 17)
    for framing in [ResponseEnd.Framing.chunked, .length(Int64(count / 2)), .untilClose, .empty] {
        var whole = ResponseEnd(framing: framing)
        whole.consume(bytes)
        var pieces = ResponseEnd(framing: framing)
        var offset = 0
        while offset < count {
            pieces.consume(UnsafeRawBufferPointer(rebasing: bytes[offset..<min(count, offset + cut)]))
            offset += cut
        }
        if whole.isComplete != pieces.isComplete { fatalError("ResponseEnd depends on how the body is cut: \(framing)") }
    }
    return 0
}
