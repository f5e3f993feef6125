import AFNetworking

func mutualTLS() async throws {
    // snippet: mutual-tls
    let api = HTTPSessionManager(baseURL: URL(string: "https://orders.internal/")!)
    api.clientIdentity = try ClientIdentity(certificateFile: URL(fileURLWithPath: "client.pem"),
                                            keyFile: URL(fileURLWithPath: "client.key"))  // passphrase: for an encrypted key
    // or: try ClientIdentity(pkcs12File: URL(fileURLWithPath: "client.p12"), passphrase: "...")
    try api.setSecurityPolicy(SecurityPolicy(pinningMode: .none, anchorCertificates: [internalRoot]))
    let order = try await api.get("orders/42", as: Order.self)
    // snippet: end
    _ = order
}

func pkcs12Identity() throws -> ClientIdentity {
    // The alternative the mutual TLS listing names in a comment.
    try ClientIdentity(pkcs12File: URL(fileURLWithPath: "client.p12"), passphrase: "...")
}

func proxies(_ manager: URLSessionManager) {
    // snippet: proxies
    manager.proxy = .proxy(Proxy(.http, host: "proxy.corp", port: 3128, username: "svc", password: secret),
                           bypass: ["localhost", ".internal", "10.0.0.0/8"])
    manager.proxy = .proxy(Proxy(.socks5, host: "127.0.0.1", port: 1080))   // host names resolved by the proxy
    manager.proxy = .proxy(Proxy(.https, host: "proxy.corp", port: 443, anchorCertificates: [corpRoot]))
    manager.proxy = .proxies(http: plainProxy, https: nil, bypass: [])     // per scheme
    manager.proxy = .none                                                  // direct, whatever the environment says
    // snippet: end
}

func httpVersions(_ manager: URLSessionManager) {
    // snippet: http-version
    manager.httpVersion = .http1_1              // never HTTP/2
    manager.httpVersion = .http2PriorKnowledge  // HTTP/2 over cleartext too, for servers known to speak it
    // snippet: end
}

func retriesAndLogging() async throws {
    // snippet: retries
    let api = HTTPSessionManager(baseURL: URL(string: "https://orders.internal/")!)
    let auth = Authenticator<String>(credential: storedToken, apply: { token, request in
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
    }, refresh: { stale in try await tokenService.newToken(replacing: stale) })
    api.interceptor = InterceptorChain([auth, RetryPolicy()])   // a task may add its own: setInterceptor(_:for:)
    api.eventMonitors = [RequestLogger()]                        // one line per request, on stderr
    let order: Order = try await api.get("orders/42")
    // snippet: end
    _ = order
}

func unixSockets() async throws {
    // snippet: unix-sockets
    // One request: the host is the percent-encoded socket path.
    let info = URL(string: "http+unix://%2Fvar%2Frun%2Fdocker.sock/v1.43/info")!
    let response = try await URLSessionManager().data(for: URLRequest(url: info))

    // Every request of a manager.
    let docker = HTTPSessionManager(baseURL: URL(string: "http://localhost/v1.43/")!)
    docker.unixSocketPath = "/var/run/docker.sock"
    let containers = try await docker.get("containers/json", as: [Container].self)
    // snippet: end
    _ = (response, containers)
}
