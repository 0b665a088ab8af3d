#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A mutual-exclusion lock, `NSLock`'s `lock`, `unlock` and `withLock` on a POSIX mutex.
///
/// Ours, not `NSLock`: on Linux `NSLock` is swift-corelibs-foundation's, and one use of it links that library with
/// CoreFoundation into the executable, whose every start then pays their relocations and set-up (bench/HISTORY.md).
/// Not `Synchronization.Mutex`, which needs macOS 15.
package final class Lock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    package init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    package func lock() { pthread_mutex_lock(mutex) }

    package func unlock() { pthread_mutex_unlock(mutex) }

    /// `body`'s result, with the lock held while it runs.
    package func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

/// A lock with a condition to wait on: `NSCondition`'s `lock`, `unlock`, `wait`, `wait(until:)` and `broadcast` on a
/// POSIX mutex and condition variable (`Lock` says why ours).
package final class Condition: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    package init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    package func lock() { pthread_mutex_lock(mutex) }

    package func unlock() { pthread_mutex_unlock(mutex) }

    /// Waits, the lock held, until another thread broadcasts (or the system wakes it: callers test their condition
    /// again).
    package func wait() { pthread_cond_wait(condition, mutex) }

    /// As `wait()`, up to `deadline` (the system's clock); false once the deadline has passed.
    package func wait(until deadline: Date) -> Bool {
        let seconds = max(0, deadline.timeIntervalSince1970)
        let whole = seconds.rounded(.down)
        var time = timespec()
        time.tv_sec = .init(whole)
        time.tv_nsec = .init(min(999_999_999, (seconds - whole) * 1_000_000_000))
        return pthread_cond_timedwait(condition, mutex, &time) == 0
    }

    /// Wakes every thread that waits.
    package func broadcast() { pthread_cond_broadcast(condition) }
}
