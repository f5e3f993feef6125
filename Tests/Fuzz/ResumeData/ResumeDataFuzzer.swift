@testable import AFSession
import Foundation

/// libFuzzer target: any bytes as resume data handed to `downloadTask(withResumeData:)`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzResumeData(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    _ = try? ResumeData(decoding: Data(bytes: start, count: count))
    return 0
}
