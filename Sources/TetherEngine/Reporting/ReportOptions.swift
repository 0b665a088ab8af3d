/// What a run shows and writes: the report formats asked for (`--junit FILE`, `--json -`, `--diagnostics`, and their
/// own flags such as `--junit-file-attributes`), the console's detail and color, and `--list`.
public struct ReportOptions: Sendable, Equatable {
    /// Report paths by format option (`junit`), as given (`""` for a flag format); formats not given use their
    /// default path, or the environment turns them on (`ReportFormat.selection`).
    public var paths: [String: String]
    /// The formats' own flags that were given, by name (`junit-file-attributes`).
    public var flags: Set<String>
    /// `--quiet`, `--verbose` (the last one given wins).
    public var detail: ConsoleDetail
    /// `--color` (`true`), `--no-color` (`false`), or neither (`nil`: on for a terminal; see `ConsoleWriter.isColorOn`).
    public var color: Bool?
    /// `--list`: print the targets that would run and their requests, send nothing.
    public var isListOnly: Bool

    /// - Parameters: as the properties.
    public init(
        paths: [String: String] = [:], flags: Set<String> = [], detail: ConsoleDetail = .normal, color: Bool? = nil,
        isListOnly: Bool = false
    ) {
        self.paths = paths
        self.flags = flags
        self.detail = detail
        self.color = color
        self.isListOnly = isListOnly
    }

    /// Every report the run writes, with its path (`nil` for flags and for formats only the environment turned on).
    /// - Parameter environment: The process environment (`GITHUB_ACTIONS`, `GITHUB_STEP_SUMMARY`).
    /// - Returns: The formats, in `ReportFormat.all`'s order.
    public func selection(environment: [String: String]) -> [(format: ReportFormat, path: String?)] {
        ReportFormat.selection(given: paths, environment: environment)
    }

    /// Whether a report takes standard output (`--json -`): the console then goes to standard error.
    public var isStandardOutputTaken: Bool {
        ReportFormat.all.contains { $0.isStandardOutput(paths[$0.option]) }
    }
}
