/// Guards against header injection: a header name must be an RFC 9110 token, and no header
/// value, multipart field name, filename or MIME type may hold CR, LF or NUL. Foundation's
/// `URLRequest` on Linux silently drops a header whose value has CR/LF, so checking has to
/// happen before a value reaches it.
package enum HTTPHeaderValidation {
    static func validate(name: String, value: String) throws {
        guard isToken(name), !containsLineBreakOrNUL(value) else {
            throw RequestSerializationError.invalidHeader(name: name, value: value)
        }
    }

    package static func validate(headers: [String: String]) throws {
        for (name, value) in headers { try validate(name: name, value: value) }
    }

    /// For strings placed inside a header (multipart names, filenames, MIME types).
    static func validate(field: String) throws {
        if containsLineBreakOrNUL(field) { throw RequestSerializationError.invalidMultipartField(field) }
    }

    static func containsLineBreakOrNUL(_ string: String) -> Bool {
        string.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }
    }

    private static func isToken(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default:
                return "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }
}
