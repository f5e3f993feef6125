import Foundation

/// Reads `stream` to its end in `chunk`-byte reads; returns the bytes, or the stream's error.
public func readAll(_ stream: InputStream, chunk: Int = 65_524) throws -> Data {
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: chunk)
    stream.open()
    defer { stream.close() }
    while true {
        let count = buffer.withUnsafeMutableBufferPointer { stream.read($0.baseAddress!, maxLength: chunk) }
        if count < 0 { throw stream.streamError ?? CocoaError(.fileReadUnknown) }
        if count == 0 { return data }
        data.append(contentsOf: buffer[0..<count])
    }
}

/// A temporary directory removed when the test's teardown calls `remove()`.
public struct TemporaryDirectory: Sendable {
    public let url: URL

    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("afn-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public func file(_ name: String, contents: Data) throws -> URL {
        let file = url.appendingPathComponent(name)
        try contents.write(to: file)
        return file
    }

    public func remove() { try? FileManager.default.removeItem(at: url) }
}

/// An input stream that fails after delivering its first bytes.
public final class FailingInputStream: InputStream {
    private var delivered = false
    private var failed = false

    public init() { super.init(data: Data()) }

    public override func open() {}
    public override func close() {}
    public override var hasBytesAvailable: Bool { !failed }
    public override var streamStatus: Stream.Status { failed ? .error : .open }
    public override var streamError: (any Error)? { failed ? CocoaError(.fileReadCorruptFile) : nil }

    public override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        if !delivered {
            delivered = true
            buffer[0] = 0x41
            return 1
        }
        failed = true
        return -1
    }
}

/// An input stream whose source never produces: `read` blocks until `release()`, then the
/// stream ends. A stand-in for a pipe whose producer stalls or a socket that goes quiet.
public final class StalledInputStream: InputStream {
    // `released` is a semaphore; the stream is read by one thread at a time.
    private let released = DispatchSemaphore(value: 0)

    public init() { super.init(data: Data()) }

    /// Ends the stall: the blocked `read` returns the end of the stream.
    public func release() { released.signal() }

    public override func open() {}
    public override func close() {}
    public override var hasBytesAvailable: Bool { true }
    public override var streamStatus: Stream.Status { .open }

    public override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        released.wait()
        released.signal()
        return 0
    }
}
