import AFNetworking
import Foundation

/// Runs one invocation and returns the exit code.
struct Client {
    let invocation: Invocation
    let manager: HTTPSessionManager
    /// `--verbose`'s event monitor.
    let verboseLog: VerboseLog?

    init(_ invocation: Invocation) {
        self.invocation = invocation
        // The URL is absolute; as the base URL it lets a pinning policy see https.
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = nil
        if let seconds = invocation.maximumTime { configuration.timeoutIntervalForResource = seconds }
        manager = HTTPSessionManager(baseURL: invocation.url.flatMap(URL.init(string:)), configuration: configuration)
        manager.connectTimeout = invocation.connectTimeout
        let serializer = HTTPRequestSerializer()
        if let timeout = invocation.timeout { serializer.timeoutInterval = timeout }
        if let user = invocation.user { serializer.setAuthorizationHeaderField(username: user.name, password: user.password) }
        manager.requestSerializer = serializer
        manager.unixSocketPath = invocation.unixSocket
        manager.httpVersion = invocation.httpVersion
        if invocation.proxy == nil, let hosts = invocation.noProxy {
            // Over the environment's proxies, as curl's --noproxy overrides NO_PROXY.
            setenv("no_proxy", hosts, 1)
        }
        manager.interceptor = invocation.retryPolicy
        verboseLog = invocation.verbose ? VerboseLog() : nil
        manager.eventMonitors = verboseLog.map { [$0] } ?? []
        if let bytes = invocation.maximumFileSize {
            var limits = manager.responseLimits
            limits.maximumBodySize = bytes
            limits.maximumDownloadSize = bytes
            manager.responseLimits = limits
        }
    }

    /// The HTTP response an error of the manager carries, if any.
    static func response(of error: any Error) -> HTTPURLResponse? {
        switch error as? SessionError {
        case .authenticationRequired(let response)?: return response
        case .redirectWouldDropBody(let response)?: return response
        case .responseLimitExceeded(_, _, let response)?: return response
        default: return nil
        }
    }

    private var headers: [String: String] {
        Dictionary(invocation.headers, uniquingKeysWith: { _, last in last })
    }

    func run() async throws -> Int32 {
        defer {
            // What this run stored is on disk before the process ends.
            manager.responseCache?.waitForDiskWrites()
            manager.invalidateSession(cancelingTasks: true)
        }
        if let directory = invocation.cacheDirectory {
            // One user's tool: the cache is private, as a browser's is (RFC 9111's private cache).
            do {
                manager.responseCache = try ResponseCache(diskCapacity: 100 << 20, directory: URL(fileURLWithPath: directory), isShared: false)
            } catch SessionError.cacheDirectoryInUse(let path) {
                // A cache only saves requests: this one is sent uncached rather than refused.
                FileHandle.standardError.write(Data("afn: the cache \(path) is used by another run; this request goes uncached\n".utf8))
            }
        }
        try manager.setSecurityPolicy(try invocation.securityPolicy())
        manager.clientIdentity = try invocation.clientIdentity()
        if let proxy = try invocation.proxySetting() { manager.proxy = proxy }
        manager.sendsCredentialsAcrossOrigins = invocation.locationTrusted
        switch invocation.command {
        case .get, .head, .delete:
            let parameters = Dictionary(invocation.query, uniquingKeysWith: { _, last in last })
            let request = try manager.request(method: invocation.command.rawValue.uppercased(), urlString: invocation.url!,
                                              parameters: parameters, headers: headers)
            return try await perform(request)
        case .post, .put, .patch:
            return try await perform(try request(method: invocation.command.rawValue.uppercased()))
        case .upload:
            return try await upload()
        case .download:
            return try await download()
        case .sse:
            let request = try manager.request(method: "GET", urlString: invocation.url!, parameters: nil, headers: headers)
            return try await printEvents(of: request)
        case .reachability:
            return await Reachability(host: invocation.host, watch: invocation.watch).run()
        }
    }

