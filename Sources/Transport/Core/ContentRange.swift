import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a response says about continuing a body by range (RFC 9110, 14): where a 206's
/// `Content-Range` starts, and the validator a range request may name. Pure.
package enum ContentRange {
    /// The first byte of a `Content-Range: bytes FIRST-LAST/LENGTH`; `nil` when the header is
    /// absent or its first position is not digits (a sign, a space, a hexadecimal number).
    package static func start(of response: HTTPURLResponse) -> Int64? {
        guard let range = response.value(forHTTPHeaderField: "Content-Range"),
              range.lowercased().hasPrefix("bytes "),
              let dash = range.firstIndex(of: "-") else { return nil }
        let first = range[range.index(range.startIndex, offsetBy: 6)..<dash].trimmingCharacters(in: .whitespaces)
        guard !first.isEmpty, first.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int64(first)
    }

    /// The `ETag` of `response` when it can validate a range: a weak one cannot (RFC 9110,
    /// 13.1.5). Its `W/` is compared as bytes: followed by a combining mark, the `/` is one
    /// `Character` with it and a text prefix would not match.
    package static func strongEntityTag(of response: HTTPURLResponse) -> String? {
        response.value(forHTTPHeaderField: "ETag").flatMap { $0.utf8.starts(with: "W/".utf8) ? nil : $0 }
    }
}
