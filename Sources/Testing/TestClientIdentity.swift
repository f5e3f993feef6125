import AFNetworking
import Foundation

/// A client certificate and key made for a test: a fresh P-256 key and a self-signed
/// certificate for client authentication (CN "AFNetworkingTesting client", valid from an hour
/// ago). The manager under test presents `identity` (`URLSessionManager.clientIdentity`); a
/// `TestServer` requiring client certificates trusts `certificate`
/// (`TestServerTLS.requiringClientCertificates(issuedBy:)`).
public struct TestClientIdentity: Sendable {
    /// The identity for the manager under test.
    public let identity: ClientIdentity
    /// Its certificate.
    public let certificate: Certificate

    /// A fresh identity, valid for `days` days (default 1).
    public init(validForDays days: Int = 1) throws {
        let made = try TestServerTLS.generate(validForDays: days, forClient: true)
        identity = try ClientIdentity(pemCertificates: made.certificate, pemKey: made.key)
        guard let certificate = try Certificate.certificates(fromPEM: String(decoding: made.certificate, as: UTF8.self)).first else {
            throw TestServerError.tls("the generated client certificate is not PEM")
        }
        self.certificate = certificate
    }
}
