import AFTransport
import Foundation

/// The bytes of one file of a cache directory (`CacheDirectory`): every response stored under
/// one target (`CacheKey.target`), one per socket, client certificate and set of varying
/// values. Pure.
///
/// Layout, integers big-endian, a string as its UTF-8 length (u32) and bytes:
/// `"AFNC"`, version (u8, 2), flags (u8: 1 = written by a shared cache), the target, the number
/// of responses (u32), each response (its URL, status (u16), HTTP version, request and response
/// times (the bits of a `Double`, u64 each), flags (u8: 1 = stored with credentials), its own
/// `Host` field, socket, certificate and route (each u8 0 for none, or u8 1 and the text), its
/// fields (u32 count, then name and value), its varying values (u32 count, then name, u8 1
/// and the value, or u8 0 for a field the request did not have), its body (u64 length and
/// bytes)), then FNV-1a 64 of everything before it (u64).
///
/// The reader trusts nothing in a file: any length past the end, a count the bytes cannot
/// hold, text that is not UTF-8, a field that is not a token with a value free of CR, LF and
/// NUL, a name twice, a `Content-Length` other than the body's, another target's URL, a `Host`
/// that is not an authority, a socket path that is empty or holds NUL, a certificate or route
/// that is not base64, a status
/// outside 200-599, a version that is not `HTTP/` and a token, a time that is not finite, a
/// byte left over, or a wrong checksum makes the whole file unreadable (`nil`), which the cache
/// takes as a miss.
enum CacheFile {
    static let magic: [UInt8] = Array("AFNC".utf8)
    static let version: UInt8 = 2

    /// What a file holds.
    struct Contents: Equatable {
        var key: String
        /// Whether a shared cache wrote it: a shared cache reads only those, since another
        /// cache may have stored one user's responses.
        var writtenShared: Bool
        var responses: [CachedResponse]
    }

