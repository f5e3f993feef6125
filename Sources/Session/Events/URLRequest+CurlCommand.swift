import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLRequest {
    /// The request as a `curl` command line, for debugging: method, URL, headers and a body
    /// (shown when it is UTF-8 text of at most 4 KiB, else named by its length), each quoted
    /// for a POSIX shell. Credentials are hidden by `redaction` (default: `Redaction()`); pass
    /// `nil` to show them. Beyond AFNetworking (Alamofire's `cURLDescription`).
    public func curlCommand(redaction: Redaction? = Redaction()) -> String {
        var parts = ["curl"]
        let method = httpMethod?.uppercased() ?? "GET"
        if method == "HEAD" { parts.append("--head") } else if method != "GET" { parts += ["-X", Self.shellQuoted(method)] }
        let shownURL = url.map { redaction?.url($0) ?? $0.absoluteString } ?? ""
        parts.append(Self.shellQuoted(shownURL))
        let fields = redaction?.headerFields(of: self)
            ?? (allHTTPHeaderFields ?? [:]).sorted { $0.key.lowercased() < $1.key.lowercased() }.map { (name: $0.key, value: $0.value) }
        for field in fields { parts += ["-H", Self.shellQuoted("\(field.name): \(field.value)")] }
        if let body = httpBody {
            if body.count <= 4096, let text = String(data: body, encoding: .utf8) {
                parts += ["--data-binary", Self.shellQuoted(text)]
            } else {
                parts += ["--data-binary", Self.shellQuoted("<\(body.count) bytes>")]
            }
        } else if httpBodyStream != nil {
            parts += ["--data-binary", Self.shellQuoted("<stream>")]
        }
        return parts.joined(separator: " ")
    }

    /// `text` in single quotes, each single quote inside closed, escaped and reopened. Read
    /// scalar by scalar: a `'` followed by a combining mark is one `Character`, which a search
    /// for `"'"` passes over, and the shell would then end the quoting there.
    static func shellQuoted(_ text: String) -> String {
        var quoted = String.UnicodeScalarView()
        quoted.append("'")
        for scalar in text.unicodeScalars {
            if scalar == "'" { quoted.append(contentsOf: #"'\''"#.unicodeScalars) } else { quoted.append(scalar) }
        }
        quoted.append("'")
        return String(quoted)
    }
}
