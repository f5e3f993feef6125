import AFNetworking
import Foundation

/// What the user asked for, parsed from the command line.
struct Invocation {
    enum Command: String, CaseIterable {
        case get, head, delete, post, put, patch, upload, download, sse, reachability
    }

    var command: Command
    var url: String?
    var query: [(String, String)] = []
    var form: [(String, String)] = []
    var json: String?
    var file: String?
    var fieldName = "file"
    var output: String?
    var resume = false
    var host: String?
    var watch = false
    var headers: [(String, String)] = []
    var timeout: TimeInterval?
    var user: (name: String, password: String)?
    var verbose = false
    var pinMode: SSLPinningMode?
    var pins: [String] = []
    var anchors: [String] = []
    var allowInvalidCertificates = false
    var validatesDomainName = true
    var maximumFileSize: Int64?
    var unixSocket: String?
    var connectTimeout: TimeInterval?
    var maximumTime: TimeInterval?
    var certificate: String?
    var key: String?
    var certificateType = "pem"
    var passphrase: String?
    var proxy: String?
    /// Credentials and secret headers go along redirects to other origins too (curl's option).
    var locationTrusted = false
    var noProxy: String?
    var proxyAnchors: [String] = []
    var httpVersion = HTTPVersion.automatic
    var retries: Int?
    var retryMaximumTime: TimeInterval?
    /// `-N`: the body goes to standard output as it arrives, as curl's --no-buffer.
    var noBuffer = false
    /// `--cache`: the directory of an HTTP cache kept between runs.
    var cacheDirectory: String?

