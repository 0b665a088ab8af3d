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

    /// Whether the sink is handed each live response (`addResponse(_:at:)`): only the HTML report, which shows the
    /// live body beside the stub, says yes, so that a run without it never keeps a body past its check.
    var wantsResponses: Bool { get }

    /// A live response, as it arrives and before its result is added.
    /// - Parameters:
    ///   - response: What the service answered (its body is the raw bytes: keep only what is needed).
    ///   - index: Its contract's position in the run.
    mutating func addResponse(_ response: HTTPResponse, at index: Int)

    /// Whether `finish` does nothing but write this sink's own file (JUnit, HTML, CTRF): it then runs on a thread of
    /// its own, beside the other sinks' (which print, one after the other), once the run is over.
    var finishesAlone: Bool { get }
}

extension ReportSink {
    /// Nothing to check up front.
    public func prepare() throws(ReportError) {}

    /// Formats written at the end ignore results as they come.
    public mutating func add(_ result: ContractResult, at index: Int) {}

    /// Most formats print the checked result only.
    public var wantsResponses: Bool { false }

    /// Most formats ignore live responses.
    public mutating func addResponse(_ response: HTTPResponse, at index: Int) {}

    /// Most formats print, or write where others print.
    public var finishesAlone: Bool { false }
}

/// What a format's sink is made from: the option's value, the environment, and where standard output goes.
public struct ReportDestination {
    /// The option's value (`reports/junit.xml`, `-` for standard output where the format allows it); `nil` for a
    /// flag, or a format the environment turned on without its option.
    public var path: String?
    /// The process environment (`GITHUB_STEP_SUMMARY`, `GITHUB_ACTIONS`).
    public var environment: [String: String]
    /// Where text for standard output goes (`--json -`, annotations, diagnostics), as soon as it is ready.
    public var standardOutput: (String) -> Void
    /// The format's own flags that were given (`junit-file-attributes`), by name without the dashes.
    public var flags: Set<String>

    /// - Parameters: as the properties.
    public init(
        path: String?, environment: [String: String] = [:], standardOutput: @escaping (String) -> Void = { _ in },
        flags: Set<String> = []
    ) {
        self.path = path
        self.environment = environment
        self.standardOutput = standardOutput
        self.flags = flags
    }
}

/// The report formats a run can write, each with its command-line option: one line here per format, and one file in
/// `Reporting/` for its sink. The CLI generates its options from this list; `selection(given:environment:)` says
/// which formats a run writes, the one home of that rule.
public struct ReportFormat: Sendable {
    /// What the option takes.
    public enum Value: Sendable, Equatable {
        /// `--junit FILE`.
        case file
        /// `--json FILE`, where `-` means standard output.
        case fileOrStandardOutput
        /// `--diagnostics`: a flag.
        case none
    }

    /// The option that asks for it, without the dashes (`junit` for `--junit FILE`).
    public var option: String
    /// What the option takes.
    public var value: Value
    /// The help line.
    public var help: String
    /// The path used when the option is not given, or `nil` when the format is written only on request.
    public var defaultPath: String?
    /// The environment variable that turns the format on without its option, and the value it needs (`nil`: any
    /// non-empty value): `GITHUB_ACTIONS=true` for annotations.
    public var environmentSwitch: (name: String, value: String?)?
    /// Switches that change only this format (`--junit-file-attributes`): each becomes an option of the commands
    /// that write reports, and reaches the sink in `ReportDestination.flags` when given.
    public var flags: [Flag]
    /// The sink that writes it.
    public var sink: @Sendable (ReportDestination) -> any ReportSink

    /// A switch of one format: its name without the dashes, and its help line.
    public struct Flag: Sendable {
        /// `junit-file-attributes` for `--junit-file-attributes`.
        public var name: String
        /// What it does, lower-case.
        public var help: String

        /// - Parameters: as the properties.
        public init(name: String, help: String) {
            self.name = name
            self.help = help
        }
    }

