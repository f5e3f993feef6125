import AFSecurity
import Foundation

/// How the libcurl transport connects, as the manager's settings say: fixed for one
/// transport (a change makes the manager's next task use a new one, with new connections).
package struct ConnectionSettings: Sendable, Equatable {
    /// The Unix domain socket every request connects to instead of its host, if any.
    package var unixSocketPath: String?
    /// How long a connection may take to establish; `nil` for the request's idle timeout.
    package var connectTimeout: TimeInterval?
    /// The identity presented to servers that ask for a client certificate, unless a task has
    /// its own.
    package var clientIdentity: ClientIdentity?
    /// Which proxies requests go through.
    package var proxy = ProxySetting.automatic
    /// Which HTTP version requests use.
    package var httpVersion = HTTPVersion.automatic

    package init() {}

    /// Whether only libcurl can carry requests under these settings.
    package var needsLibcurl: Bool { unixSocketPath != nil || clientIdentity != nil || proxy != .automatic || httpVersion != .automatic }
}
