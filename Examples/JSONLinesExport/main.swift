// A JSON Lines (NDJSON) export consumed as it arrives: each record decoded into a `Decodable`
// value while the body streams (the transport reads no further ahead than its 1 MiB window),
// the records of interest written to a CSV file of our own (0600, created exclusively), and
// memory flat whatever the export's size.
// Usage: swift run jsonlines-export <base URL of the project's fault server> [records]
//   (scripts/fault_server.py: /jsonl/<n> sends n records)
import AFNetworking
#if canImport(Glibc)
import Glibc
#endif

let arguments = Array(CommandLine.arguments.dropFirst())
guard (1...2).contains(arguments.count), let base = URL(string: arguments[0]) else {
    print("usage: jsonlines-export <fault server base URL> [records]")
    exit(2)
}
let count = arguments.count == 2 ? Int(arguments[1]) ?? 100_000 : 100_000

struct Record: Decodable, Sendable {
    let id: Int
    let name: String
    let score: Int
}

let output = FileManager.default.temporaryDirectory.appendingPathComponent("top-scores-\(getpid()).csv")
let descriptor = open(output.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
guard descriptor >= 0 else {
    print("cannot create \(output.path)")
    exit(1)
}
let file = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
defer { try? FileManager.default.removeItem(at: output) }
file.write(Data("id,name,score\n".utf8))

let manager = URLSessionManager()
var records = 0
var written = 0
do {
    let export = try await manager.stream(
        for: URLRequest(url: base.appendingPathComponent("jsonl/\(count)")),
        validation: HTTPResponseSerializer(acceptableContentTypes: ["application/x-ndjson"]))
    for try await record in export.body.jsonLines(of: Record.self, maximumLineLength: 64 * 1024) {
        records += 1
        guard record.score >= 90 else { continue }
        file.write(Data("\(record.id),\(record.name),\(record.score)\n".utf8))
        written += 1
    }
} catch {
    print("the export failed: \(error)")
    exit(1)
}
manager.invalidateSession(cancelingTasks: true)
let expected = (1...count).filter { $0 % 100 >= 90 }.count
print("\(records) records streamed, \(written) with a score of 90 or more written to a private CSV file")
guard records == count, written == expected else {
    print("expected \(count) records and \(expected) written")
    exit(1)
}
