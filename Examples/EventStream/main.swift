// Server-sent events consumed as they arrive, across reconnections: the service ends each
// connection after a few events; the manager's retry policy reconnects, the stream sends
// `Last-Event-ID` and waits the `retry` time the service asked for, and the events come out in
// order, none twice.
// Usage: swift run event-stream <base URL of the project's fault server>
//   (scripts/fault_server.py: /events/<n> sends events 1 to n, 3 a connection)
import AFNetworking

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 1, let base = URL(string: arguments[0]) else {
    print("usage: event-stream <fault server base URL>")
    exit(2)
}

struct Update: Decodable, Sendable {
    let n: Int
}

let manager = URLSessionManager()
// Reconnects after a connection ends; attempts count again from 1 after every event received.
manager.interceptor = RetryPolicy(maximumRetries: 3)
let total = 7
var received: [Int] = []
do {
    for try await event in manager.events(for: URLRequest(url: base.appendingPathComponent("events/\(total)"))) {
        let update = try JSONDecoder().decode(Update.self, from: Data(event.data.utf8))
        print("event \(event.id): n = \(update.n)")
        received.append(update.n)
    }
} catch {
    print("the stream failed: \(error)")
    exit(1)
}
manager.invalidateSession(cancelingTasks: true)
guard received == Array(1...total) else {
    print("expected events 1 to \(total) once each, in order; got \(received)")
    exit(1)
}
print("\(received.count) events over \((total + 2) / 3) connections, in order")
