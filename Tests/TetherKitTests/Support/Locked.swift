import Foundation

/// A value behind an `NSLock`, shared by the threads of a test and its helpers (servers' handlers, timers).
///
/// What `Mutex` (Synchronization) does, with what macOS 13 has: `Mutex` needs macOS 15, the package supports macOS 13,
/// and a test target cannot raise its own platform (`PlatformFloorTests` checks that no file uses it).
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, which it may change, under the lock.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
