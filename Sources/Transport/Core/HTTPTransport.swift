/// What carries a manager's HTTP requests. On libcurl and a stub the tasks are the manager's
/// own (`ManagedDataTask`); on URLSession's own protocol URLSession owns them and calls the
/// manager as its delegate. Either way the manager's tasks, serializers, overrides and cache
/// behave the same, within each carrier's documented limits.
public enum HTTPTransport: Sendable, Hashable {
    /// libcurl driven by the manager's own event sources: one multi handle, no thread per
    /// request, reading paused while a consumer falls behind, every HTTPS connection checked
    /// against the manager's `SecurityPolicy` in the handshake. Default. Falls back to
    /// `urlSession` for the default policy when libcurl or OpenSSL cannot be loaded.
    case libcurl
    /// URLSession's own HTTP protocol, with its Linux limits (no trust hook, no back-pressure,
    /// more work per request). A policy that needs enforcement still uses libcurl.
    case urlSession
    /// Requests answered in the process by `stub` (the `AFNetworkingTesting` product's
    /// `StubTransport.transport`), through the libcurl transport's rules with no socket: for
    /// tests of code that uses a manager.
    case stubbed(TransportStub)
}
