@testable import AFReachability

/// libFuzzer target: any bytes as a datagram from the rtnetlink socket.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNetlink(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    _ = try? NetlinkMessageParser.events(in: Array(UnsafeRawBufferPointer(start: start, count: count)))
    return 0
}
