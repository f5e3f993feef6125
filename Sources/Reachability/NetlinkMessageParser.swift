/// The rtnetlink messages that can change reachability, parsed from the bytes a
/// `NETLINK_ROUTE` socket delivers. Pure: tested from byte fixtures.
///
/// Layout (Linux UAPI, native byte order, 4-byte alignment): a 16-byte `nlmsghdr` (length,
/// type, flags, sequence, port), then per type an `ifinfomsg` (16 bytes), `ifaddrmsg` (8) or
/// `rtmsg` (12), then attributes. Only the kind of change matters to the monitor, which then
/// re-evaluates reachability from scratch; the payloads are checked for length, not read.
enum NetlinkMessageParser {
    enum Event: Equatable {
        /// `RTM_NEWLINK` or `RTM_DELLINK`.
        case link
        /// `RTM_NEWADDR` or `RTM_DELADDR`.
        case address
        /// `RTM_NEWROUTE` or `RTM_DELROUTE`.
        case route
        /// `NLMSG_ERROR` (an error or an acknowledgement).
        case error
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
            return .link
        case MessageType.newAddress, MessageType.deleteAddress:
            guard payload.count >= 8 else { throw Failure.truncated(offset: offset) }
            return .address
        case MessageType.newRoute, MessageType.deleteRoute:
            guard payload.count >= 12 else { throw Failure.truncated(offset: offset) }
            return .route
        case MessageType.error:
            guard payload.count >= 4 else { throw Failure.truncated(offset: offset) }
            return .error
        case MessageType.overrun:
            return .overrun
        default:
            return nil
        }
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
