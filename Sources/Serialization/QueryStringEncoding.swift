import Foundation

/// AFNetworking's query-string rules (`AFQueryStringFromParameters`), shared by URI queries,
/// form bodies and multipart field names.
///
/// - Dictionary keys are sorted (literal compare) and nest as `key[sub]`.
/// - Arrays repeat `key[]` in order; sets repeat the plain `key`, members sorted.
/// - `nil`/`NSNull` gives a bare `key` with no `=`.
/// - Booleans are `1`/`0` (AFNetworking's `NSNumber` form); `Data` is percent-encoded byte by byte.
/// - Pairs are joined with `&`; keys and values are escaped by `percentEscaped(_:)`.
public enum QueryStringEncoding {
    /// The query string for `parameters`: a dictionary (`[String: Any]`, `NSDictionary`) or a
    /// keyed `Encodable` value. Throws `RequestSerializationError.invalidQueryParameters` for
    /// anything else. AFNetworking: `AFQueryStringFromParameters`.
    public static func queryString(from parameters: Any) throws -> String {
        try queryString(from: ParameterValue(parameters))
    }

    /// Percent-escapes `string` for a query key or value per RFC 3986 section 3.4: everything
    /// except ASCII letters, digits and `-._~/?` is encoded as UTF-8 bytes, so a space is `%20`,
    /// `%` is `%25` (already-escaped input is escaped again) and no composed character is ever
    /// split. AFNetworking: `AFPercentEscapedStringFromString`.
    public static func percentEscaped(_ string: String) -> String {
        percentEscaped(bytes: string.utf8)
    }

    static func queryString(from value: ParameterValue) throws -> String {
        guard case .dictionary = value else { throw RequestSerializationError.invalidQueryParameters }
        return pairs(from: value).map(\.encoded).joined(separator: "&")
    }

    /// The flattened `(field, value)` pairs, in query order; multipart uses them for its fields.
    static func pairs(from value: ParameterValue) -> [QueryPair] {
        var result: [QueryPair] = []
        appendPairs(key: nil, value: value, to: &result)
        return result
    }

    private static func appendPairs(key: String?, value: ParameterValue, to pairs: inout [QueryPair]) {
        switch value {
        case .dictionary(let entries):
            for entry in entries {
                appendPairs(key: key.map { "\($0)[\(entry.key)]" } ?? entry.key, value: entry.value, to: &pairs)
            }
        case .array(let elements):
            for element in elements { appendPairs(key: "\(key ?? "")[]", value: element, to: &pairs) }
        case .set(let members):
            for member in members { appendPairs(key: key ?? "", value: member, to: &pairs) }
        case .null:
            pairs.append(QueryPair(field: key ?? "", value: .none))
        case .scalar(let text, _):
            pairs.append(QueryPair(field: key ?? "", value: .text(text)))
        case .data(let data):
            pairs.append(QueryPair(field: key ?? "", value: .data(data)))
        }
    }

    private static let unreservedBytes: [Bool] = {
        var table = [Bool](repeating: false, count: 256)
        for byte in UInt8(ascii: "a")...UInt8(ascii: "z") { table[Int(byte)] = true }
        for byte in UInt8(ascii: "A")...UInt8(ascii: "Z") { table[Int(byte)] = true }
        for byte in UInt8(ascii: "0")...UInt8(ascii: "9") { table[Int(byte)] = true }
        for byte in "-._~/?".utf8 { table[Int(byte)] = true }
        return table
    }()

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    static func percentEscaped<Bytes: Sequence<UInt8>>(bytes: Bytes) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.underestimatedCount * 3)
        for byte in bytes {
            if unreservedBytes[Int(byte)] {
                output.append(byte)
            } else {
                output.append(UInt8(ascii: "%"))
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}

/// One flattened parameter: a field such as `user[tags][]` and its leaf value.
struct QueryPair {
    enum Leaf {
        case none
        case text(String)
        case data(Data)
    }

    let field: String
    let value: Leaf

    var encoded: String {
        let escapedField = QueryStringEncoding.percentEscaped(field)
        switch value {
        case .none: return escapedField
        case .text(let text): return escapedField + "=" + QueryStringEncoding.percentEscaped(text)
        case .data(let data): return escapedField + "=" + QueryStringEncoding.percentEscaped(bytes: data)
        }
    }

    /// The value's bytes for a multipart form field: `Data` raw, `nil` empty, others UTF-8 text.
    var formData: Data {
        switch value {
        case .none: return Data()
        case .text(let text): return Data(text.utf8)
        case .data(let data): return data
        }
    }
}
