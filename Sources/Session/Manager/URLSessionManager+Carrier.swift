import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where the carrier of the manager's tasks is chosen, the one place that names a driver: the
/// libcurl transport (answering from a stub when the manager was made with `.stubbed`), or
/// URLSession's own protocol. Everything else reaches the carrier through `TransferCarrier`.
extension URLSessionManager {
    /// The stub answering every request, when the manager was made with `.stubbed`.
    private var stub: TransportStub? {
        if case .stubbed(let stub) = transport { return stub }
        return nil
    }

    /// Whether tasks go through libcurl under `state`: on the libcurl transport when it can be
    /// loaded (otherwise URLSession's own protocol carries them), and always for a policy that
    /// needs enforcement, a Unix domain socket, a client identity or an interceptor.
    func carriesLibcurl(_ state: Creation) -> Bool {
        // The common case first: the policy comparison costs thousands of instructions a task.
        (transport == .libcurl && CurlTransport.unavailable == nil) || stub != nil
            || state.securityPolicy.needsEnforcement || state.connection.needsLibcurl || state.interceptor != nil
    }

    /// A new session, which carries the tasks of URLSession's own protocol; the manager's own
    /// tasks (`ManagedDataTask`) are counted as its tasks for its invalidation.
    func makeSession(_ state: inout Creation) -> URLSession {
        // The bridge loads OpenSSL before URLSession initializes libcurl, so that OpenSSL is
        // initialized without its clean-up at exit (`afn_openssl_load`).
        if transport != .urlSession { _ = CurlTransport.unavailable }
        let session = URLSession(configuration: carriedConfiguration, delegate: SessionDelegate(manager: self), delegateQueue: operationQueue)
        state.session = session
        state.managedTasks = DispatchGroup()
        state.carrier = nil
        return session
    }

    /// The session for the next task and, when libcurl carries it, the transport for the
    /// policy. Throws when the policy needs libcurl and it cannot be had. The first time the
    /// default libcurl transport falls back for want of libcurl, `monitors` are told why.
    func currentCarrier(_ state: inout Creation, monitors: [any EventMonitor]) throws -> (session: URLSession, carrier: (any TransferCarrier)?) {
        let session = state.session ?? makeSession(&state)
        guard carriesLibcurl(state) else {
            if transport == .libcurl, !state.toldLibcurlUnavailable, !monitors.isEmpty, let unavailable = CurlTransport.unavailable {
                state.toldLibcurlUnavailable = true
                monitors.notify { $0.libcurlTransportUnavailable(unavailable) }
            }
            return (session, nil)
        }
        if let carrier = state.carrier { return (session, carrier) }
        do {
            let carrier = try CurlTransport(
                policy: state.securityPolicy, configuration: carriedConfiguration,
                receiveWindowLimit: state.receiveWindowLimit, connection: state.connection, cookieJar: cookieJar, stub: stub)
            state.carrier = carrier
            return (session, carrier)
        } catch {
            throw SessionError.securityPolicyUnavailable(reason: "\(error)")
        }
    }
}
