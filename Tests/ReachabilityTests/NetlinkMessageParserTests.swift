@testable import AFReachability
import XCTest

/// Byte fixtures laid out as the kernel sends them on x86-64 (native little-endian).
final class NetlinkMessageParserTests: XCTestCase {
    /// RTM_NEWLINK for index 2, flags UP|BROADCAST|RUNNING|MULTICAST|LOWER_UP, IFLA_IFNAME "eth0".
    static let newLink: [UInt8] = [
        0x2C, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 0x43, 0x10, 0x01, 0x00, 0xFF, 0xFF, 0xFF, 0xFF,
        0x09, 0x00, 0x03, 0x00, 0x65, 0x74, 0x68, 0x30, 0x00, 0x00, 0x00, 0x00,
    ]
    /// RTM_DELADDR, AF_INET /24 on index 3.
    static let deleteAddress: [UInt8] = [
        0x18, 0x00, 0x00, 0x00, 0x15, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x02, 0x18, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00,
    ]
    /// RTM_NEWROUTE, AF_INET6 in the main table (254).
    static let newRoute: [UInt8] = [
        0x1C, 0x00, 0x00, 0x00, 0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x0A, 0x00, 0x00, 0x00, 0xFE, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
    ]
    /// RTM_DELROUTE, AF_INET, main table.
    static let deleteRoute: [UInt8] = [
        0x1C, 0x00, 0x00, 0x00, 0x19, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x02, 0x00, 0x00, 0x00, 0xFE, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
    ]
    /// NLMSG_DONE.
    static let done: [UInt8] = [
        0x14, 0x00, 0x00, 0x00, 0x03, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00,
    ]
    /// NLMSG_ERROR with errno -EPERM (-1) and the offending header.
    static let error: [UInt8] = [
        0x24, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0xFF, 0xFF, 0xFF, 0xFF, 0x14, 0x00, 0x00, 0x00, 0x12, 0x00, 0x01, 0x03, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00,
    ]
    /// RTM_NEWNEIGH (28): not a reachability event.
    static let neighbour: [UInt8] = [
        0x1C, 0x00, 0x00, 0x00, 0x1C, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x02, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00,
    ]

    func testLinkMessageIsALinkChange() throws {
        XCTAssertEqual(try NetlinkMessageParser.events(in: Self.newLink), [.link])
    }

    func testAddressRemovalIsParsed() throws {
        XCTAssertEqual(try NetlinkMessageParser.events(in: Self.deleteAddress), [.address])
    }

    func testRouteMessagesAreParsedForBothFamilies() throws {
        XCTAssertEqual(try NetlinkMessageParser.events(in: Self.newRoute), [.route])
        XCTAssertEqual(try NetlinkMessageParser.events(in: Self.deleteRoute), [.route])
    }

    func testABurstOfMessagesInOneBufferIsParsedInOrder() throws {
        let burst = Self.newLink + Self.deleteAddress + Self.neighbour + Self.newRoute + Self.done
        XCTAssertEqual(try NetlinkMessageParser.events(in: burst), [
            .link,
            .address,
            .route,
        ])
    }

    func testErrorMessageIsReported() throws {
        XCTAssertEqual(try NetlinkMessageParser.events(in: Self.error), [.error])
    }

    func testUnrelatedMessagesAreSkipped() throws {
        XCTAssertEqual(try NetlinkMessageParser.events(in: Self.neighbour + Self.done), [])
    }

    func testMessageLongerThanTheBufferIsRejected() {
        XCTAssertThrowsError(try NetlinkMessageParser.events(in: Array(Self.newLink.prefix(40)))) {
            XCTAssertEqual($0 as? NetlinkMessageParser.Failure, .truncated(offset: 0))
        }
    }

    func testHeaderClaimingLessThanItselfIsRejected() {
        var corrupt = Self.deleteAddress
        corrupt[0] = 0x04
        XCTAssertThrowsError(try NetlinkMessageParser.events(in: corrupt))
    }

    func testTrailingBytesShorterThanAHeaderAreIgnored() throws {
        XCTAssertEqual(try NetlinkMessageParser.events(in: Self.deleteAddress + [0, 0, 0]).count, 1)
    }

    func testEveryPrefixOfABurstParsesOrThrowsWithoutCrashing() {
        let burst = Self.newLink + Self.error + Self.newRoute
        for length in 0...burst.count {
            _ = try? NetlinkMessageParser.events(in: Array(burst.prefix(length)))
        }
    }
}
