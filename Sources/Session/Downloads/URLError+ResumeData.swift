import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `userInfo` key under which a failed download's error carries the data to resume it
/// with, as on Apple platforms (swift-corelibs-foundation does not declare it).
public let NSURLSessionDownloadTaskResumeData = "NSURLSessionDownloadTaskResumeData"

extension URLError {
    /// The data to resume the failed download with (`downloadTask(withResumeData:...)`), when
    /// it failed after receiving bytes of a resource that can be resumed; as on Apple platforms.
    public var downloadTaskResumeData: Data? {
        userInfo[NSURLSessionDownloadTaskResumeData] as? Data
    }
}
