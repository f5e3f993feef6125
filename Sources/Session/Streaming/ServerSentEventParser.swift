import Foundation

/// The event-stream parser of the WHATWG HTML standard (9.2.6, "Interpreting an event
/// stream"), fed one line at a time: fields `event`, `data` (lines joined by LF), `id` (ignored
/// when it contains NUL) and `retry` (ASCII digits only), comments (`:`), a leading byte-order
/// mark, and an event dispatched at each blank line, not when its data is empty. A block the
/// stream ends inside is never dispatched. Pure: tested without a server.
public struct ServerSentEventParser: Sendable {
    /// The last event ID set by the stream; empty when none was.
    public private(set) var lastEventID = ""
    /// The reconnection time the stream asked for with `retry`, in milliseconds; `nil` until it did.
    public private(set) var reconnectionTime: Int?
    private var data = ""
    private var hasData = false
    private var eventType = ""
    private var atStart = true

    /// A parser at the start of a stream; `lastEventID` continues a stream reconnected after an
    /// event with that ID.
    public init(lastEventID: String = "") {
        self.lastEventID = lastEventID
    }

    /// Takes one line (without its ending); returns the event a blank line dispatches.
    public mutating func parse(line bytes: Data) -> ServerSentEvent? {
        var line = String(decoding: bytes, as: UTF8.self)
        if atStart {
            atStart = false
            if line.hasPrefix("\u{FEFF}") { line.removeFirst() }
        }
        if line.isEmpty { return dispatch() }
        if line.hasPrefix(":") { return nil }
        let field: Substring
        var value: Substring
        if let colon = line.firstIndex(of: ":") {
            field = line[..<colon]
            value = line[line.index(after: colon)...]
            if value.hasPrefix(" ") { value = value.dropFirst() }
        } else {
            field = line[...]
            value = ""
        }
        switch field {
        case "event":
            eventType = String(value)
        case "data":
            if hasData { data += "\n" }
            data += value
            hasData = true
        case "id":
            if !value.contains("\0") { lastEventID = String(value) }
        case "retry":
            if !value.isEmpty, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let milliseconds = Int(value) {
                reconnectionTime = milliseconds
            }
        default:
            break
        }
        return nil
    }

    private mutating func dispatch() -> ServerSentEvent? {
        defer {
            data = ""
            hasData = false
            eventType = ""
        }
        guard hasData else { return nil }
        return ServerSentEvent(event: eventType.isEmpty ? "message" : eventType, data: data, id: lastEventID)
    }
}

extension ServerSentEventParser: BodyLineDecoder {
    /// The event the line dispatches, if any (`parse(line:)`).
    public mutating func decode(line: Data) -> ServerSentEvent? {
        parse(line: line)
    }

    /// Nothing: a block the stream ends inside is discarded, as the standard requires.
    public mutating func finish(lastLine: Data?) -> ServerSentEvent? {
        nil
    }
}

extension ServerSentEventParser {
    /// The parser's stream state (last event ID, reconnection time) for the next connection.
    var continued: ServerSentEventParser {
        var next = ServerSentEventParser(lastEventID: lastEventID)
        next.reconnectionTime = reconnectionTime
        return next
    }
}
