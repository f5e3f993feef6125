import Foundation

/// An X.509 certificate, parsed in Swift from DER or PEM: the parts certificate pinning and
/// hostname checks need. Parsing is strict and never reads past the data; anything malformed
/// throws `CertificateError`. AFNetworking relies on `SecCertificate` instead.
public struct Certificate: Sendable, Hashable {
    /// A subject alternative name.
    public enum AlternativeName: Sendable, Hashable {
        /// A `dNSName`, as written (possibly a wildcard such as `*.example.com`).
        case dns(String)
        /// An `iPAddress`: 4 bytes for IPv4, 16 for IPv6.
        case ip([UInt8])
    }

    /// The certificate as DER bytes.
    public let derEncoded: Data
    /// The subject's common name, if any.
    public let subjectCommonName: String?
    /// Subject alternative names, in certificate order.
    public let subjectAlternativeNames: [AlternativeName]
    /// Start of validity.
    public let notValidBefore: Date
    /// End of validity.
    public let notValidAfter: Date
    /// The `SubjectPublicKeyInfo` as DER: what public-key pinning compares.
    public let subjectPublicKeyInfo: Data
    /// The subject and issuer names as DER, to tell a self-issued certificate.
    let subject: Data
    let issuer: Data

    /// Parses one DER-encoded certificate.
    public init(derEncoded: Data) throws {
        let bytes = Array(derEncoded)
        var outer = DERReader(bytes[...])
        var certificate = try outer.enter(tag: DERReader.Tag.sequence)
        guard outer.isAtEnd else { throw CertificateError.malformed("data after the certificate") }
        var tbs = try certificate.enter(tag: DERReader.Tag.sequence)
        if tbs.nextTag == 0xA0 { _ = try tbs.read(tag: 0xA0) }
        _ = try tbs.read(tag: DERReader.Tag.integer)
        _ = try tbs.read(tag: DERReader.Tag.sequence)
        let issuer = try tbs.read(tag: DERReader.Tag.sequence)
        var validity = try tbs.enter(tag: DERReader.Tag.sequence)
        let notBefore = try Self.time(try validity.read())
        let notAfter = try Self.time(try validity.read())
        let subject = try tbs.read(tag: DERReader.Tag.sequence)
        let publicKey = try tbs.read(tag: DERReader.Tag.sequence)
        var names: [AlternativeName] = []
        while !tbs.isAtEnd {
            let element = try tbs.read()
            guard element.tag == 0xA3 else { continue }
            var extensionsWrapper = DERReader(element.contents)
            var extensions = try extensionsWrapper.enter(tag: DERReader.Tag.sequence)
            while !extensions.isAtEnd {
                var entry = try extensions.enter(tag: DERReader.Tag.sequence)
                let identifier = try entry.read(tag: DERReader.Tag.objectIdentifier)
                if entry.nextTag == DERReader.Tag.boolean { _ = try entry.read(tag: DERReader.Tag.boolean) }
                let value = try entry.read(tag: DERReader.Tag.octetString)
                if Array(identifier.contents) == Self.subjectAlternativeNameOID {
                    names = try Self.alternativeNames(value.contents)
                }
            }
        }
        self.derEncoded = derEncoded
        subjectCommonName = try Self.commonName(subject.contents)
        subjectAlternativeNames = names
        notValidBefore = notBefore
        notValidAfter = notAfter
        subjectPublicKeyInfo = Data(publicKey.encoded)
        self.subject = Data(subject.encoded)
        self.issuer = Data(issuer.encoded)
    }

    /// Every `CERTIFICATE` block of PEM text, in order (a single certificate or a bundle).
    public static func certificates(fromPEM text: String) throws -> [Certificate] {
        var certificates: [Certificate] = []
        var remaining = text[...]
        while let begin = remaining.range(of: "-----BEGIN CERTIFICATE-----") {
            guard let end = remaining.range(of: "-----END CERTIFICATE-----", range: begin.upperBound..<remaining.endIndex) else {
                throw CertificateError.invalidPEM
            }
            let base64 = remaining[begin.upperBound..<end.lowerBound].filter { !$0.isWhitespace }
            guard let der = Data(base64Encoded: String(base64)) else { throw CertificateError.invalidPEM }
            certificates.append(try Certificate(derEncoded: der))
            remaining = remaining[end.upperBound...]
        }
        if certificates.isEmpty { throw CertificateError.invalidPEM }
        return certificates
    }