    static let usage = """
        usage: afn get|head|delete URL [--query k=v]...
               afn post|put|patch URL [--json JSON | --form k=v...]
               afn upload URL --file PATH [--name FIELD] [--field k=v]...
               afn download URL --output PATH [--resume] (with resume data from an interruption or a failure,
                   else from the size of a partial file at PATH, as curl -C - does; PATH - is standard
                   output; a device or FIFO at PATH is written into, a symbolic link refused)
               afn sse URL (server-sent events printed as they arrive; with --retry N, reconnects with
                   Last-Event-ID after the server's retry time)
               afn reachability [--host H] [--watch]
        options: --header 'K: V' (repeatable)  --timeout S  --user U:P  --max-filesize BYTES
                 --location-trusted (credentials and secret headers follow redirects to other origins)
                 --verbose (each attempt's request, each retry, the timing of each phase)
                 -N, --no-buffer (the body to standard output as it arrives, not when it is complete)
                 --cache DIR (an HTTP cache kept between runs in DIR, made private (0700) when missing: a fresh
                 response answers without the network, a stale one is validated; up to 100 MiB, this user's;
                 while another run uses DIR, the request goes uncached)
                 --retry N (retry transient failures: cannot connect, timeouts, 408, 429, 500, 502, 503, 504;
                 idempotent methods; Retry-After honoured)  --retry-max-time S (no retry after S seconds)
                 --unix-socket PATH (connect to a Unix domain socket; or an http+unix:// URL)
                 --connect-timeout S  --max-time S (total, redirects included; S may be fractional)
                 --cert FILE [--key FILE] [--cert-type pem|p12] [--pass P] (client certificate, mutual TLS)
                 --proxy [http://|https://|socks5h://][USER:PASS@]HOST[:PORT] ("" for none; default: the
                 http_proxy, https_proxy, all_proxy environment)  --noproxy HOST,... ('*' for all)
                 --proxy-cacert FILE (trust anchors for an https:// proxy instead of the system's)
                 --http1.1  --http2-prior-knowledge (HTTP/2 over cleartext; by default HTTPS negotiates h2)
                 --pin-mode none|public-key|certificate  --pin FILE (repeatable, DER or PEM)
                 --ca FILE (trust anchors instead of the system's)  --allow-invalid-certificates
                 --no-domain-validation
               afn --help
        exit codes: 0 for 2xx, 1 for an HTTP error status, 2 for any other failure (a body over
                    --max-filesize, a JSON body that does not parse, a transport error)
        """

    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    init(arguments: [String]) throws {
        var remaining = arguments[...]
        guard let name = remaining.popFirst(), let command = Command(rawValue: name) else {
            throw UsageError(description: "expected a command: \(Command.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self.command = command
        func value(for option: String) throws -> String {
            guard let value = remaining.popFirst() else { throw UsageError(description: "\(option) needs a value") }
            return value
        }
        // Split at the first separator scalar, as curl splits its arguments: followed by a
        // combining mark, the separator is one `Character` with it, which a search would pass over.
        func pair(_ text: String, separator: Unicode.Scalar, option: String) throws -> (String, String) {
            let scalars = text.unicodeScalars
            guard let index = scalars.firstIndex(of: separator) else { throw UsageError(description: "\(option) expects k\(separator)v, got \(text)") }
            return (String(scalars[..<index]), String(scalars[scalars.index(after: index)...]).trimmingCharacters(in: .whitespaces))
        }
        func seconds(for option: String) throws -> TimeInterval {
            guard let seconds = TimeInterval(try value(for: option)), seconds > 0 else { throw UsageError(description: "\(option) expects seconds") }
            return seconds
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "--query": query.append(try pair(try value(for: argument), separator: "=", option: argument))
            case "--form", "--field": form.append(try pair(try value(for: argument), separator: "=", option: argument))
            case "--json": json = try value(for: argument)
            case "--file": file = try value(for: argument)
            case "--name": fieldName = try value(for: argument)
            case "--output": output = try value(for: argument)
            case "--resume": resume = true
            case "--host": host = try value(for: argument)
            case "--watch": watch = true
            case "--header": headers.append(try pair(try value(for: argument), separator: ":", option: argument))
            case "--timeout": timeout = try seconds(for: argument)
            case "--user":
                let (name, password) = try pair(try value(for: argument), separator: ":", option: argument)
                user = (name, password)
            case "--verbose": verbose = true
            case "-N", "--no-buffer": noBuffer = true
            case "--cache": cacheDirectory = try value(for: argument)
            case "--unix-socket": unixSocket = try value(for: argument)
            case "--connect-timeout": connectTimeout = try seconds(for: argument)
            case "--max-time": maximumTime = try seconds(for: argument)
            case "--max-filesize":
                guard let bytes = Int64(try value(for: argument)), bytes >= 0 else { throw UsageError(description: "--max-filesize expects bytes") }
                maximumFileSize = bytes
            case "--cert": certificate = try value(for: argument)
            case "--key": key = try value(for: argument)
            case "--cert-type":
                certificateType = try value(for: argument).lowercased()
                guard ["pem", "p12"].contains(certificateType) else { throw UsageError(description: "--cert-type expects pem or p12") }
            case "--pass": passphrase = try value(for: argument)
            case "--proxy": proxy = try value(for: argument)
            case "--location-trusted": locationTrusted = true
            case "--noproxy": noProxy = try value(for: argument)
            case "--proxy-cacert": proxyAnchors.append(try value(for: argument))
            case "--retry":
                guard let count = Int(try value(for: argument)), count >= 0 else { throw UsageError(description: "--retry expects a count") }
                retries = count
            case "--retry-max-time": retryMaximumTime = try seconds(for: argument)
            case "--http1.1": httpVersion = .http1_1
            case "--http2-prior-knowledge": httpVersion = .http2PriorKnowledge
            case "--pin-mode":
                let modes: [String: SSLPinningMode] = ["none": .none, "public-key": .publicKey, "certificate": .certificate]
                let name = try value(for: argument)
                guard let mode = modes[name] else { throw UsageError(description: "--pin-mode expects none, public-key or certificate, got \(name)") }
                pinMode = mode
            case "--pin": pins.append(try value(for: argument))
            case "--ca": anchors.append(try value(for: argument))
            case "--allow-invalid-certificates": allowInvalidCertificates = true
            case "--no-domain-validation": validatesDomainName = false
            case let option where option.hasPrefix("--"):
                throw UsageError(description: "unknown option \(option)")
            default:
                guard url == nil else { throw UsageError(description: "unexpected argument \(argument)") }
                url = argument
            }
        }
        try validate()
    }

    private func validate() throws {
        if command != .reachability && url == nil { throw UsageError(description: "\(command.rawValue) needs a URL") }
        if json != nil && !form.isEmpty { throw UsageError(description: "--json and --form exclude each other") }
        if command == .upload && file == nil { throw UsageError(description: "upload needs --file") }
        if command == .download && output == nil { throw UsageError(description: "download needs --output") }
        if command == .download && output == "-" && resume { throw UsageError(description: "--resume needs a file as --output, not -") }
        if let pinMode, pinMode != .none, pins.isEmpty { throw UsageError(description: "--pin-mode \(pinMode) needs --pin FILE") }
        if certificate == nil, key != nil || passphrase != nil { throw UsageError(description: "--key and --pass need --cert FILE") }
        if certificateType == "p12", key != nil { throw UsageError(description: "--key does not go with --cert-type p12 (the file holds the key)") }
        if retryMaximumTime != nil, retries == nil { throw UsageError(description: "--retry-max-time needs --retry N") }
        if let proxy, !proxy.isEmpty, Proxy(url: proxy) == nil {
            // Never the proxy's password, which may stand before the host.
            let shown = proxy.lastIndex(of: "@").map { "<redacted>" + proxy[$0...] } ?? proxy
            throw UsageError(description: "--proxy expects http://, https:// or socks5h:// and a host, got \(shown)")
        }
    }

    /// The retry policy `--retry` and `--retry-max-time` describe, if any.
    var retryPolicy: RetryPolicy? {
        retries.map { RetryPolicy(maximumRetries: $0, maximumElapsedTime: retryMaximumTime) }
    }

    /// The client identity `--cert` names, if any; throws `ClientIdentityError`.
    func clientIdentity() throws -> ClientIdentity? {
        guard let certificate else { return nil }
        let file = URL(fileURLWithPath: certificate)
        if certificateType == "p12" { return try ClientIdentity(pkcs12File: file, passphrase: passphrase ?? "") }
        return try ClientIdentity(certificateFile: file, keyFile: key.map(URL.init(fileURLWithPath:)), passphrase: passphrase)
    }

    /// The proxy setting `--proxy`, `--noproxy` and `--proxy-cacert` describe; `nil` leaves the
    /// environment's. Throws `CertificateError` for an anchor file that holds no certificate.
    func proxySetting() throws -> ProxySetting? {
        let bypass = (noProxy ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard let proxy else { return nil }
        guard var named = Proxy(url: proxy) else { return ProxySetting.none }
        named.anchorCertificates = try SecurityPolicy.certificates(at: proxyAnchors.map(URL.init(fileURLWithPath:)))
        return .proxy(named, bypass: bypass)
    }

    /// The security policy the options describe (`--pin` alone pins certificates); throws
    /// `CertificateError` for a file that holds no certificate.
    func securityPolicy() throws -> SecurityPolicy {
        let pinned = try SecurityPolicy.certificates(at: pins.map(URL.init(fileURLWithPath:)))
        return SecurityPolicy(
            pinningMode: pinMode ?? (pins.isEmpty ? .none : .certificate), pinnedCertificates: pinned,
            anchorCertificates: try SecurityPolicy.certificates(at: anchors.map(URL.init(fileURLWithPath:))),
            allowInvalidCertificates: allowInvalidCertificates, validatesDomainName: validatesDomainName)
    }
}
