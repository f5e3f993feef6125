import Foundation

/// The normalised form of request parameters, built once from whatever the caller passed
/// (`[String: Any]`, Foundation collections, `Encodable` values) so that query strings,
/// form bodies, multipart fields, JSON and property lists all follow the same rules.
///
/// Dictionary keys are sorted here, once, by their Unicode scalars (a literal, case-sensitive
/// compare, as AFNetworking's `compare:` sort of `description`), and set members by their
/// string form.
indirect enum ParameterValue {
    /// `nil`, `Optional.none` or `NSNull`: a bare key in a query, an empty multipart field.
    case null
    /// A string, number or boolean. `text` is the query/multipart form; `object` is kept for
    /// JSON and property lists, which distinguish numbers, booleans and strings.
    case scalar(text: String, object: Any)
    /// Raw bytes: percent-encoded byte by byte in a query, sent as-is in multipart.
    case data(Data)
    case array([ParameterValue])
    /// Members in sorted order; encoded as the plain key repeated (AFNetworking's set rule).
    case set([ParameterValue])
    case dictionary([(key: String, value: ParameterValue)])

    /// Converts any supported parameter value. Throws `RequestSerializationError` for values
    /// that have no parameter form (for example an `Encodable` whose encoding fails).
    init(_ value: Any?) throws {
        guard let value else {
            self = .null
            return
        }
        // `NSNumber` objects (from `JSONSerialization`, say) keep their boolean-ness. Their type
        // is tested before any cast: `as? NSNumber` on another value first bridges it to an
        // object, turning every nested dictionary into an `NSDictionary`.
        if type(of: value) is NSNumber.Type, let number = value as? NSNumber {
            self = .scalar(text: Self.text(for: number), object: number)
            return
        }
        // Then common native types, with exact casts: bridging a Swift number to `NSNumber`,
        // converting a dictionary to `[AnyHashable: Any]` or asking for an existential
        // conformance costs far more than the encoding itself.
        switch value {
        case let string as String:
            self = .scalar(text: string, object: string)
        case let int as Int:
            self = .scalar(text: String(int), object: int)
        case let bool as Bool:
            self = .scalar(text: bool ? "1" : "0", object: bool)
        case let double as Double:
            self = .scalar(text: Self.text(for: NSNumber(value: double)), object: double)
        case let dictionary as [String: Any]:
            self = try .dictionary(Self.sortedPairs(dictionary.map { ($0.key, $0.value) }))
        case let array as [Any]:
            self = try .array(array.map { try ParameterValue($0) })
        case let data as Data:
            self = .data(data)
        case is NSNull:
            self = .null
        case let set as Set<AnyHashable>:
            let members = try set.map { try ParameterValue($0.base) }
            self = .set(members.sorted { Self.precedes($0.sortText, $1.sortText) })
        case let number as NSNumber:
            self = .scalar(text: Self.text(for: number), object: value)
        case let dictionary as [AnyHashable: Any]:
            self = try .dictionary(Self.sortedPairs(dictionary.map { ("\($0.key.base)", $0.value) }))
        case let optional as any OptionalProtocol:
            self = try ParameterValue(optional.wrappedAny)
        case let string as Substring:
            self = .scalar(text: String(string), object: String(string))
        case let encodable as any Encodable:
            self = try ParameterEncoder.encode(encodable)
        default:
            let text = String(describing: value)
            self = .scalar(text: text, object: text)
        }
    }

    /// A number's query form. Integral floating-point values drop the fraction (`42`, not
    /// `42.0`), as `NSNumber` prints them on Apple platforms: a literal such as
    /// `["page": 42, "ratio": 0.5]` is inferred as `[String: Double]`.
    static func text(for number: NSNumber) -> String {
        let type = String(cString: number.objCType)
        guard type == "d" || type == "f" else { return number.description }
        let value = number.doubleValue
        if value.isFinite, value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return type == "f" ? "\(number.floatValue)" : "\(value)"
    }

    static func sortedPairs(_ pairs: [(String, Any)]) throws -> [(key: String, value: ParameterValue)] {
        try pairs
            .sorted { precedes($0.0, $1.0) }
            .map { (key: $0.0, value: try ParameterValue($0.1)) }
    }

    /// Literal order of Unicode scalars, independent of locale and normalisation.
    static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        lhs.unicodeScalars.lexicographicallyPrecedes(rhs.unicodeScalars)
    }

    private var sortText: String {
        switch self {
        case .null: return ""
        case .scalar(let text, _): return text
        case .data(let data): return String(decoding: data, as: UTF8.self)
        case .array, .set, .dictionary: return ""
        }
    }

    /// The value as a Foundation object tree for `JSONSerialization` / `PropertyListSerialization`.
    /// Sets become arrays in sorted order. `Data` stays `Data` (a property list holds it
    /// natively; for JSON, `JSONRequestSerializer` reports it as invalid, as AFNetworking does).
    var foundationObject: Any {
        switch self {
        case .null: return NSNull()
        case .scalar(_, let object): return object
        case .data(let data): return data
        case .array(let values), .set(let values): return values.map(\.foundationObject)
        case .dictionary(let pairs):
            var dictionary: [String: Any] = [:]
            for pair in pairs { dictionary[pair.key] = pair.value.foundationObject }
            return dictionary
        }
    }
}

/// Lets code holding an `Any` see whether it is an `Optional` and what it wraps.
protocol OptionalProtocol {
    var wrappedAny: Any? { get }
}

extension Optional: OptionalProtocol {
    var wrappedAny: Any? { self.map { $0 as Any } }
}
