/// How a finished download is put at its destination.
public struct DownloadOptions: OptionSet, Sendable {
    /// The options' bits, as `OptionSet` requires.
    public let rawValue: Int

    /// An options value from its raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Replace a regular file already at the destination (atomically). Without it an existing
    /// file makes the download fail with `SessionError.downloadFileFailed` and is left
    /// untouched. A character device or FIFO at the destination is written into either way; a
    /// symbolic link, directory, block device or socket is always refused.
    public static let replaceExistingFile = DownloadOptions(rawValue: 1 << 0)
    /// Create missing parent directories of the destination.
    public static let createIntermediateDirectories = DownloadOptions(rawValue: 1 << 1)
}
