import AFLocking
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Watches rtnetlink for link, address and route changes (IPv4 and IPv6) and calls `onChange`
/// on `queue`, once per burst: the kernel sends several messages per change, so events are
/// collected for `debounce` seconds before one call. No polling: the socket wakes a dispatch
/// read source.
final class NetlinkMonitor: Sendable {
    /// Multicast groups: LINK | IPV4_IFADDR | IPV4_ROUTE | IPV6_IFADDR | IPV6_ROUTE.
    static let groups: UInt32 = 0x1 | 0x10 | 0x40 | 0x100 | 0x400
    private static let netlinkFamily: Int32 = 16
    private static let routeProtocol: Int32 = 0

    private struct State {
        var source: (any DispatchSourceRead)?
        var pendingEvaluation = false
    }

    private let queue: DispatchQueue
    private let debounce: DispatchTimeInterval
    private let onChange: @Sendable () -> Void
    private let state = Locked(State())

    init(queue: DispatchQueue, debounce: DispatchTimeInterval = .milliseconds(100), onChange: @escaping @Sendable () -> Void) {
        self.queue = queue
        self.debounce = debounce
        self.onChange = onChange
    }

    /// Opens the socket and starts listening. Returns `false` when rtnetlink is unavailable.
    func start() -> Bool {
        let descriptor = socket(Self.netlinkFamily, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), Self.routeProtocol)
        guard descriptor >= 0 else { return false }
        // `struct sockaddr_nl` (family, pad, port id, groups), which Glibc's module lacks.
        var address: (UInt16, UInt16, UInt32, UInt32) = (UInt16(Self.netlinkFamily), 0, 0, Self.groups)
        let bound = withUnsafeBytes(of: &address) { raw in
            bind(descriptor, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
        }
        guard bound == 0 else {
            close(descriptor)
            return false
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
        source.setEventHandler { [weak self] in self?.drain(descriptor) }
        source.setCancelHandler { close(descriptor) }
        state.withLock { $0.source = source }
        source.resume()
        return true
    }

    func stop() {
        state.withLock { state -> (any DispatchSourceRead)? in
            defer { state.source = nil }
            return state.source
        }?.cancel()
    }

    deinit { stop() }

    /// Reads every queued message; any relevant one schedules an evaluation after the
    /// debounce interval, unless one is already scheduled.
    private func drain(_ descriptor: Int32) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var relevant = false
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 {
                // ENOBUFS means the kernel dropped messages: re-evaluate everything.
                if errno == ENOBUFS { relevant = true }
                if errno == EINTR { continue }
                break
            }
            if count == 0 { break }
            let events = (try? NetlinkMessageParser.events(in: Array(buffer[0..<count]))) ?? [.overrun]
            if !events.isEmpty { relevant = true }
        }
        guard relevant, state.withLock({ state -> Bool in
            defer { state.pendingEvaluation = true }
            return !state.pendingEvaluation
        }) else { return }
        queue.asyncAfter(deadline: .now() + debounce) { [weak self] in
            guard let self else { return }
            state.withLock { $0.pendingEvaluation = false }
            onChange()
        }
    }
}
