import Foundation

/// The event-stream parser of the WHATWG HTML standard (9.2.6, "Interpreting an event
/// stream"), fed one line at a time: fields `event`, `data` (lines joined by LF), `id` (ignored
/// when it contains NUL) and `retry` (ASCII digits only), comments (`:`), a leading byte-order
/// mark, and an event dispatched at each blank line, not when its data is empty. A block the
/// stream ends inside is never dispatched. The standard is written on code points: the parser
/// works on the line's bytes (every delimiter is ASCII, so a byte search finds exactly the code
/// points) and decodes values as UTF-8 only once they are cut out, so a delimiter followed by a
/// combining mark is still a delimiter. An event's data is bounded (`maximumDataSize`). Pure:
/// tested without a server.
public struct ServerSentEventParser: Sendable {
    /// The data limit of a parser made without one: 16 MiB.
    public static let defaultMaximumDataSize = 16 << 20

    /// The last event ID set by the stream; empty when none was.
    public private(set) var lastEventID = ""
    /// The reconnection time the stream asked for with `retry`, in milliseconds (a value past
    /// `Int.max` reads as `Int.max`); `nil` until it did.
    public private(set) var reconnectionTime: Int?
    /// The most bytes an event's data may hold (its `data` values and the LFs joining them);
    /// more throws `StreamingError.eventDataTooLarge`. Default `defaultMaximumDataSize`.
    public let maximumDataSize: Int
    private var data: [UInt8] = []
    private var hasData = false
    private var eventType = ""
    private var atStart = true

    /// A parser at the start of a stream; `lastEventID` continues a stream reconnected after an
    /// event with that ID; an event's data holds at most `maximumDataSize` bytes (default 16 MiB).
    public init(lastEventID: String = "", maximumDataSize: Int = Self.defaultMaximumDataSize) {
        self.lastEventID = lastEventID
        self.maximumDataSize = max(0, maximumDataSize)
    }

    /// Takes one line (without its ending); returns the event a blank line dispatches. Throws
    /// `StreamingError.eventDataTooLarge` when a `data` line would take the event's data past
    /// `maximumDataSize`.
    public mutating func parse(line: Data) throws(StreamingError) -> ServerSentEvent? {
        var line = line[...]
        if atStart {
            atStart = false
            if line.starts(with: [0xEF, 0xBB, 0xBF]) { line = line.dropFirst(3) }
        }
        if line.isEmpty { return dispatch() }
        if line.first == UInt8(ascii: ":") { return nil }
        let field: Data
        var value: Data
        if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            field = line[..<colon]
            value = line[line.index(after: colon)...]
            if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        } else {
            field = line
            value = Data()
        }
        if field.elementsEqual("event".utf8) {
            eventType = String(decoding: value, as: UTF8.self)
        } else if field.elementsEqual("data".utf8) {
            try appendData(value)
        } else if field.elementsEqual("id".utf8) {
            if !value.contains(0) { lastEventID = String(decoding: value, as: UTF8.self) }
        } else if field.elementsEqual("retry".utf8) {
            if let milliseconds = Self.milliseconds(value) { reconnectionTime = milliseconds }
        }
        return nil
    }

    /// Adds a `data` value to the event's data, after an LF when it has some already.
    private mutating func appendData(_ value: Data) throws(StreamingError) {
        let separator = hasData ? 1 : 0
        guard value.count <= maximumDataSize - data.count - separator else { throw .eventDataTooLarge(limit: maximumDataSize) }
        if hasData { data.append(0x0A) }
        data.append(contentsOf: value)
        hasData = true
    }

    /// A `retry` value of ASCII digits only as milliseconds, saturating at `Int.max`; `nil` for
    /// anything else.
    private static func milliseconds(_ value: Data) -> Int? {
        guard !value.isEmpty else { return nil }
        var total = 0
        for byte in value {
            guard (0x30...0x39).contains(byte) else { return nil }
            let (tens, overflowTens) = total.multipliedReportingOverflow(by: 10)
            let (sum, overflowSum) = tens.addingReportingOverflow(Int(byte - 0x30))
            total = overflowTens || overflowSum ? .max : sum
        }
        return total
    }

    private mutating func dispatch() -> ServerSentEvent? {
        defer {
            data.removeAll()
            hasData = false
            eventType = ""
        }
        guard hasData else { return nil }
        return ServerSentEvent(event: eventType.isEmpty ? "message" : eventType, data: String(decoding: data, as: UTF8.self), id: lastEventID)
    }
}

extension ServerSentEventParser: BodyLineDecoder {
    /// The event the line dispatches, if any (`parse(line:)`).
    public mutating func decode(line: Data) throws -> ServerSentEvent? {
        try parse(line: line)
    }

    /// Nothing: a block the stream ends inside is discarded, as the standard requires.
    public mutating func finish(lastLine: Data?) -> ServerSentEvent? {
        nil
    }
}

extension ServerSentEventParser {
    /// The parser's stream state (last event ID, reconnection time, data limit) for the next
    /// connection.
    var continued: ServerSentEventParser {
        var next = ServerSentEventParser(lastEventID: lastEventID, maximumDataSize: maximumDataSize)
        next.reconnectionTime = reconnectionTime
        return next
    }
}
