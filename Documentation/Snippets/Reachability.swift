import AFNetworking

func reachability() async {
    // snippet: reachability
    let reachability = NetworkReachabilityManager.shared          // the default route
    reachability.setReachabilityStatusChangeBlock { status in print(status) }   // "Reachable via WiFi"
    reachability.startMonitoring()

    let database = NetworkReachabilityManager(domain: "db.internal")           // or (address: "10.0.0.5")
    database.startMonitoring()
    for await status in database.statusUpdates { print(status, database.path?.interfaceName ?? "-") }
    // snippet: end
}
