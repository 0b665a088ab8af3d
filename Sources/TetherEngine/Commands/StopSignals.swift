import Dispatch

#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Ctrl-C (SIGINT) and SIGTERM, taken on a thread of their own with `sigwait`.
///
/// `block()` runs first thing in `main`, before any thread exists, so every thread started later (libcurl's,
/// libmicrohttpd's, Dispatch's) inherits the block and no signal can land on a thread that would die of it or drop
/// it; the one waiting thread then receives each signal as a value. (A `DispatchSource` signal source on Linux reads
/// a `signalfd` too, but only the threads that block the signal leave it to that reader.) A mask inherited from the
/// parent process is overridden the same way.
public enum StopSignals {
    /// SIGINT and SIGTERM.
    static let handled: [Int32] = [SIGINT, SIGTERM]

    /// Blocks SIGINT and SIGTERM in this thread and so in every thread started after it.
    public static func block() {
        var set = signalSet()
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Starts the waiting thread: the first signal calls `onFirst` (on that thread); a second one ends the process at
    /// once with `128 + signal`, as a second Ctrl-C does in most tools.
    /// - Parameter onFirst: What to do on the first signal (raise a `Cancellation`, stop a server); it gets the
    ///   signal's number.
    public static func handle(_ onFirst: @escaping @Sendable (Int32) -> Void) {
        DeepStack.start(name: "tether signals") {
            var set = signalSet()
            var count = 0
            while true {
                var received: Int32 = 0
                guard sigwait(&set, &received) == 0 else { continue }
                count += 1
                if count == 1 {
                    onFirst(received)
                } else {
                    let text = "tether: \(name(received)) again: quitting at once, without a report\n"
                    _ = text.withCString { write(STDERR_FILENO, $0, strlen($0)) }
                    _exit(128 + received)
                }
            }
        }
    }

    /// `SIGINT` or `SIGTERM`, for messages.
    static func name(_ signal: Int32) -> String {
        signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "signal \(signal)"
    }

    private static func signalSet() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in handled { sigaddset(&set, signal) }
        return set
    }
}

/// For the commands that serve until stopped (`mock`, `serve`): made before the server starts, so that a signal
/// during start-up counts too; then waits for the first stop signal, stops the server and says so.
struct StopWaiter {
    private let stop = DispatchSemaphore(value: 0)
    private let received = ReceivedSignal()

    /// - Parameter context: Where the stop signals come from.
    init(_ context: CommandContext) {
        let (stop, received) = (stop, received)
        context.onStop { signal in
            received.record(signal)
            stop.signal()
        }
    }

    /// Waits for a stop signal, stops `server`, says `tether: SIGINT: WHAT` on standard error.
    /// - Returns: 128 + the signal.
    func serveUntilStopped(_ server: MockServer, then what: String, context: CommandContext) -> ExitCode {
        stop.wait()
        server.stop()
        let signal = received.value ?? SIGINT
        context.writeError("tether: \(StopSignals.name(signal)): \(what)\n")
        return .stopped(by: signal)
    }
}
