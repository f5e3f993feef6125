@testable import AFSession
import Foundation

/// libFuzzer target: any bytes as a `text/event-stream` body, checked three ways, then again with
/// U+0301 (combining acute) inserted after every delimiter byte (`:`, space, CR, LF, NUL), and
/// after every one but `:` (so that a value's leading space is followed by the mark), where a
/// search by Swift `Character` would miss the delimiter:
/// - the parser, fed the lines `LineSplitter` cuts, agrees byte for byte with a reference written
///   on Unicode scalars straight from the WHATWG standard (9.2.6), which works on code points;
/// - cutting the body into chunks anywhere changes nothing;
/// - with small limits, the stream stops with `lineTooLong` or `eventDataTooLarge` after a
///   prefix of the same events, never holding an event's data past its limit; and the wait a
///   `retry` field leads to stays within 0...`maximumReconnectionDelay`.
/// A violation traps, which libFuzzer reports.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzServerSentEvents(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = Array(UnsafeRawBufferPointer(start: start, count: count))
    check(input)
    check(withCombiningMarks(input, after: [0x3A, 0x20, 0x0D, 0x0A, 0x00]))
    check(withCombiningMarks(input, after: [0x20, 0x0D, 0x0A, 0x00]))
    return 0
}

/// What parsing a whole body gave: its events and final state, strings as their UTF-8 bytes (so
/// that no comparison goes through canonical equivalence).
private struct Outcome: Equatable {
    struct Event: Equatable {
        var type: [UInt8]
        var data: [UInt8]
        var id: [UInt8]
    }

    var events: [Event] = []
    var lastEventID: [UInt8] = []
    var reconnectionTime: Int?
    var error: StreamingError?
}

private func check(_ bytes: [UInt8]) {
    let unlimited = bytes.count + 1
    let whole = parsed(bytes, chunkSizes: [unlimited], lineLimit: unlimited, dataLimit: unlimited)
    precondition(whole == reference(bytes), "the parser and the code-point reference disagree")
    let sizes = bytes.prefix(8).map { 1 + Int($0 % 5) }
    precondition(parsed(bytes, chunkSizes: sizes, lineLimit: unlimited, dataLimit: unlimited) == whole, "chunking changed the events")
    let lineLimit = Int(bytes.first ?? 0) % 64
    let dataLimit = Int(bytes.last ?? 0) % 64
    let limited = parsed(bytes, chunkSizes: sizes, lineLimit: lineLimit, dataLimit: dataLimit)
    precondition(whole.events.starts(with: limited.events), "a limit changed the events before it")
    // An invalid byte decodes to U+FFFD, three bytes: the most a byte of data can become.
    precondition(limited.events.allSatisfy { $0.data.count <= 3 * dataLimit }, "an event's data passed its limit")
    switch limited.error {
    case nil: precondition(limited == whole, "the limits changed a body within them")
    case .lineTooLong(let limit): precondition(limit == lineLimit)
    case .eventDataTooLarge(let limit): precondition(limit == dataLimit)
    }
    let interceptorDelay = bytes.count >= 8 ? Double(bitPattern: bytes.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }) : 0
    let delay = ServerSentEventStream.reconnectionDelay(retryMilliseconds: whole.reconnectionTime, interceptorDelay: interceptorDelay)
    precondition(delay >= 0 && delay <= ServerSentEventStream.maximumReconnectionDelay, "an unbounded reconnection delay")
}

/// The body through `LineSplitter` and `ServerSentEventParser`, in chunks of `chunkSizes` bytes
/// (repeated in turn), as `DecodedBody` feeds them; stops at the first error.
private func parsed(_ bytes: [UInt8], chunkSizes: [Int], lineLimit: Int, dataLimit: Int) -> Outcome {
    var splitter = LineSplitter(maximumLength: lineLimit)
    var parser = ServerSentEventParser(maximumDataSize: dataLimit)
    var outcome = Outcome()
    var offset = 0
    var turn = 0
    do {
        while offset < bytes.count {
            let end = min(bytes.count, offset + chunkSizes[turn % chunkSizes.count])
            turn += 1
            for line in try splitter.lines(in: Data(bytes[offset..<end])) {
                precondition(line.count <= lineLimit, "a line passed its limit")
                if let event = try parser.parse(line: line) {
                    outcome.events.append(Outcome.Event(type: Array(event.event.utf8), data: Array(event.data.utf8), id: Array(event.id.utf8)))
                }
            }
            offset = end
        }
        precondition(parser.finish(lastLine: splitter.finish()) == nil, "an unended block was dispatched")
    } catch {
        outcome.error = error
    }
    outcome.lastEventID = Array(parser.lastEventID.utf8)
    outcome.reconnectionTime = parser.reconnectionTime
    return outcome
}

