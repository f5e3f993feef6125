import AFNetworking

// Uses the core and the hook it offers without any integration.
let manager = HTTPSessionManager(baseURL: URL(string: "https://example.com"))
manager.instrumentation = InstrumentationList([])
print(manager.instrumentation == nil ? "no instrumentation" : "instrumented")
