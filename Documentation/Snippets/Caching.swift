import AFNetworking

func caching() throws {
    // snippet: caching
    let manager = HTTPSessionManager(baseURL: URL(string: "https://api.example.com")!)
    // In memory only:
    manager.responseCache = ResponseCache(memoryCapacity: 10 << 20)
    // Or in memory and in a private directory too, kept between runs:
    manager.responseCache = try ResponseCache(diskCapacity: 100 << 20, directory: cacheDirectory)
    // snippet: end
}
