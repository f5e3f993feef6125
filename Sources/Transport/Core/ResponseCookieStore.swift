import Foundation

/// Where the transport puts the cookies of every response it reads, redirects included (the
/// manager's `CookieJar`): one `Set-Cookie` value at a time, since joined, the commas of their
/// dates would split them wrongly.
package protocol ResponseCookieStore: AnyObject, Sendable {
    /// Stores the cookies of a response from `url`.
    func store(setCookies values: [String], from url: URL)
}
