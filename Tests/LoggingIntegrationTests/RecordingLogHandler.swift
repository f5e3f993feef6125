#if Logging
import AFLocking
import Logging

/// A swift-log handler keeping every line it is given, its own metadata merged in.
struct RecordingLogHandler: LogHandler {
    struct Line: Equatable {
        var level: Logger.Level
        var message: String
        var metadata: Logger.Metadata

        /// The line as text: its message and every metadata value, nested ones flattened.
        var text: String { ([message] + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }).joined(separator: " ") }
    }

    let lines: Locked<[Line]>
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        lines.withLock { $0.append(Line(level: event.level, message: "\(event.message)", metadata: merged)) }
    }

    /// A logger at `trace` recording into `lines`.
    static func logger(recordingInto lines: Locked<[Line]>) -> Logger {
        Logger(label: "test") { _ in RecordingLogHandler(lines: lines) }
    }
}
#endif
