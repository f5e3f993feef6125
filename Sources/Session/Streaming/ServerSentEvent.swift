/// One server-sent event, as the WHATWG HTML standard's event-stream parser dispatches it.
/// Beyond AFNetworking.
public struct ServerSentEvent: Sendable, Equatable {
    /// The event's type: the last `event` field of its block, or `"message"` when it had none.
    public var event: String
    /// The `data` fields of its block, joined by LF.
    public var data: String
    /// The last event ID the stream set (an `id` field of this block or an earlier one; empty
    /// when none did): what a reconnection sends as `Last-Event-ID`.
    public var id: String

    /// An event of type `event` (default `"message"`) with `data` and last event ID `id`.
    public init(event: String = "message", data: String, id: String = "") {
        self.event = event
        self.data = data
        self.id = id
    }
}
