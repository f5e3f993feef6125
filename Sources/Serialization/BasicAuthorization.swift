import Foundation

/// The value of an HTTP Basic `Authorization` header (RFC 7617): `Basic ` and the base64 of
/// `user:password` in UTF-8. The one place it is built, for the request serializer's default
/// header and the libcurl transport's answer to a Basic challenge.
package enum BasicAuthorization {
    package static func headerValue(user: String, password: String) -> String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }
}
