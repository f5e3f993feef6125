import AFSecurity
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension TrustFailure {
    /// The code a task rejected for this failure fails with, as URLSession names them: a
    /// certificate's dates `serverCertificateHasBadDate` (-1201), a chain to no known root
    /// `serverCertificateHasUnknownRoot` (-1203), anything else
    /// `serverCertificateUntrusted` (-1202). Under a pinning policy (`pinning`) every failure
    /// is -1202: the pins are the anchors, so a chain that leads to none of them missed the pin.
    func urlErrorCode(pinning: Bool) -> URLError.Code {
        switch self {
        case .certificateDateInvalid where !pinning: return .serverCertificateHasBadDate
        case .unknownRoot where !pinning: return .serverCertificateHasUnknownRoot
        default: return .serverCertificateUntrusted
        }
    }
}
