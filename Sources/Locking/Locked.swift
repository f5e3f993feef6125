#if canImport(Glibc)
import Glibc
#endif

/// The package's one lock wrapper: a value reachable only while a `pthread_mutex_t` is held.
///
/// Not `Synchronization.Mutex`: on Linux that is a futex lock built from atomics in an
/// uninstrumented library, which the thread sanitizer cannot see, so every guarded access is
/// reported as a race. The sanitizer intercepts `pthread_mutex_lock`, so races it reports
/// through this type are real.
package final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `value` is read and written only inside `withLock`, under `mutex`.
    private var value: Value
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    package init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value. `body` must not call back into the
    /// same lock: it is not recursive.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
