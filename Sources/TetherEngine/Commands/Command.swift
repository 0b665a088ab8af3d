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

/// One of `tether`'s commands: a value holding its options (its own and the groups it shares with other commands),
/// read from the command line by its `options` table, checked by `validate()`, then `run(_:)`, which returns the
/// exit code. One file per command in `Commands/`; the executable lists them (`CommandLineTool`).
public protocol Command {
    /// Its names, usage line, summary and help text.
    static var configuration: CommandConfiguration { get }
    /// Every option it takes, each declared once (shared ones through `Option.group`), and its operands.
    static var options: OptionTable<Self> { get }
    /// The command with every option at its default.
    init()
    /// Checks what the options cannot check one by one (a required option, two that do not go together), and fills
    /// in defaults that depend on others (`PATH` defaults to `contracts`).
    /// - Throws: `UsageError` saying what to write instead.
    mutating func validate() throws(UsageError)
    /// Runs the command.
    /// - Parameter context: The environment, the standard streams and the stop signals.
    /// - Returns: The exit code.
    func run(_ context: CommandContext) -> ExitCode
    /// Whether it sends requests: the transport's set-up then starts on another core before its arguments are read.
    static var sendsRequests: Bool { get }
}

extension Command {
    /// Sends none.
    public static var sendsRequests: Bool { false }

    /// Nothing to check beyond the options themselves.
    public mutating func validate() throws(UsageError) {}

    /// Reads the arguments after the command's name.
    /// - Parameter arguments: The arguments.
    /// - Returns: The command, ready to run, or `nil` when `--help` asked for its help instead.
    /// - Throws: `UsageError` for an unknown option, a refused value, or what `validate()` refuses.
    public static func parse(_ arguments: ArraySlice<String>) throws(UsageError) -> Self? {
        switch try options.parse(arguments, into: Self()) {
        case .help:
            return nil
        case .parsed(var command):
            try command.validate()
            return command
        }
    }
}

/// What `tether --help` and `tether help NAME` say of a command.
public struct CommandConfiguration: Sendable {
    /// The first is the main one; all are accepted and offered by "did you mean".
    public var names: [String]
    /// `tether verify [PATH ...] [OPTIONS]`: the first line of its help and its row in `tether --help`.
    public var usage: String
    /// What it does, beside its usage line in `tether --help`.
    public var summary: String
    /// What `tether NAME --help` and `tether help NAME` print.
    public var help: @Sendable () -> String

    /// - Parameters: as the properties.
    public init(names: [String], usage: String, summary: String, help: @escaping @Sendable () -> String) {
        self.names = names
        self.usage = usage
        self.summary = summary
        self.help = help
    }
}

/// Where a command runs: the environment `${VAR}` and the CI switches come from, the standard streams, and how it
/// learns of Ctrl-C and SIGTERM. The executable makes the process's (`CommandContext.process()`); a test can make its
/// own.
public struct CommandContext: Sendable {
    /// The process environment.
    public var environment: [String: String]
    /// Writes to standard output at once (a CI log shows each result as it comes).
    public var write: @Sendable (String) -> Void
    /// Writes to standard error at once.
    public var writeError: @Sendable (String) -> Void
    /// Whether standard output is a terminal (color is on only there).
    public var isTerminal: Bool
    /// Calls its argument, on another thread, with the signal's number at the first Ctrl-C or SIGTERM.
    public var onStop: @Sendable (@escaping @Sendable (Int32) -> Void) -> Void
    /// Whether the process exits as soon as the command returns (the executable's): what a run made, its results
    /// and their contracts, is then left for the exit to free at once, not freed one value at a time (10,000 results
    /// took 13.5 M instructions to free). Off for a command run inside a longer process (a test).
    public var exitsAfterCommand: Bool

    /// - Parameters: as the properties.
    public init(
        environment: [String: String], write: @escaping @Sendable (String) -> Void,
        writeError: @escaping @Sendable (String) -> Void, isTerminal: Bool = false,
        onStop: @escaping @Sendable (@escaping @Sendable (Int32) -> Void) -> Void = { _ in },
        exitsAfterCommand: Bool = false
    ) {
        self.environment = environment
        self.write = write
        self.writeError = writeError
        self.isTerminal = isTerminal
        self.onStop = onStop
        self.exitsAfterCommand = exitsAfterCommand
    }

