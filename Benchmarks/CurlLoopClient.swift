import Foundation
#if canImport(Glibc)
import Glibc
#endif
import LibcurlBridge

/// The limit of the libcurl transport: libcurl's multi interface driven through the project's
/// bridge by one thread of its own with poll(2), no manager, no URLSession, no dispatch. Each GET
/// is an easy handle (kept and reused, as the transport keeps its connections) added to one
/// multi handle; its body is collected in memory and its length checked against the expected one
/// (1 KiB, the request-overhead file, unless told), as the other clients' are. The
/// request is handed to the loop and its completion back, so the figure includes one hand-off
/// each way, as any client on a transport thread has.
final class CurlLoopClient: BenchmarkClient, @unchecked Sendable {
    // @unchecked: `queued` is touched only under `lock`; every other property, after init, only
    // by the loop thread (`run`).

    /// libcurl's option and event numbers (curl.h and multi.h; part of its stable ABI).
    private enum Curl {
        static let url: Int32 = 10_002
        static let writeFunction: Int32 = 20_011
        static let writeData: Int32 = 10_001
        static let noSignal: Int32 = 99
        static let multiSocketFunction: Int32 = 20_001
        static let multiSocketData: Int32 = 10_002
        static let multiMaxHostConnections: Int32 = 7
        static let pollIn: Int32 = 1, pollOut: Int32 = 2, pollRemove: Int32 = 4
        static let selectIn: Int32 = 1, selectOut: Int32 = 2, selectError: Int32 = 4
        static let socketTimeout: Int32 = -1
    }

    /// One GET in flight: its body and its completion.
    private final class Transfer {
        var body = Data()
        var done: (@Sendable (Bool) -> Void)?
    }

    private let url: String
    private let expectedBodyLength: Int
    private let multi: UnsafeMutableRawPointer
    private let lock = NSLock()
    private var queued: [@Sendable (Bool) -> Void] = []
    private var running = true
    private let wake: (read: Int32, write: Int32)
    private var sockets: [Int32: Int32] = [:]
    private var idle: [UnsafeMutableRawPointer] = []
    private var transfers: [UnsafeMutableRawPointer: Transfer] = [:]
    private var thread: Thread?
    private let stopped = DispatchSemaphore(value: 0)

    init(url: URL, expectedBodyLength: Int = 1024) throws {
        var error = [CChar](repeating: 0, count: 256)
        guard afn_curl_load(&error, error.count) != 0, let multi = afn_multi_init() else {
            throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)])
        }
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw POSIXError(.EMFILE) }
        _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
        self.url = url.absoluteString
        self.expectedBodyLength = expectedBodyLength
        self.multi = multi
        wake = (fds[0], fds[1])
        let context = Unmanaged.passUnretained(self).toOpaque()
        _ = afn_multi_setopt_pointer(multi, Curl.multiSocketData, context)
        _ = afn_multi_setopt_pointer(multi, Curl.multiSocketFunction, unsafeBitCast(Self.socketCallback, to: UnsafeRawPointer.self))
        _ = afn_multi_setopt_long(multi, Curl.multiMaxHostConnections, 64)
        let thread = Thread { [unowned self] in self.run() }
        thread.name = "CurlLoopClient"
        self.thread = thread
        thread.start()
    }

    func get(_ done: @escaping @Sendable (Bool) -> Void) {
        lock.lock()
        queued.append(done)
        lock.unlock()
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    func close() {
        lock.lock()
        running = false
        lock.unlock()
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
        stopped.wait()
        for easy in idle + transfers.keys { afn_multi_remove_handle(multi, easy); afn_easy_cleanup(easy) }
        afn_multi_cleanup(multi)
        Glibc.close(wake.read)
        Glibc.close(wake.write)
    }

    private func run() {
        var pollSet: [pollfd] = []
        while true {
            var drained = [UInt8](repeating: 0, count: 256)
            while read(wake.read, &drained, drained.count) > 0 {}
            lock.lock()
            let starting = queued
            queued.removeAll(keepingCapacity: true)
            let keepRunning = running
            lock.unlock()
            guard keepRunning else { break }
            for done in starting { start(done) }
            var milliseconds = -1
            afn_multi_timeout(multi, &milliseconds)
            pollSet.removeAll(keepingCapacity: true)
            pollSet.append(pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0))
            for (socket, what) in sockets {
                let events = (what & Curl.pollIn != 0 ? POLLIN : 0) | (what & Curl.pollOut != 0 ? POLLOUT : 0)
                pollSet.append(pollfd(fd: socket, events: Int16(events), revents: 0))
            }
            let ready = poll(&pollSet, nfds_t(pollSet.count), Int32(milliseconds < 0 ? 1000 : milliseconds))
            var stillRunning: Int32 = 0
            if ready <= 0 {
                afn_multi_socket_action(multi, Curl.socketTimeout, 0, &stillRunning)
            } else {
                for entry in pollSet.dropFirst() where entry.revents != 0 {
                    let mask = (Int32(entry.revents) & Int32(POLLIN) != 0 ? Curl.selectIn : 0)
                        | (Int32(entry.revents) & Int32(POLLOUT) != 0 ? Curl.selectOut : 0)
                        | (Int32(entry.revents) & Int32(POLLERR | POLLHUP) != 0 ? Curl.selectError : 0)
                    afn_multi_socket_action(multi, entry.fd, mask, &stillRunning)
                }
            }
            finishDone()
        }
        stopped.signal()
    }

    private func start(_ done: @escaping @Sendable (Bool) -> Void) {
        let easy = idle.popLast() ?? {
            let easy = afn_easy_init()!
            _ = afn_easy_setopt_pointer(easy, Curl.url, url)
            _ = afn_easy_setopt_long(easy, Curl.noSignal, 1)
            _ = afn_easy_setopt_pointer(easy, Curl.writeFunction, unsafeBitCast(Self.writeCallback, to: UnsafeRawPointer.self))
            return easy
        }()
        let transfer = Transfer()
        transfer.done = done
        transfers[easy] = transfer
        _ = afn_easy_setopt_pointer(easy, Curl.writeData, Unmanaged.passUnretained(transfer).toOpaque())
        afn_multi_add_handle(multi, easy)
    }

    private func finishDone() {
        var easy: UnsafeMutableRawPointer?
        var result: Int32 = 0
        while afn_multi_next_done(multi, &easy, &result) != 0, let finished = easy {
            afn_multi_remove_handle(multi, finished)
            guard let transfer = transfers.removeValue(forKey: finished) else { continue }
            idle.append(finished)
            transfer.done?(result == 0 && transfer.body.count == expectedBodyLength)
        }
    }

    private static let socketCallback: @convention(c) (UnsafeMutableRawPointer?, Int32, Int32, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Int32 = {
        _, socket, what, context, _ in
        guard let context else { return 0 }
        let client = Unmanaged<CurlLoopClient>.fromOpaque(context).takeUnretainedValue()
        if what == Curl.pollRemove { client.sockets[socket] = nil } else { client.sockets[socket] = what }
        return 0
    }

    private static let writeCallback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
        bytes, size, count, context in
        guard let bytes, let context else { return 0 }
        Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue().body.append(UnsafeRawPointer(bytes).assumingMemoryBound(to: UInt8.self), count: size * count)
        return size * count
    }
}
