@testable import AFSession
import Foundation

/// libFuzzer target: any bytes as a file of a cache directory. A file the reader accepts must
/// be written back to the same bytes (nothing it took in was changed or dropped silently).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCacheFile(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = [UInt8](UnsafeRawBufferPointer(start: start, count: count))
    if let contents = CacheFile.decode(bytes), CacheFile.decode(CacheFile.encode(contents)) != contents {
        fatalError("a decoded cache file does not survive being written again")
    }
    return 0
}
