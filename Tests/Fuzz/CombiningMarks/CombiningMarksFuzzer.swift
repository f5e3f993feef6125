@testable import AFNetworkingTesting
@testable import AFSerialization
@testable import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The delimiters of wire and shell text that a combining mark can hide from a search of
/// `Character`s: after each, the fuzzer inserts a mark.
private let delimiters: Set<Unicode.Scalar> = ["\"", "'", ":", ";", ",", "=", "\u{0}", "\r", "\n", " "]
/// Combining acute, combining diaeresis, combining enclosing circle, zero-width joiner.
private let marks: [Unicode.Scalar] = ["\u{301}", "\u{308}", "\u{20DD}", "\u{200D}"]

/// `bytes` as UTF-8 text with a mark after every delimiter: the first byte picks the first
/// mark, each later delimiter takes the next.
private func markedText(_ bytes: ArraySlice<UInt8>, firstMark: Int) -> String {
    var text = String.UnicodeScalarView()
    var next = firstMark
    for scalar in String(decoding: bytes, as: UTF8.self).unicodeScalars {
        text.append(scalar)
        if delimiters.contains(scalar) {
            text.append(marks[next % marks.count])
            next += 1
        }
    }
    return String(text)
}

/// The words of a command line as a POSIX shell reads them, for the subset `curlCommand`
/// writes: bare words of letters and `-`, single-quoted text, `\'` between quoted parts,
/// words separated by one space. `nil` when anything else stands outside the quotes (the
/// shell would read it as syntax).
private func shellWords(_ command: String) -> [[UInt8]]? {
    let bytes = Array(command.utf8)
    var words: [[UInt8]] = []
    var word: [UInt8] = []
    var index = 0
    while index < bytes.count {
        let byte = bytes[index]
        switch byte {
        case UInt8(ascii: "'"):
            guard let end = bytes[(index + 1)...].firstIndex(of: UInt8(ascii: "'")) else { return nil }
            word += bytes[(index + 1)..<end]
            index = end + 1
        case UInt8(ascii: "\\"):
            guard index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "'") else { return nil }
            word.append(UInt8(ascii: "'"))
            index += 2
        case UInt8(ascii: " "):
            words.append(word)
            word = []
            index += 1
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "-"):
            word.append(byte)
            index += 1
        default:
            return nil
        }
    }
    words.append(word)
    return words
}

private func hasLineBreakOrNUL(_ text: String) -> Bool {
    text.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 }
}

/// curlCommand: the shell reads back exactly the header value and body that went in.
private func checkCurlCommand(_ text: String) {
    precondition(shellWords(URLRequest.shellQuoted(text)) == [Array(text.utf8)], "shellQuoted is not one word holding the text")
    var request = URLRequest(url: URL(string: "http://fuzz.example/p")!)
    request.httpMethod = "POST"
    request.setValue(text, forHTTPHeaderField: "X-Fuzz")
    request.httpBody = Data(text.utf8)
    guard let words = shellWords(request.curlCommand(redaction: nil)) else { preconditionFailure("curlCommand wrote shell syntax outside quotes") }
    if let value = request.value(forHTTPHeaderField: "X-Fuzz") {
        precondition(words.contains(Array("X-Fuzz: \(value)".utf8)), "the header did not arrive whole")
    }
    if request.httpBody != nil, text.utf8.count <= 4096 { precondition(words.last == Array(text.utf8), "the body did not arrive whole") }
}

/// Multipart: a name and a filename stay inside their quotes (no raw `"` in them), or the
/// part is refused for a CR, LF or NUL.
private func checkMultipart(name: String, fileName: String) {
    let form = StreamingMultipartFormData(boundary: "B")
    do {
        try form.appendPart(withFileData: Data(), name: name, fileName: fileName, mimeType: "a/b")
    } catch {
        precondition(hasLineBreakOrNUL(name) || hasLineBreakOrNUL(fileName), "a part without CR, LF or NUL was refused")
        return
    }
    precondition(!hasLineBreakOrNUL(name) && !hasLineBreakOrNUL(fileName), "a part with CR, LF or NUL was accepted")
    let stream = form.makeBodyStream()
    stream.open()
    var body: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while case let count = stream.read(&buffer, maxLength: buffer.count), count > 0 { body += buffer[0..<count] }
    stream.close()
    let escaped = { (text: String) in text.utf8.flatMap { $0 == 0x22 ? Array("%22".utf8) : [$0] } }
    let line = Array("--B\r\nContent-Disposition: form-data; name=\"".utf8) + escaped(name) + Array("\"; filename=\"".utf8)
        + escaped(fileName) + Array("\"\r\nContent-Type: a/b\r\n\r\n\r\n--B--\r\n".utf8)
    precondition(body == line, "the Content-Disposition line is not the escaped name and filename")
}

/// Header validation: refused exactly when the name is not a token or the value holds CR,
/// LF or NUL, wherever they stand.
private func checkHeaderValidation(name: String, value: String) {
    let refused = (try? HTTPHeaderValidation.validate(headers: [name: value])) == nil
    precondition(refused == (!RequestValidation.isToken(name) || hasLineBreakOrNUL(value)), "header validation misjudged a field")
    if hasLineBreakOrNUL(value) { precondition(refused, "a value with CR, LF or NUL passed") }
}

/// Redaction: a name whose bytes spell a secret word is secret.
private func checkRedaction(_ name: String) {
    let lowercased = Array(name.lowercased().utf8)
    let spellsToken = lowercased.indices.contains { lowercased[$0...].starts(with: "token".utf8) }
    if spellsToken {
        precondition(Redaction().isSecret(header: name), "a header name spelling token was shown")
        if let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) {
            precondition(Redaction().isSecret(parameter: encoded), "a parameter name spelling token was shown")
        }
    }
}

/// The test server's request parser: a head whose field lines are `fields`, then `body`,
/// parses or is refused, never traps; each field's name is the bytes before its first colon
/// and a request never ends past the bytes given.
private func checkRequestParser(fields: String, body: ArraySlice<UInt8>) {
    var parser = RequestParser()
    let bytes = Data("POST / HTTP/1.1\r\n\(fields)\r\n\r\n".utf8) + body
    guard let parsed = try? parser.parse(bytes) else { return }
    precondition(parsed.consumed <= bytes.count, "a request ends past its bytes")
    for field in parsed.fields {
        precondition(!field.name.utf8.contains(UInt8(ascii: ":")), "a field name holds a colon")
    }
}

/// libFuzzer target: text from the bytes with a combining mark (or a joiner) after every
/// delimiter, through the escapers, validators and parsers of wire and shell text, each
/// checked for what it must keep: a shell word, a quoted value, a refused line break.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCombiningMarks(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    guard let selector = bytes.first else { return 0 }
    let rest = bytes.dropFirst()
    // Two strings: the input split at its first 0xFF byte (never in UTF-8 text); the second
    // part is also the request body the parser gets as it is.
    let split = rest.firstIndex(of: 0xFF) ?? rest.endIndex
    let first = markedText(rest[..<split], firstMark: Int(selector))
    let second = markedText(rest[split...].dropFirst(), firstMark: Int(selector >> 2))
    checkCurlCommand(first)
    checkMultipart(name: first, fileName: second)
    checkHeaderValidation(name: second, value: first)
    checkRedaction(first)
    // The parser also gets the text unmarked, for its arithmetic: a mark after every CR and
    // LF would leave no line but the first.
    let body = rest[split...].dropFirst()
    checkRequestParser(fields: first, body: body)
    checkRequestParser(fields: String(decoding: rest[..<split], as: UTF8.self), body: body)
    return 0
}
