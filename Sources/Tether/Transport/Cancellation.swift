import Foundation

/// A request to stop a run that another thread (a signal handler's queue, a test) raises while the run is in flight.
/// The transport stops sending, ends the transfers in flight, and answers every unfinished request with
/// `TransportError.interrupted`.
public final class Cancellation: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled = false

    /// A flag that is not raised yet.
    public init() {}

    /// Raises the flag; safe from any thread, any number of times.
    public func cancel() {
        lock.lock()
        cancelled = true
        lock.unlock()
    }

    /// Whether `cancel()` was called.
    public var isCancelled: Bool {
        lock.lock()
        defer { lock.unlock() }
        return cancelled
    }
}
