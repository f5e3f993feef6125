import Foundation

/// Drains an input stream into a file in bounded chunks.
enum BodyStreamCopier {
    static let chunkSize = 64 * 1024

    /// Copies every byte of `stream` to `fileURL`, replacing it; returns the byte count.
    static func copy(_ stream: InputStream, toFile fileURL: URL) throws -> UInt64 {
        guard FileManager.default.createFile(atPath: fileURL.path, contents: nil) else {
            throw RequestSerializationError.cannotWriteBody(fileURL, reason: "cannot create the file")
        }
        let handle: FileHandle
        do {
            handle = try FileHandle(forWritingTo: fileURL)
        } catch {
            throw RequestSerializationError.cannotWriteBody(fileURL, reason: String(describing: error))
        }
        defer { try? handle.close() }
        stream.open()
        defer { stream.close() }
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        var total: UInt64 = 0
        while true {
            let count = buffer.withUnsafeMutableBufferPointer { stream.read($0.baseAddress!, maxLength: chunkSize) }
            if count < 0 {
                throw stream.streamError ?? RequestSerializationError.bodySourceFailed(reason: "input stream read failed")
            }
            if count == 0 { return total }
            do {
                try handle.write(contentsOf: buffer[0..<count])
            } catch {
                throw RequestSerializationError.cannotWriteBody(fileURL, reason: String(describing: error))
            }
            total += UInt64(count)
        }
    }
}
