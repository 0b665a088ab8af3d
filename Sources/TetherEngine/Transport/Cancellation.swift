#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A request to stop a run that another thread (a signal handler's queue, a test) raises while the run is in flight.
/// The transport stops sending, ends the transfers in flight, and answers every unfinished request with
/// `TransportError.interrupted`.
public final class Cancellation: @unchecked Sendable {
    private let lock = Lock()
    private var cancelled = false
    private var wakers: [Int: @Sendable () -> Void] = [:]
    private var nextWaker = 0

    /// A flag that is not raised yet.
    public init() {}

    /// Raises the flag; safe from any thread, any number of times.
    public func cancel() {
        lock.lock()
        defer { lock.unlock() }
        cancelled = true
        for waker in wakers.values { waker() }
    }

    /// Whether `cancel()` was called.
    public var isCancelled: Bool {
        lock.lock()
        defer { lock.unlock() }
        return cancelled
    }

    /// Calls `waker` on `cancel()` (under the lock, so it never runs after `unregister` returned): the transport
    /// wakes its wait for the network with it. Returns the token for `unregister`.
    func register(_ waker: @escaping @Sendable () -> Void) -> Int {
        lock.lock()
        defer { lock.unlock() }
        nextWaker += 1
        wakers[nextWaker] = waker
        return nextWaker
    }

    /// Forgets a waker; once this returns, `cancel()` no longer calls it.
    func unregister(_ token: Int) {
        lock.lock()
        defer { lock.unlock() }
        wakers[token] = nil
    }
}
