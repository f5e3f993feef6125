import AFNetworking
import Foundation

/// `afn reachability [--host H] [--watch]`: prints the status (and the interface carrying the
/// route); exits 0 when reachable, 1 when not, or keeps printing changes with `--watch`.
struct Reachability {
    let host: String?
    let watch: Bool

    func run() async -> Int32 {
        let manager = host.map { NetworkReachabilityManager(domain: $0) } ?? .shared
        let updates = manager.statusUpdates
        manager.startMonitoring()
        defer { manager.stopMonitoring() }
        for await status in updates {
            let path = manager.path.map { " via \($0.interfaceName) (\($0.interfaceKind.rawValue))" } ?? ""
            print("\(host ?? "default route"): \(status)\(path)")
            if !watch { return status.isReachable ? 0 : 1 }
        }
        return 2
    }
}