/// The standard's algorithm as written, on the code points of the body decoded as UTF-8 (a
/// leading BOM removed): lines ended by CRLF, LF or CR (a last line without an ending is never
/// processed), fields cut at the first U+003A, one U+0020 removed from a value's start.
private func reference(_ bytes: [UInt8]) -> Outcome {
    var scalars = Array(String(decoding: bytes, as: UTF8.self).unicodeScalars)
    if scalars.first == "\u{FEFF}" { scalars.removeFirst() }
    var outcome = Outcome()
    var dataBuffer: [Unicode.Scalar] = []
    var eventTypeBuffer: [Unicode.Scalar] = []
    var lastEventIDBuffer: [Unicode.Scalar] = []
    var lineBuffer: [Unicode.Scalar] = []
    var index = 0
    while index < scalars.count {
        let scalar = scalars[index]
        index += 1
        guard scalar == "\r" || scalar == "\n" else {
            lineBuffer.append(scalar)
            continue
        }
        if scalar == "\r", index < scalars.count, scalars[index] == "\n" { index += 1 }
        let line = lineBuffer
        lineBuffer = []
        if line.isEmpty {
            // Dispatch: nothing when the data buffer is empty; its last LF removed otherwise.
            if !dataBuffer.isEmpty {
                dataBuffer.removeLast()
                let type = eventTypeBuffer.isEmpty ? Array("message".unicodeScalars) : eventTypeBuffer
                outcome.events.append(Outcome.Event(type: utf8(type), data: utf8(dataBuffer), id: utf8(lastEventIDBuffer)))
            }
            dataBuffer = []
            eventTypeBuffer = []
            continue
        }
        if line.first == ":" { continue }
        let field: [Unicode.Scalar]
        var value: ArraySlice<Unicode.Scalar>
        if let colon = line.firstIndex(of: ":") {
            field = Array(line[..<colon])
            value = line[(colon + 1)...]
            if value.first == " " { value = value.dropFirst() }
        } else {
            field = line
            value = []
        }
        if field.elementsEqual("event".unicodeScalars) {
            eventTypeBuffer = Array(value)
        } else if field.elementsEqual("data".unicodeScalars) {
            dataBuffer += value + ["\n"]
        } else if field.elementsEqual("id".unicodeScalars) {
            if !value.contains("\u{0}") { lastEventIDBuffer = Array(value) }
        } else if field.elementsEqual("retry".unicodeScalars), !value.isEmpty, value.allSatisfy({ ("0"..."9").contains($0) }) {
            // Digits only (an empty value is ignored, as browsers do); past Int.max, Int.max.
            outcome.reconnectionTime = value.reduce(0) { total, digit in
                let (tens, overflowTens) = total.multipliedReportingOverflow(by: 10)
                let (sum, overflowSum) = tens.addingReportingOverflow(Int(digit.value - 0x30))
                return overflowTens || overflowSum ? .max : sum
            }
        }
    }
    outcome.lastEventID = utf8(lastEventIDBuffer)
    return outcome
}

private func utf8(_ scalars: some Sequence<Unicode.Scalar>) -> [UInt8] {
    Array(String(String.UnicodeScalarView(scalars)).utf8)
}

/// `bytes` with U+0301 (UTF-8 CC 81) after every byte of `delimiters`.
private func withCombiningMarks(_ bytes: [UInt8], after delimiters: Set<UInt8>) -> [UInt8] {
    bytes.flatMap { byte in delimiters.contains(byte) ? [byte, 0xCC, 0x81] : [byte] }
}
