import AFNetworking

func chooseTheTransport() {
    // snippet: transport-choice
    let api = HTTPSessionManager(baseURL: url)                              // transport: .libcurl
    let plain = HTTPSessionManager(baseURL: url, transport: .urlSession)    // URLSession's own protocol
    // snippet: end
    _ = (api, plain)
}
