import AFSession
import Foundation
import XCTest

extension XCTestCase {
    /// A cache on `directory` (nothing kept in memory) once the previous cache on it is gone,
    /// waiting up to 5 seconds: the transport lets go of a finished task's delegate, which
    /// holds its cache, just after the task completed.
    func reopenedCache(at directory: URL) throws -> ResponseCache {
        let deadline = Date().addingTimeInterval(5)
        while true {
            do {
                return try ResponseCache(memoryCapacity: 0, diskCapacity: 1 << 20, directory: directory)
            } catch SessionError.cacheDirectoryInUse where Date() < deadline {
                usleep(1_000)
            }
        }
    }
}
