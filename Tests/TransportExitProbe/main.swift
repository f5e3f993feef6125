import AFNetworking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

#if DEBUG
// `rejected-event`: used by `CurlTransferTests` (RejectedEventProbe.swift).
if CommandLine.arguments.dropFirst() == ["rejected-event"] { probeRejectedEvent() }
#endif

// Otherwise, used by `TransportTeardownConcurrencyTests`: managers that hold idle TLS connections are
// invalidated, and the process exits while their transports are being torn down on dispatch
// workers (curl_multi_cleanup -> SSL_CTX_free), racing OpenSSL's own clean-up at exit.
// Arguments: the TLS server's base URL, the fixture directory, how many managers, and how
// many microseconds to wait between invalidating them and calling exit(0).
// Registered before anything loads OpenSSL, so it runs after every exit handler registered
// later, OpenSSL's own clean-up among them if one was registered: OpenSSL refuses to initialize
// again once cleaned up, and that is reported (the library initializes OpenSSL without one).
atexit {
    guard let crypto = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_NOLOAD), let symbol = dlsym(crypto, "OPENSSL_init_crypto") else { return }
    let initialize = unsafeBitCast(symbol, to: (@convention(c) (UInt64, OpaquePointer?) -> Int32).self)
    // OPENSSL_INIT_BASE_ONLY: after a clean-up, fail without touching the freed error state.
    if initialize(0x0004_0000, nil) != 1 { FileHandle.standardError.write(Data("OpenSSL was cleaned up at exit\n".utf8)) }
}
let arguments = CommandLine.arguments
guard arguments.count == 5, let base = URL(string: arguments[1]), let count = Int(arguments[3]), let delay = UInt32(arguments[4]) else {
    FileHandle.standardError.write(Data("usage: transport-exit-probe BASE_URL FIXTURES MANAGERS DELAY_US\n".utf8))
    exit(64)
}
let fixtures = URL(fileURLWithPath: arguments[2])
let policy = SecurityPolicy(
    pinningMode: .publicKey, pinnedCertificates: try SecurityPolicy.certificates(at: [fixtures.appendingPathComponent("localhost.pem")]),
    anchorCertificates: try SecurityPolicy.certificates(at: [fixtures.appendingPathComponent("root-ca.pem")]))
var managers: [URLSessionManager] = []
let done = DispatchGroup()
for _ in 0..<count {
    let manager = URLSessionManager()
    try manager.setSecurityPolicy(policy)
    done.enter()
    manager.resume(try manager.dataTask(with: URLRequest(url: base.appendingPathComponent("get"))) { response, _, error in
        if let error { FileHandle.standardError.write(Data("request failed: \(error)\n".utf8)) }
        done.leave()
    })
    managers.append(manager)
}
done.wait()
for manager in managers { manager.invalidateSession(cancelingTasks: false) }
managers = []
usleep(delay)
exit(0)
