import Foundation

/// The size of a regular file, or `nil` when there is none at the path (missing, a directory,
/// unreadable attributes). The one place file sizes are read, for multipart parts, uploads
/// from files and resume data.
package enum FileSize {
    package static func ofRegularFile(atPath path: String) -> UInt64? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              attributes[.type] as? FileAttributeType != .typeDirectory else { return nil }
        return (attributes[.size] as? NSNumber)?.uint64Value
    }
}
