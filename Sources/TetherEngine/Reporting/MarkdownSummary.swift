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

/// A Markdown summary for a pull-request comment or a GitHub job summary (`--summary FILE`; appended to
/// `$GITHUB_STEP_SUMMARY` whenever that is set): the totals, then a table of the drifted and failed targets with
/// their first findings.
///
/// Short by construction: at most `maxRows` rows (then `…and N more`), `maxFindings` findings per row, each cell cut
/// to `maxCellBytes`; so the summary stays far under GitHub's 1 MiB step-summary limit whatever the run. Cells are
/// redacted and escaped (`|`, `<`, `&`, line breaks, backticks, emphasis and link brackets), so a live value cannot
/// break the table, inject markup or make a link.
public struct MarkdownSummary: ReportSink {
    /// Rows of the table at most.
    static let maxRows = 25
    /// Findings listed per target at most.
    static let maxFindings = 3
    /// Bytes of one cell at most.
    static let maxCellBytes = 400
    /// GitHub shows this many annotations of one kind per step.
    static let annotationsShown = 10

    /// `--summary FILE`, if given.
    public var path: String?
    /// `$GITHUB_STEP_SUMMARY`, if set: the summary is appended to it.
    public var stepSummaryPath: String?
    /// Whether GitHub annotations are printed too (`GITHUB_ACTIONS=true`): the summary then says how many there are.
    public var isOnGitHubActions: Bool

    /// - Parameter destination: the path of `--summary` and the environment.
    public init(destination: ReportDestination) {
        path = destination.path
        let step = destination.environment["GITHUB_STEP_SUMMARY"] ?? ""
        stepSummaryPath = step.isEmpty ? nil : step
        isOnGitHubActions = destination.environment["GITHUB_ACTIONS"] == "true"
    }

    /// Checks that both files can be written, before anything is sent.
    public func prepare() throws(ReportError) {
        if let path { try ReportFile.checkWritable(path) }
        if let stepSummaryPath { try ReportFile.checkWritable(stepSummaryPath) }
    }

    /// Writes the summary, and appends it to the step summary.
    public mutating func finish(_ report: RunReport) throws(ReportError) -> String? {
        let text = Self.markdown(for: report, isOnGitHubActions: isOnGitHubActions)
        if let path { try ReportFile.write(Data(text.utf8), to: path, durability: .report) }
        if let stepSummaryPath { try Self.append(text, to: stepSummaryPath) }
        return path.map { "Markdown summary: \($0)" }
    }

    /// The summary's Markdown.
    /// - Parameters:
    ///   - report: the finished run.
    ///   - isOnGitHubActions: say how many annotations there are, when GitHub shows only the first 10.
    /// - Returns: the text, ending with a newline.
    public static func markdown(for report: RunReport, isOnGitHubActions: Bool = false) -> String {
        let redactor = Redactor(report: report)
        let counts = report.counts
        let mark = counts.drifted > 0 ? "❌" : counts.errors > 0 || report.isNothingChecked ? "⚠️" : "✅"
        var lines = [
            "### \(mark) Tether: " + ReportText.totalsLine(report.results) + " in "
                + ReportText.seconds(report.duration) + "s",
            "",
        ]
        if let reason = report.nothingCheckedReason { lines += [reason, ""] }
        if !report.specCoverage.isEmpty { lines += report.specCoverage.map { cell($0.line) } + [""] }
        if let matrix = VersionMatrix(report) {
            lines += matrix.markdownLines(maxRows: maxRows) { cell($0, isCode: true) } + [""]
        }
        let problems = ReportText.problems(report)
        guard !problems.isEmpty else {
            lines.append("Every checked contract holds.")
            return lines.joined(separator: "\n") + "\n"
        }
        // Against an OpenAPI document, which side drifted gets a column of its own.
        let hasCulprits = problems.contains { $0.findings.contains { $0.culprit != nil } }
        lines +=
            hasCulprits
            ? ["| Target | Outcome | Culprit | First findings |", "| --- | --- | --- | --- |"]
            : ["| Target | Outcome | First findings |", "| --- | --- | --- |"]
        for result in problems.prefix(maxRows) {
            let findings: [String]
            if result.outcome == .drifted {
                let drifts = result.findings.filter(\.isDrift)
                // The path in a code span (literal), the message escaped.
                findings =
                    drifts.prefix(maxFindings).map { drift in
                        "`" + cell(ReportText.clean(drift.path, redactor: redactor), isCode: true) + "`: "
                            + cell(ReportText.clean(drift.message, redactor: redactor))
                    }
                    + (drifts.count > maxFindings ? ["…and \(drifts.count - maxFindings) more"] : [])
            } else {
                findings = [
                    cell(ReportText.reason(result.outcome, redactor: redactor).map(ReportText.firstLine) ?? "")
                ]
            }
            let target = cell(ReportText.qualifiedName(result.contract), isCode: true)
            let cells = findings.joined(separator: "<br>")
            var culprits: [String] = []
            for finding in result.findings where finding.isDrift {
                if let words = finding.culprit?.words, !culprits.contains(words) { culprits.append(words) }
            }
            let culprit = hasCulprits ? culprits.joined(separator: ", ") + " | " : ""
            lines.append("| `\(target)` | \(ReportText.statusWord(result.outcome)) | \(culprit)\(cells) |")
        }
        if problems.count > maxRows {
            lines += ["", "…and \(problems.count - maxRows) more drifted or failed targets (see the JUnit report)."]
        }
        if isOnGitHubActions, problems.count > annotationsShown {
            lines += [
                "",
                "\(problems.count) targets drifted or failed: GitHub shows the first \(annotationsShown) "
                    + "annotations (drifts first).",
            ]
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `text` safe inside a table cell: one line, no `|` or markup, cut to `maxCellBytes`. In a code span
    /// (`isCode`) only `|`, backticks and line breaks are replaced: Markdown shows the rest literally there.
    static func cell(_ text: String, isCode: Bool = false) -> String {
        var escaped = ""
        let source = ReportText.truncated(text, maxBytes: maxCellBytes)
        for (index, character) in zip(source.indices, source) {
            if isCode, !"|`\n\r\r\n\t".contains(character) {
                escaped.append(character)
                continue
            }
            switch character {
            // No autolink (GitHub's `https://…`, `www.…`): an escaped `:` or `.` reads the same and links nothing.
            case ":" where source[source.index(after: index)...].hasPrefix("//"): escaped += "\\:"
            case "." where escaped.suffix(3).lowercased() == "www": escaped += "\\."
            case "|": escaped += "\\|"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "&": escaped += "&amp;"
            case "`": escaped += "'"
            case "*", "_", "~": escaped += "\\" + String(character)  // no emphasis or strike-through
            case "[": escaped += "&#91;"  // no link: shown as `[`, never starts `[text](url)`
            case "\\": escaped += "\\\\"
            case "\n", "\r", "\r\n", "\t": escaped += " "
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// Appends `text` to `path` (created when missing), as GitHub asks for `$GITHUB_STEP_SUMMARY`.
    private static func append(_ text: String, to path: String) throws(ReportError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw .write(path: path, reason: "cannot open to append: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var text = text
        guard text.withUTF8({ ReportFile.writeAll(descriptor, UnsafeRawBufferPointer($0)) }) else {
            throw .write(path: path, reason: "cannot append: \(String(cString: strerror(errno)))")
        }
    }
}
