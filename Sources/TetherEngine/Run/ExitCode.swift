/// What `tether` exits with: the one type every command, the run report and the executable use.
///
/// - 0 every contract holds;
/// - 1 a drift that fails the gate;
/// - 2 a usage error, a broken contract or baseline file (nothing was sent), or a report that cannot be written (checked
///   before anything is sent; a full disk after the run);
/// - 3 no drift, but some targets could not be checked (or, with `--fail-on-flaky`, passed only after a retry);
/// - 4 nothing was checked;
/// - 128 + N stopped by signal N (130 for Ctrl-C, 143 for SIGTERM).
public struct ExitCode: RawRepresentable, Hashable, Sendable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    /// The process exit status.
    public var rawValue: Int32

    /// - Parameter rawValue: The process exit status.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// - Parameter value: The process exit status.
    public init(integerLiteral value: Int32) { self.rawValue = value }

    /// Every contract holds (and, for the commands that write, everything was written).
    public static let success: ExitCode = 0
    /// A drift that fails the gate.
    public static let drift: ExitCode = 1
    /// A usage error, a broken contract or baseline file (nothing was sent), or a report that cannot be written
    /// (checked before anything is sent; a full disk after the run).
    public static let usage: ExitCode = 2
    /// No drift, but some targets could not be checked, or (`--fail-on-flaky`) passed only after a retry.
    public static let notChecked: ExitCode = 3
    /// Nothing was checked: every target was skipped or could not be checked.
    public static let nothingChecked: ExitCode = 4

    /// The exit status of a process stopped by `signal`: 128 + its number (130 for SIGINT, 143 for SIGTERM).
    /// - Parameter signal: The signal's number.
    /// - Returns: The exit code.
    public static func stopped(by signal: Int32) -> ExitCode { ExitCode(rawValue: 128 + signal) }

    /// The number, as a shell prints it.
    public var description: String { String(rawValue) }
}