    /// The file name for `key`: its FNV-1a 64 in hexadecimal, and `.response`. Two keys may
    /// share a name; the file holds its key, and a file of another key is a miss.
    static func name(for key: String) -> String {
        let hash = fnv1a(key.utf8)
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.utf8.count) + hex + ".response"
    }

    /// Whether `name` is a name `name(for:)` makes (the only files a cache directory reads or
    /// removes).
    static func isResponseFileName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard bytes.count == 25, name.hasSuffix(".response") else { return false }
        return bytes.prefix(16).allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
    }

    /// The bytes of a file holding `contents`.
    static func encode(_ contents: Contents) -> [UInt8] {
        var bytes = magic
        bytes.append(version)
        bytes.append(contents.writtenShared ? 1 : 0)
        append(contents.key, to: &bytes)
        append(UInt32(contents.responses.count), to: &bytes)
        for response in contents.responses {
            append(response.url.absoluteString, to: &bytes)
            append(UInt16(clamping: response.statusCode), to: &bytes)
            append(response.httpVersion, to: &bytes)
            append(response.requestTime.timeIntervalSinceReferenceDate.bitPattern, to: &bytes)
            append(response.responseTime.timeIntervalSinceReferenceDate.bitPattern, to: &bytes)
            bytes.append(response.storedWithCredentials ? 1 : 0)
            for text in [response.host, response.socketPath, response.identity, response.route] { append(optional: text, to: &bytes) }
            append(UInt32(response.fields.count), to: &bytes)
            for (name, value) in response.fields.sorted(by: { $0.key < $1.key }) {
                append(name, to: &bytes)
                append(value, to: &bytes)
            }
            append(UInt32(response.varying.count), to: &bytes)
            for (name, value) in response.varying.sorted(by: { $0.key < $1.key }) {
                append(name, to: &bytes)
                if let value {
                    bytes.append(1)
                    append(value, to: &bytes)
                } else {
                    bytes.append(0)
                }
            }
            append(UInt64(response.body.count), to: &bytes)
            bytes.append(contentsOf: response.body)
        }
        append(checksum(bytes), to: &bytes)
        return bytes
    }

    /// What `bytes` hold, or `nil` for a file that is not one this version writes, damaged,
    /// or made to mislead (see the type's rules).
    static func decode(_ bytes: [UInt8]) -> Contents? {
        guard bytes.count >= 8 else { return nil }
        let checked = bytes.count - 8
        var tail = Reader(bytes[checked...])
        guard tail.u64() == checksum(bytes[..<checked]) else { return nil }
        var reader = Reader(bytes[..<checked])
        guard reader.bytes(magic.count).map(Array.init) == magic, reader.u8() == version,
              let flags = reader.u8(), flags <= 1,
              let key = reader.string(), let count = reader.u32() else { return nil }
        var responses: [CachedResponse] = []
        for _ in 0..<count {
            guard let response = readResponse(&reader, key: key) else { return nil }
            responses.append(response)
        }
        guard reader.isAtEnd else { return nil }
        return Contents(key: key, writtenShared: flags == 1, responses: responses)
    }

    private static func readResponse(_ reader: inout Reader, key: String) -> CachedResponse? {
        guard let urlText = reader.string(), let url = URL(string: urlText),
              let status = reader.u16(), (200...599).contains(status),
              let httpVersion = reader.string(), isHTTPVersion(httpVersion),
              let requestTime = reader.time(), let responseTime = reader.time(),
              let flags = reader.u8(), flags <= 1,
              let host = reader.optionalString(), host.map(CacheKey.isAuthority) ?? true,
              let socketPath = reader.optionalString(), socketPath.map({ !$0.isEmpty && !$0.utf8.contains(0) }) ?? true,
              let identity = reader.optionalString(), identity.map(isBase64) ?? true,
              let route = reader.optionalString(), route.map(isBase64) ?? true,
              CacheKey(url: url, host: host, socketPath: socketPath, identity: identity, route: route).target == key,
              let fieldCount = reader.u32() else { return nil }
        var fields: [String: String] = [:]
        var lowercasedNames: Set<String> = []
        for _ in 0..<fieldCount {
            guard let name = reader.string(), let value = reader.string(),
                  !name.isEmpty, name.utf8.allSatisfy(HTTPToken.isTokenByte),
                  !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }),
                  lowercasedNames.insert(HTTPToken.asciiLowercased(name)).inserted else { return nil }
            fields[name] = value
        }
        guard let varyingCount = reader.u32() else { return nil }
        var varying: [String: String?] = [:]
        for _ in 0..<varyingCount {
            guard let name = reader.string(), !name.isEmpty, name.utf8.allSatisfy(HTTPToken.isTokenByte),
                  HTTPToken.asciiLowercased(name) == name, varying[name] == nil, let present = reader.u8() else { return nil }
            switch present {
            case 0: varying[name] = .some(nil)
            case 1:
                guard let value = reader.string() else { return nil }
                varying[name] = value
            default: return nil
            }
        }
        guard let length = reader.u64(), length <= UInt64(reader.remaining), let body = reader.bytes(Int(length)) else { return nil }
        let response = CachedResponse(
            url: url, statusCode: Int(status), httpVersion: httpVersion, fields: fields, body: Data(body),
            requestTime: requestTime, responseTime: responseTime, varying: varying, storedWithCredentials: flags == 1,
            host: host, socketPath: socketPath, identity: identity, route: route)
        // The body is framed by its own length: a declared length that disagrees misleads.
        if let declared = response.value("Content-Length"), declared != String(body.count) { return nil }
        return response
    }

    /// Whether `text` is base64 (a digest's): letters, digits, `+`, `/` and `=`.
    private static func isBase64(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0 | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
            || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "=") }
    }

    /// Whether `text` is `HTTP/` and a version made of token bytes (`HTTP/1.1`, `HTTP/2`).
    private static func isHTTPVersion(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.count > 5 && bytes.count <= 16 && bytes.starts(with: "HTTP/".utf8) && bytes.dropFirst(5).allSatisfy(HTTPToken.isTokenByte)
    }

    // MARK: Bytes

    private static func append(_ text: String, to bytes: inout [UInt8]) {
        append(UInt32(text.utf8.count), to: &bytes)
        bytes.append(contentsOf: text.utf8)
    }

    /// `text` as u8 0 when absent, else u8 1 and the string.
    private static func append(optional text: String?, to bytes: inout [UInt8]) {
        guard let text else { return bytes.append(0) }
        bytes.append(1)
        append(text, to: &bytes)
    }

    private static func append<Integer: FixedWidthInteger>(_ value: Integer, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    /// The checksum a file ends with: FNV-1a 64 of the bytes before it (damage, not forgery:
    /// the directory is private).
    static func checksum<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt64 {
        fnv1a(bytes)
    }

    private static func fnv1a<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt64 {
        bytes.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01b3 }
    }

    /// Reads a file's bytes in order, every read checked against what is left.
    private struct Reader {
        private var rest: ArraySlice<UInt8>

        init(_ bytes: ArraySlice<UInt8>) {
            rest = bytes
        }

        var remaining: Int { rest.count }
        var isAtEnd: Bool { rest.isEmpty }

        mutating func bytes(_ count: Int) -> ArraySlice<UInt8>? {
            guard count >= 0, count <= rest.count else { return nil }
            defer { rest = rest.dropFirst(count) }
            return rest.prefix(count)
        }

        mutating func u8() -> UInt8? { integer() }
        mutating func u16() -> UInt16? { integer() }
        mutating func u32() -> UInt32? { integer() }
        mutating func u64() -> UInt64? { integer() }

        private mutating func integer<Integer: FixedWidthInteger>() -> Integer? {
            guard let bytes = bytes(MemoryLayout<Integer>.size) else { return nil }
            return bytes.reduce(0) { $0 << 8 | Integer($1) }
        }

        mutating func string() -> String? {
            guard let length = u32(), let bytes = bytes(Int(length)) else { return nil }
            return String(validating: bytes, as: UTF8.self)
        }

        /// A text written by `append(optional:to:)`: `.some(nil)` when absent, `nil` when the
        /// bytes are not one.
        mutating func optionalString() -> String?? {
            switch u8() {
            case 0: .some(nil)
            case 1: string().map { .some($0) }
            default: nil
            }
        }

        mutating func time() -> Date? {
            guard let bits = u64() else { return nil }
            let seconds = Double(bitPattern: bits)
            return seconds.isFinite ? Date(timeIntervalSinceReferenceDate: seconds) : nil
        }
    }
}
