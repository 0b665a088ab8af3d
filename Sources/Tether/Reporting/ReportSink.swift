/// A report format: where a run's results go as they come and once it ends (the console, a JUnit file; HTML,
/// Markdown, annotations next). Each format is one file in `Reporting/`, registered in `ReportFormat.all`.
///
/// The pipeline calls `prepare()` before anything is sent, so that a report that cannot be written stops the run
/// (exit 2) instead of making its exit code lie; then `add(_:at:)` once per result as it is known (in any order);
/// then `finish(_:)` once with the whole run.
public protocol ReportSink {
    /// Fails now if the report could not be written later (an unwritable path): nothing has been sent yet.
    /// - Throws: `ReportError` naming the path and the reason.
    func prepare() throws(ReportError)

    /// One result, as soon as it is known (results arrive in completion order, with their contract's index).
    /// - Parameters:
    ///   - result: The result.
    ///   - index: Its contract's position in the run.
    mutating func add(_ result: ContractResult, at index: Int)

    /// The whole run, once it is over.
    /// - Parameter report: Every result, in contract order.
    /// - Returns: A line for the console saying where the report went (`JUnit report: reports/junit.xml`), or `nil`.
    /// - Throws: `ReportError` when the report cannot be written.
    mutating func finish(_ report: RunReport) throws(ReportError) -> String?
}

extension ReportSink {
    /// Nothing to check up front.
    public func prepare() throws(ReportError) {}

    /// Formats written at the end ignore results as they come.
    public mutating func add(_ result: ContractResult, at index: Int) {}
}

/// The report formats a run can write to a file, each with its command-line option: one line here per format, and
/// one file in `Reporting/` for its sink.
public struct ReportFormat: Sendable {
    /// The option that asks for it, without the dashes (`junit` for `--junit FILE`).
    public var option: String
    /// The help line.
    public var help: String
    /// The path used when the option is not given, or `nil` when the format is written only on request.
    public var defaultPath: String?
    /// The sink that writes it to `path`.
    public var sink: @Sendable (_ path: String) -> any ReportSink

    /// Every file format, in the order their sinks run.
    public static let all: [ReportFormat] = [
        ReportFormat(
            option: "junit", help: "where to write the JUnit XML report", defaultPath: "reports/junit.xml",
            sink: { JUnitFile(path: $0) })
    ]
}