    /// A POST, PUT or PATCH with `--json` sent as is, or `--form` fields as a form body.
    private func request(method: String) throws -> URLRequest {
        guard let json = invocation.json else {
            let parameters = Dictionary(invocation.form, uniquingKeysWith: { _, last in last })
            return try manager.request(method: method, urlString: invocation.url!, parameters: parameters, headers: headers)
        }
        guard (try? JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed)) != nil else {
            throw Invocation.UsageError(description: "--json is not valid JSON")
        }
        var request = try manager.request(method: method, urlString: invocation.url!, parameters: nil, headers: headers)
        request.httpBody = Data(json.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        return request
    }

    private func perform(_ request: URLRequest) async throws -> Int32 {
        if invocation.noBuffer { return try await printStreamed(request) }
        return try report(await manager.response(for: request, serializer: HTTPResponseSerializer(acceptableStatusCodes: nil)))
    }

    private func upload() async throws -> Int32 {
        let file = URL(fileURLWithPath: invocation.file!)
        var request = try manager.requestSerializer.multipartFormRequest(
            method: "POST", urlString: try manager.resolve(invocation.url!),
            parameters: Dictionary(invocation.form, uniquingKeysWith: { _, last in last })
        ) { form in
            try form.appendPart(withFileURL: file, name: invocation.fieldName)
        }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let transfer = manager.startUpload(for: request, serializer: HTTPResponseSerializer(acceptableStatusCodes: nil))
        let display = ProgressDisplay(verb: "uploaded")
        for await progress in transfer.progress { display.update(progress) }
        let response = try await transfer.response
        display.finish()
        return try report(response)
    }

    /// Downloads to `--output`; `-` is standard output, as with curl: the body goes to a private
    /// scratch directory first (memory stays flat) and is copied out when it is complete.
    private func download() async throws -> Int32 {
        let toStandardOutput = invocation.output == "-"
        let scratch = toStandardOutput ? try Self.privateScratchDirectory() : nil
        defer { if let scratch { try? FileManager.default.removeItem(at: scratch) } }
        let output = scratch?.appendingPathComponent("body") ?? URL(fileURLWithPath: invocation.output!)
        let download = Download(manager: manager, output: output, resume: invocation.resume, verboseLog: verboseLog)
        let request = try manager.request(method: "GET", urlString: invocation.url!, parameters: nil, headers: headers)
        let response = try await download.run(request)
        let status = response.statusCode
        if toStandardOutput, let body = FileHandle(forReadingAtPath: output.path) {
            while let chunk = try body.read(upToCount: 1 << 20), !chunk.isEmpty { FileHandle.standardOutput.write(chunk) }
        }
        let target = toStandardOutput ? "standard output" : output.path
        FileHandle.standardError.write(Data("HTTP \(status) \(HTTPURLResponse.localizedString(forStatusCode: status)) -> \(target)\n".utf8))
        return (200..<300).contains(status) ? 0 : 1
    }

    /// A new directory only this user can enter (`mkdtemp`, 0700).
    private static func privateScratchDirectory() throws -> URL {
        var template = Array((FileManager.default.temporaryDirectory.path + "/afn-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        return URL(fileURLWithPath: String(cString: made), isDirectory: true)
    }

    /// Writes the body to stdout (JSON pretty-printed) and the status to stderr. A body typed as
    /// JSON that does not parse is written as it came, and the parse error makes the exit code 2.
    private func report(_ response: HTTPResponse<Data?>) throws -> Int32 {
        verboseLog?.flush()
        let body = response.value ?? Data()
        let isJSON = response.response.mimeType.map { $0 == "application/json" || $0.hasSuffix("+json") } ?? false
        var parseError: (any Error)?
        if isJSON, !body.isEmpty {
            do {
                let object = try JSONSerialization.jsonObject(with: body, options: .fragmentsAllowed)
                let pretty = try JSONSerialization.data(
                    withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes])
                FileHandle.standardOutput.write(pretty + Data("\n".utf8))
            } catch {
                parseError = error
                FileHandle.standardOutput.write(body)
            }
        } else {
            FileHandle.standardOutput.write(body)
        }
        let status = response.statusCode
        FileHandle.standardError.write(Data("HTTP \(status) \(HTTPURLResponse.localizedString(forStatusCode: status)) (\(body.count) bytes)\n".utf8))
        if let parseError {
            FileHandle.standardError.write(Data("afn: the body is not valid JSON: \((parseError as NSError).localizedDescription)\n".utf8))
            return 2
        }
        return (200..<300).contains(status) ? 0 : 1
    }
}
