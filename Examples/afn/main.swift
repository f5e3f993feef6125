// afn: a small HTTP client built only on the public API of AFNetworking.
// `afn get https://httpbin.org/get --query q=1` prints the body on stdout (JSON pretty-printed)
// and the status on stderr; the exit code is 0 for 2xx, 1 for an HTTP error status (also when
// the manager reports it as an error, such as a 401 without credentials), 2 otherwise.
import AFNetworking
import Foundation

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("afn: \(message)\n".utf8))
    exit(2)
}

if CommandLine.arguments.dropFirst().first == "--help" {
    print(Invocation.usage)
    exit(0)
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
    client.verboseLog?.flush()
    // An HTTP error status the manager reports as an error is still an HTTP error status.
    if let response = Client.response(of: error), response.statusCode >= 400 {
        let status = response.statusCode
        FileHandle.standardError.write(Data("HTTP \(status) \(HTTPURLResponse.localizedString(forStatusCode: status)): \((error as NSError).localizedDescription)\n".utf8))
        exit(1)
    }
    fail((error as NSError).localizedDescription)
}
