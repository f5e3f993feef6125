import AFSecurity
import Foundation

/// libFuzzer target: any bytes as a DER certificate, as PEM text, and as a client identity
/// (PEM and PKCS#12, through the OpenSSL bridge); each certificate that parses is asked for its
/// names, dates, pin and hostname match.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCertificate(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    var certificates = (try? Certificate(derEncoded: data)).map { [$0] } ?? []
    certificates += (try? Certificate.certificates(fromPEM: String(decoding: data, as: UTF8.self))) ?? []
    for certificate in certificates {
        _ = certificate.subjectCommonName
        _ = certificate.subjectAlternativeNames
        _ = certificate.isValid()
        _ = certificate.publicKeyPinSHA256
        _ = certificate.matches(hostname: "fuzz.example.com")
    }
    _ = try? ClientIdentity(pemCertificates: data)
    _ = try? ClientIdentity(pkcs12Data: data, passphrase: "fuzz")
    return 0
}
