// afn: a small HTTP client built only on the public API of AFNetworking.
// `afn get https://httpbin.org/get --query q=1` prints the body on stdout (JSON pretty-printed)
// and the status on stderr; the exit code is 0 for 2xx, 1 for an HTTP error status, 2 otherwise.
import AFNetworking
import Foundation

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("afn: \(message)\n".utf8))
    exit(2)
}

let invocation: Invocation
do {
    invocation = try Invocation(arguments: Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("afn: \(error)\n\(Invocation.usage)\n".utf8))
    exit(2)
}

let client = Client(invocation)
do {
    exit(try await client.run())
} catch {
    fail((error as NSError).localizedDescription)
}
