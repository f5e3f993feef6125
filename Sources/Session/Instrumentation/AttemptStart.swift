/// Which attempt of a task is about to be sent (`TaskObserver.willSend(_:attempt:)`). Beyond
/// AFNetworking.
public struct AttemptStart: Sendable, Equatable {
    /// How many requests of the task were sent before this one (retries and redirects alike):
    /// 0 for the first. OpenTelemetry's `http.request.resend_count`.
    public var resendCount: Int
    /// The interceptors' attempt this request belongs to: 1 for the first, more after retries
    /// (`RetryContext.attempt`); its redirects share it.
    public var retryAttempt: Int
    /// Whether the request follows a redirect of the previous one.
    public var followsRedirect: Bool

    /// An attempt after `resendCount` requests sent, of retry attempt `retryAttempt`.
    public init(resendCount: Int, retryAttempt: Int, followsRedirect: Bool) {
        self.resendCount = resendCount
        self.retryAttempt = retryAttempt
        self.followsRedirect = followsRedirect
    }
}
