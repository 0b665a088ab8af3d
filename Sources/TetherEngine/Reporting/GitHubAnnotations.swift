/// GitHub Actions annotations (on with `GITHUB_ACTIONS=true`, or `--github-annotations`): one
/// `::error file=…,line=…,col=…,title=…::message` workflow command on standard output per drifted or failed target,
/// pointing at the target's `name` in its manifest, so the pull request shows it on that line.
///
/// GitHub shows 10 error annotations per step: drifts come first (`ReportText.problems`), at most
/// `GitHubAnnotations.limit` are printed, and a closing line (and the Markdown summary) says how many there are.
/// Data is escaped as GitHub's toolkit escapes it (`%`, CR, LF; in properties also `:` and `,`).
public struct GitHubAnnotations: ReportSink {
    /// Annotations printed at most: what GitHub shows of one kind in one step.
    public static let limit = 10
    private let standardOutput: (String) -> Void

    /// - Parameter destination: where standard output goes.
    public init(destination: ReportDestination) {
        standardOutput = destination.standardOutput
    }

    /// Prints the annotations.
    public mutating func finish(_ report: RunReport) throws(ReportError) -> String? {
        standardOutput(Self.commands(for: report))
        return nil
    }

    /// The workflow commands for `report`, each ending with a newline; empty when nothing drifted or failed.
    public static func commands(for report: RunReport) -> String {
        let redactor = Redactor(report: report)
        let problems = ReportText.problems(report)
        var lines = problems.prefix(limit).map { result in
            var properties: [(String, String)] = []
            if let place = result.contract.declaration {
                properties += [
                    ("file", ReportText.clean(place.file, redactor: redactor)), ("line", String(place.line)),
                    ("col", String(place.column)),
                ]
            }
            let verb = result.outcome == .drifted ? "drifted" : "could not be checked"
            properties.append(("title", "\(ReportText.qualifiedName(result.contract)) \(verb)"))
            let property = properties.map { "\($0)=\(escapedProperty($1))" }.joined(separator: ",")
            return "::error \(property)::\(escapedData(message(for: result, redactor: redactor)))"
        }
        if problems.count > limit {
            lines.append(
                "tether: \(problems.count) targets drifted or failed; annotations for the first \(limit) (GitHub "
                    + "shows \(limit) per step), every one in the job summary and the JUnit report")
        }
        return lines.map { $0 + "\n" }.joined()
    }

    /// A drift's findings (up to five, then how many more) and the request line; an error's reason.
    static func message(for result: ContractResult, redactor: Redactor) -> String {
        let request = ReportText.requestLine(result, redactor: redactor)
        guard result.outcome == .drifted else {
            return (ReportText.reason(result.outcome, redactor: redactor) ?? "") + "\n" + request
        }
        let drifts = result.findings.filter(\.isDrift).map { ReportText.clean($0.description, redactor: redactor) }
        let shown = drifts.prefix(5) + (drifts.count > 5 ? ["…and \(drifts.count - 5) more drifts"] : [])
        return (shown + [request]).joined(separator: "\n")
    }

    /// GitHub's `escapeData`: `%`, CR and LF as `%25`, `%0D`, `%0A`.
    static func escapedData(_ text: String) -> String {
        text.replacingText("%", with: "%25").replacingText("\r", with: "%0D")
            .replacingText("\n", with: "%0A")
    }

    /// GitHub's `escapeProperty`: `escapedData`, and `:` and `,` as `%3A`, `%2C`.
    static func escapedProperty(_ text: String) -> String {
        escapedData(text).replacingText(":", with: "%3A").replacingText(",", with: "%2C")
    }
}
