// Prints reachability changes of the default route (or a host) as they happen.
// Usage: swift run reachability-monitor [host] [seconds, default 10]
import AFNetworking

let arguments = CommandLine.arguments.dropFirst()
let host = arguments.first
let seconds = arguments.dropFirst().first.flatMap(Double.init) ?? 10

let reachability = host.map { NetworkReachabilityManager(domain: $0) } ?? NetworkReachabilityManager.shared
reachability.setReachabilityStatusChangeBlock { status in
    let path = reachability.path.map { "\($0.interfaceName), \($0.interfaceKind.rawValue)" } ?? "no route"
    print("\(Date()): \(host ?? "default route") is \(status) (\(path))")
}
reachability.startMonitoring()
print("watching \(host ?? "the default route") for \(Int(seconds)) s; change a link or route to see events")
try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
reachability.stopMonitoring()