    /// Leaves `value` to the process's exit when it `exitsAfterCommand` (else does nothing, and the value is freed
    /// as usual).
    /// - Parameter value: What a command made and no longer needs.
    public func keepUntilExit(_ value: some Any) {
        guard exitsAfterCommand else { return }
        _ = Unmanaged.passRetained(KeptUntilExit(value))
    }

    /// The process's own: its environment, standard output and error written at once, and SIGINT and SIGTERM taken
    /// by `StopSignals` (call `StopSignals.block()` first, before any thread starts).
    /// - Returns: The context.
    public static func process() -> CommandContext {
        CommandContext(
            environment: ProcessEnvironment.variables(),
            write: { text in Self.writeAll(text, to: STDOUT_FILENO) },
            writeError: { text in Self.writeAll(text, to: STDERR_FILENO) },
            isTerminal: isatty(STDOUT_FILENO) == 1,
            onStop: StopSignals.handle, exitsAfterCommand: true)
    }

    /// One `write` of the string's own bytes, past stdio's buffer (a `Data` copy and `FileHandle` per line cost 2 %
    /// of a 2,000-target run); a closed or full output stops the writing.
    private static func writeAll(_ text: String, to descriptor: Int32) {
        guard !text.isEmpty else { return }
        var text = text
        _ = text.withUTF8 { ReportFile.writeAll(descriptor, UnsafeRawBufferPointer($0)) }
    }

    /// Prints `tether: error: MESSAGE` on standard error.
    /// - Parameter message: What went wrong and what to do.
    public func error(_ message: String) {
        writeError("tether: error: \(message)\n")
    }

    /// Prints an error before or around a run: every contract error (or error of an OpenAPI document) first, in the
    /// compiler's form that editors and CI annotations read, then the one-line message.
    /// - Parameter error: The error.
    /// - Returns: `ExitCode.usage`: nothing was sent, or a report could not be written.
    public func fail(_ error: RunError) -> ExitCode {
        let diagnostics = error.diagnostics
        if !diagnostics.isEmpty { writeError(diagnostics.joined(separator: "\n") + "\n") }
        self.error(error.description)
        return .usage
    }
}

extension CommandContext {
    /// Runs a command that writes files only once its run is over (`update`, `learn`): Ctrl-C and SIGTERM cancel the
    /// requests in flight and the command then writes nothing.
    /// - Parameters:
    ///   - cancellation: The run's cancellation, raised at the first signal.
    ///   - body: Runs the command; its argument says whether a signal came.
    /// - Returns: 128 + the signal when one came, else `body`'s exit code (2 for a `RunError`, printed).
    func runWritingNothingOnStop(
        cancelling cancellation: Cancellation, _ body: (_ isStopped: () -> Bool) throws(RunError) -> ExitCode
    ) -> ExitCode {
        let received = ReceivedSignal()
        let writeError = self.writeError
        onStop { signal in
            // Said first: once cancelled, the run may end and exit before a later write.
            writeError("tether: \(StopSignals.name(signal)): stopping; nothing is written\n")
            received.record(signal)
            cancellation.cancel()
        }
        do {
            let code = try body { received.value != nil }
            return received.value.map(ExitCode.stopped(by:)) ?? code
        } catch {
            return fail(error)
        }
    }
}

/// The signal that stopped a run, set from the signal thread and read when the run returns.
final class ReceivedSignal: @unchecked Sendable {
    private let lock = Lock()
    private var signal: Int32?

    /// Records `signal` (the first one wins).
    func record(_ signal: Int32) {
        lock.withLock { if self.signal == nil { self.signal = signal } }
    }

    /// The first signal received, if any.
    var value: Int32? { lock.withLock { signal } }
}

/// A value `CommandContext.keepUntilExit` never releases.
private final class KeptUntilExit {
    let value: Any
    init(_ value: Any) { self.value = value }
}