    /// The certificates in a file: PEM (one or several) or a single DER certificate.
    public static func certificates(contentsOf url: URL) throws -> [Certificate] {
        guard let data = try? Data(contentsOf: url) else { throw CertificateError.unreadableFile(url.path) }
        if let text = String(data: data, encoding: .utf8), text.contains("-----BEGIN") {
            return try certificates(fromPEM: text)
        }
        return [try Certificate(derEncoded: data)]
    }

    /// The public-key pin: base64 of the SHA-256 of `subjectPublicKeyInfo`, as in HPKP and
    /// `openssl x509 -pubkey | openssl pkey -pubin -outform DER | openssl dgst -sha256 -binary | base64`.
    public var publicKeyPinSHA256: String {
        Data(SHA256.hash(subjectPublicKeyInfo)).base64EncodedString()
    }

    /// Whether `date` (default now) lies within the validity period.
    public func isValid(at date: Date = Date()) -> Bool {
        notValidBefore <= date && date <= notValidAfter
    }

    /// Whether subject and issuer are the same name (a root or a self-signed leaf).
    public var isSelfIssued: Bool { subject == issuer }

    // MARK: Parsing details

    /// 2.5.29.17
    private static let subjectAlternativeNameOID: [UInt8] = [0x55, 0x1D, 0x11]
    /// 2.5.4.3
    private static let commonNameOID: [UInt8] = [0x55, 0x04, 0x03]

    private static func alternativeNames(_ value: ArraySlice<UInt8>) throws -> [AlternativeName] {
        var wrapper = DERReader(value)
        var sequence = try wrapper.enter(tag: DERReader.Tag.sequence)
        var names: [AlternativeName] = []
        while !sequence.isAtEnd {
            let name = try sequence.read()
            switch name.tag {
            case 0x82:
                names.append(.dns(String(decoding: name.contents, as: UTF8.self)))
            case 0x87:
                guard name.contents.count == 4 || name.contents.count == 16 else { throw CertificateError.malformed("IP address of \(name.contents.count) bytes") }
                names.append(.ip(Array(name.contents)))
            default:
                continue
            }
        }
        return names
    }

    private static func commonName(_ name: ArraySlice<UInt8>) throws -> String? {
        var sets = DERReader(name)
        var commonName: String?
        while !sets.isAtEnd {
            var attributes = try sets.enter(tag: DERReader.Tag.set)
            while !attributes.isAtEnd {
                var attribute = try attributes.enter(tag: DERReader.Tag.sequence)
                let type = try attribute.read(tag: DERReader.Tag.objectIdentifier)
                let value = try attribute.read()
                if Array(type.contents) == commonNameOID { commonName = String(decoding: value.contents, as: UTF8.self) }
            }
        }
        return commonName
    }

    /// UTCTime (`YYMMDDHHMMSSZ`, years 1950-2049) or GeneralizedTime (`YYYYMMDDHHMMSSZ`).
    private static func time(_ element: DERReader.Element) throws -> Date {
        let text = String(decoding: element.contents, as: UTF8.self)
        let digits: Substring
        let century: Int?
        switch element.tag {
        case DERReader.Tag.utcTime:
            guard text.count == 13 else { throw CertificateError.malformed("UTCTime \(text)") }
            digits = text.dropLast()
            century = nil
        case DERReader.Tag.generalizedTime:
            guard text.count == 15 else { throw CertificateError.malformed("GeneralizedTime \(text)") }
            digits = text.dropLast()
            century = 0
        default:
            throw CertificateError.malformed("validity is not a time")
        }
        guard text.hasSuffix("Z"), digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) else {
            throw CertificateError.malformed("time \(text)")
        }
        var fields = Array(digits).map { Int(String($0))! }
        var year: Int
        if century == nil {
            year = fields[0] * 10 + fields[1]
            year += year < 50 ? 2000 : 1900
            fields.removeFirst(2)
        } else {
            year = fields[0] * 1000 + fields[1] * 100 + fields[2] * 10 + fields[3]
            fields.removeFirst(4)
        }
        let pairs = stride(from: 0, to: fields.count, by: 2).map { fields[$0] * 10 + fields[$0 + 1] }
        var components = DateComponents()
        components.calendar = Calendar(identifier: .gregorian)
        components.timeZone = TimeZone(identifier: "UTC")
        (components.year, components.month, components.day) = (year, pairs[0], pairs[1])
        (components.hour, components.minute, components.second) = (pairs[2], pairs[3], pairs[4])
        guard components.isValidDate, let date = components.date else { throw CertificateError.malformed("time \(text)") }
        return date
    }
}
