/// A strict reader of ASN.1 DER: definite lengths only, never reading past its bytes.
struct DERReader {
    struct Element {
        let tag: UInt8
        /// The contents octets.
        let contents: ArraySlice<UInt8>
        /// Tag, length and contents: the element as encoded.
        let encoded: ArraySlice<UInt8>
    }

    private var remaining: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) { remaining = bytes }

    var isAtEnd: Bool { remaining.isEmpty }

    /// The next element's tag, without consuming it.
    var nextTag: UInt8? { remaining.first }

    /// Reads the next element, which must have `tag` when one is given.
    mutating func read(tag expected: UInt8? = nil) throws -> Element {
        guard let tag = remaining.first else { throw CertificateError.malformed("unexpected end of data") }
        if let expected, tag != expected {
            throw CertificateError.malformed("expected tag 0x\(String(expected, radix: 16)), found 0x\(String(tag, radix: 16))")
        }
        var index = remaining.index(after: remaining.startIndex)
        guard index < remaining.endIndex else { throw CertificateError.malformed("missing length") }
        let first = remaining[index]
        index = remaining.index(after: index)
        var length = 0
        if first < 0x80 {
            length = Int(first)
        } else {
            let count = Int(first & 0x7F)
            guard count >= 1, count <= 4, remaining.distance(from: index, to: remaining.endIndex) >= count else {
                throw CertificateError.malformed("unsupported length encoding")
            }
            for _ in 0..<count {
                length = length << 8 | Int(remaining[index])
                index = remaining.index(after: index)
            }
        }
        guard remaining.distance(from: index, to: remaining.endIndex) >= length else {
            throw CertificateError.malformed("element longer than its data")
        }
        let end = remaining.index(index, offsetBy: length)
        let element = Element(tag: tag, contents: remaining[index..<end], encoded: remaining[remaining.startIndex..<end])
        remaining = remaining[end...]
        return element
    }

    /// Reads a constructed element with `tag` and returns a reader over its contents.
    mutating func enter(tag: UInt8) throws -> DERReader {
        DERReader(try read(tag: tag).contents)
    }

    enum Tag {
        static let boolean: UInt8 = 0x01
        static let integer: UInt8 = 0x02
        static let octetString: UInt8 = 0x04
        static let objectIdentifier: UInt8 = 0x06
        static let utcTime: UInt8 = 0x17
        static let generalizedTime: UInt8 = 0x18
        static let sequence: UInt8 = 0x30
        static let set: UInt8 = 0x31
    }
}
