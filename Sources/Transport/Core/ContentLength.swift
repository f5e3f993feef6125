/// The one rule by which the transport reads a response's `Content-Length` for framing (RFC 9110
/// section 8.6, RFC 9112 section 6.3): a list of identical values, as a field sent twice is
/// joined (`5, 5`), declares that value, as libcurl frames it; values that differ, or one that
/// is not a decimal number within 64 bits, make the length unknowable, which is an error, never
/// a guess. `ResponseFraming` refuses a head by it and `ResponseEnd` follows a body by it, so
/// that the two never disagree on where a body ends: a length the head check accepts and the
/// body's follower does not take leaves an early response on a kept-open connection waiting
/// for the idle timeout. A request body stream's declared length is read by it too. Pure:
/// tested as a table.
package enum ContentLength {
    /// The length field value `value` declares, when earlier `Content-Length` lines of the same
    /// head declared `earlier` (`nil`: there were none): each comma-separated element, its
    /// spaces and tabs trimmed, must be decimal digits within `Int64` and equal to every other
    /// and to `earlier`.
    static func length(of value: UnsafeBufferPointer<UInt8>, after earlier: Int64? = nil) -> Result<Int64, ResponseFramingError> {
        var length = earlier
        var start = 0
        for end in value.indices where value[end] == UInt8(ascii: ",") {
            if case .failure(let fault) = read(value, start..<end, into: &length) { return .failure(fault) }
            start = end + 1
        }
        if case .failure(let fault) = read(value, start..<value.count, into: &length) { return .failure(fault) }
        // `read` set `length` from the last element at least.
        return .success(length ?? 0)
    }

    /// The length field value `value` (the values of every `Content-Length` line, joined with
    /// ", " as `ResponseHead` joins a repeated field) declares.
    package static func length(of value: String) -> Result<Int64, ResponseFramingError> {
        var value = value
        return value.withUTF8 { length(of: $0) }
    }

    /// Reads the element `range` of `value` against `length`, the value of the elements before.
    private static func read(_ value: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, into length: inout Int64?) -> Result<Void, ResponseFramingError> {
        let element = trimmed(value, range)
        guard let parsed = decimal(value, element) else {
            return .failure(.invalidContentLength(String(decoding: UnsafeBufferPointer(rebasing: value[element]), as: UTF8.self)))
        }
        if let length, length != parsed { return .failure(.conflictingContentLengths("\(length), \(parsed)")) }
        length = parsed
        return .success(())
    }

    /// `range` of `bytes` without the spaces and tabs around it.
    private static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Range<Int> {
        var lower = range.lowerBound
        var upper = range.upperBound
        while lower < upper, bytes[lower] == 0x20 || bytes[lower] == 0x09 { lower += 1 }
        while upper > lower, bytes[upper - 1] == 0x20 || bytes[upper - 1] == 0x09 { upper -= 1 }
        return lower..<upper
    }

    /// The decimal number in `range`: digits only, within `Int64`; `nil` otherwise.
    private static func decimal(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int64? {
        guard !range.isEmpty else { return nil }
        var value: Int64 = 0
        for index in range {
            let digit = bytes[index]
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times.addingReportingOverflow(Int64(digit - UInt8(ascii: "0")))
            guard !overflow, !carry else { return nil }
            value = sum
        }
        return value
    }
}
