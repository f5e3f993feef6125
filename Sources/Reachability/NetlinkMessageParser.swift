/// The rtnetlink messages that can change reachability, parsed from the bytes a
/// `NETLINK_ROUTE` socket delivers. Pure: tested from byte fixtures.
///
/// Layout (Linux UAPI, native byte order, 4-byte alignment): a 16-byte `nlmsghdr` (length,
/// type, flags, sequence, port), then per type an `ifinfomsg` (16 bytes), `ifaddrmsg` (8) or
/// `rtmsg` (12), then attributes (`rtattr`: length, type, data).
enum NetlinkMessageParser {
    enum Event: Equatable {
        case link(index: Int32, flags: UInt32, name: String?, removed: Bool)
        case address(index: UInt32, family: UInt8, removed: Bool)
        case route(family: UInt8, table: UInt8, removed: Bool)
        /// `NLMSG_ERROR` with the negated errno (0 is an acknowledgement).
        case error(Int32)
        /// `NLMSG_OVERRUN`: the kernel dropped messages; the whole state must be re-read.
        case overrun
    }

    enum Failure: Error, Equatable {
        /// A header or payload claims more bytes than the buffer holds.
        case truncated(offset: Int)
    }

    static let headerLength = 16

    private enum MessageType {
        static let error: UInt16 = 2
        static let done: UInt16 = 3
        static let overrun: UInt16 = 4
        static let newLink: UInt16 = 16
        static let deleteLink: UInt16 = 17
        static let newAddress: UInt16 = 20
        static let deleteAddress: UInt16 = 21
        static let newRoute: UInt16 = 24
        static let deleteRoute: UInt16 = 25
    }

    private static let linkNameAttribute: UInt16 = 3

    /// The events in `bytes`, in order; unrelated messages (`NLMSG_DONE`, neighbours, rules)
    /// are skipped. Throws `Failure.truncated` for a malformed buffer, never reading past it.
    static func events(in bytes: [UInt8]) throws -> [Event] {
        var events: [Event] = []
        var offset = 0
        while offset + headerLength <= bytes.count {
            let length = Int(bytes.uint32(at: offset))
            guard length >= headerLength, offset + length <= bytes.count else { throw Failure.truncated(offset: offset) }
            let type = bytes.uint16(at: offset + 4)
            let payload = Array(bytes[(offset + headerLength)..<(offset + length)])
            if let event = try event(type: type, payload: payload, offset: offset) { events.append(event) }
            offset += align(length)
        }
        return events
    }

    private static func event(type: UInt16, payload: [UInt8], offset: Int) throws -> Event? {
        switch type {
        case MessageType.newLink, MessageType.deleteLink:
            guard payload.count >= 16 else { throw Failure.truncated(offset: offset) }
            let name = try attributes(in: payload, from: 16, offset: offset)[linkNameAttribute].map { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            return .link(index: Int32(bitPattern: payload.uint32(at: 4)), flags: payload.uint32(at: 8), name: name,
                         removed: type == MessageType.deleteLink)
        case MessageType.newAddress, MessageType.deleteAddress:
            guard payload.count >= 8 else { throw Failure.truncated(offset: offset) }
            return .address(index: payload.uint32(at: 4), family: payload[0], removed: type == MessageType.deleteAddress)
        case MessageType.newRoute, MessageType.deleteRoute:
            guard payload.count >= 12 else { throw Failure.truncated(offset: offset) }
            return .route(family: payload[0], table: payload[4], removed: type == MessageType.deleteRoute)
        case MessageType.error:
            guard payload.count >= 4 else { throw Failure.truncated(offset: offset) }
            return .error(Int32(bitPattern: payload.uint32(at: 0)))
        case MessageType.overrun:
            return .overrun
        default:
            return nil
        }
    }

    /// Attributes by type, starting at `start` in `payload`.
    private static func attributes(in payload: [UInt8], from start: Int, offset: Int) throws -> [UInt16: ArraySlice<UInt8>] {
        var result: [UInt16: ArraySlice<UInt8>] = [:]
        var position = start
        while position + 4 <= payload.count {
            let length = Int(payload.uint16(at: position))
            guard length >= 4, position + length <= payload.count else { throw Failure.truncated(offset: offset) }
            result[payload.uint16(at: position + 2)] = payload[(position + 4)..<(position + length)]
            position += align(length)
        }
        return result
    }

    private static func align(_ length: Int) -> Int { (length + 3) & ~3 }
}

private extension Array where Element == UInt8 {
    /// A native-order value at `index`; callers check the bounds first.
    func uint16(at index: Int) -> UInt16 {
        withUnsafeBytes { $0.loadUnaligned(fromByteOffset: index, as: UInt16.self) }
    }

    func uint32(at index: Int) -> UInt32 {
        withUnsafeBytes { $0.loadUnaligned(fromByteOffset: index, as: UInt32.self) }
    }
}