    /// - Parameters: as the properties.
    public init(
        option: String, value: Value = .file, help: String, defaultPath: String? = nil,
        environmentSwitch: (name: String, value: String?)? = nil, flags: [Flag] = [],
        sink: @escaping @Sendable (ReportDestination) -> any ReportSink
    ) {
        self.option = option
        self.value = value
        self.help = help
        self.defaultPath = defaultPath
        self.environmentSwitch = environmentSwitch
        self.flags = flags
        self.sink = sink
    }

    /// Every format, in the order their sinks run (and so the order of what they print at the end).
    public static let all: [ReportFormat] = [
        ReportFormat(
            option: "junit", help: "where to write the JUnit XML report", defaultPath: "reports/junit.xml",
            flags: [
                Flag(
                    name: "junit-file-attributes",
                    help: "add file and line (the target's name in its manifest) to each JUnit <testcase>, for GitLab, "
                        + "CircleCI and action-junit-report; the strict schemas (Jenkins xUnit junit-10, Ant) reject "
                        + "them")
            ],
            sink: {
                JUnitFile(
                    path: $0.path ?? "reports/junit.xml", isFileAttributes: $0.flags.contains("junit-file-attributes"))
            }),
        ReportFormat(
            option: "html", help: "write a self-contained HTML report (filters, stub and live bodies side by side)",
            sink: { HTMLReportFile(path: $0.path ?? "reports/tether.html") }),
        ReportFormat(
            option: "json", value: .fileOrStandardOutput,
            help: "write JSON lines: one object per result as it completes, then a summary (- for standard output; "
                + "the console then goes to standard error)",
            sink: { JSONLinesReport(destination: $0) }),
        ReportFormat(
            option: "ctrf",
            help: "write the Common Test Report Format (ctrf.io) JSON, for the CTRF GitHub reporter and dashboards",
            sink: { CTRFFile(path: $0.path ?? "reports/ctrf.json") }),
        ReportFormat(
            option: "summary",
            help: "write a Markdown summary of the drifted and failed targets (also appended to "
                + "$GITHUB_STEP_SUMMARY when it is set)",
            environmentSwitch: ("GITHUB_STEP_SUMMARY", nil), sink: { MarkdownSummary(destination: $0) }),
        ReportFormat(
            option: "github-annotations", value: .none,
            help: "print a GitHub ::error annotation per drifted or failed target, at its name in its manifest "
                + "(on when GITHUB_ACTIONS=true)",
            environmentSwitch: ("GITHUB_ACTIONS", "true"), sink: { GitHubAnnotations(destination: $0) }),
        ReportFormat(
            option: "diagnostics", value: .none,
            help: "print file:line:column: error: lines per drifted or failed target, for Xcode and editors (off by "
                + "default: on a terminal the console already lists every drift)",
            sink: { DiagnosticLines(destination: $0) }),
    ]

    /// The formats a run writes: each whose option was given (`given[option]`: its value, or `""` for a flag), each
    /// with a default path, and each that the environment turns on; in `all`'s order, with the path to use (`nil`
    /// for flags and for formats only the environment turned on).
    /// - Parameters:
    ///   - given: Option values by option name.
    ///   - environment: The process environment.
    /// - Returns: The formats and their paths.
    public static func selection(given: [String: String], environment: [String: String]) -> [(
        format: ReportFormat, path: String?
    )] {
        all.compactMap { format in
            if let value = given[format.option] { return (format, format.value == .none ? nil : value) }
            if let path = format.defaultPath { return (format, path) }
            if let (name, wanted) = format.environmentSwitch, let value = environment[name], !value.isEmpty,
                wanted == nil || wanted == value
            {
                return (format, nil)
            }
            return nil
        }
    }

    /// Whether `path` (the value of this format's option) means standard output.
    public func isStandardOutput(_ path: String?) -> Bool {
        value == .fileOrStandardOutput && path == "-"
    }
}
