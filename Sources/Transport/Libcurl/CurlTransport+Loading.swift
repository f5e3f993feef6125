import LibcurlBridge

/// Loading libcurl and the OpenSSL it uses, once for the process, and deciding whether the
/// transport can run on them (`LibcurlCompatibility`).
extension CurlTransport {
    /// What the bridges found when they loaded libcurl and the OpenSSL it uses (once), or why
    /// libcurl could not be loaded.
    static let loaded: Result<LibcurlCompatibility.Facts, TransportError> = {
        var buffer = [CChar](repeating: 0, count: 256)
        guard afn_curl_load(&buffer, buffer.count) == 1, let facts = afn_curl_loaded_facts()?.pointee else {
            return .failure(.libcurlUnavailable(reason: text(buffer)))
        }
        let string = { (pointer: UnsafePointer<CChar>?) in pointer.map { String(cString: $0) } }
        return .success(LibcurlCompatibility.Facts(
            version: string(facts.version) ?? "", versionNumber: facts.version_number, tlsBackend: string(facts.tls_backend),
            openSSLError: facts.openssl_loaded == 1 ? nil : withUnsafeBytes(of: facts.openssl_error) { text(Array($0.bindMemory(to: CChar.self))) },
            openSSLVersion: string(facts.openssl_version), openSSLIsLibcurls: facts.openssl_is_libcurls == 1))
    }()

    /// Why the transport cannot be used here, decided once (`LibcurlCompatibility`), or `nil`.
    static let unavailableError: TransportError? = {
        switch loaded {
        case .failure(let error): return error
        case .success(let facts): return LibcurlCompatibility.problem(with: facts)
        }
    }()

    /// The libcurl version the transport runs on ("7.88.1"), for the errors of refused options.
    static let libcurlVersion = (try? loaded.get())?.version ?? ""

    /// Whether libcurl takes the protocols by name (`CURLOPT_PROTOCOLS_STR`, 7.85.0).
    static let takesProtocolNames = ((try? loaded.get())?.versionNumber ?? 0) >= 0x07_55_00

    /// A NUL-terminated C string in `buffer`, as text (bytes, not characters).
    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Why libcurl cannot be used, or `nil` when it can.
    package static var unavailable: TransportError? { unavailableError }
}
