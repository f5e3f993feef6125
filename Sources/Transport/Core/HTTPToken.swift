/// RFC 9110's token (5.6.2): the bytes a header field's name, a directive's name and an
/// unquoted argument are made of, and how names are compared (ASCII letters in any case,
/// nothing else folded: `HTTPURLResponse` folds by Unicode case, so `Set-Coo\u{212A}ie`, a
/// Kelvin sign, would be `Set-Cookie` there).
package enum HTTPToken {
    /// Whether `byte` may stand in a token: a letter, a digit or ``!#$%&'*+-.^_`|~``.
    package static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
             UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    /// Whether `name` is `other` in any ASCII case.
    package static func equalIgnoringASCIICase<A: Collection<UInt8>, B: Collection<UInt8>>(_ name: A, _ other: B) -> Bool {
        guard name.count == other.count else { return false }
        return zip(name, other).allSatisfy { a, b in a == b || (a | 0x20 == b | 0x20 && (0x61...0x7A).contains(a | 0x20)) }
    }

    /// `text` with its ASCII capitals lower-cased and nothing else changed (a name's canonical
    /// form: `String.lowercased()` folds other scripts into ASCII too).
    package static func asciiLowercased(_ text: String) -> String {
        String(decoding: text.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}
