/// The console report: one line per target, details indented under it, a closing count.
///
/// ```
/// PASS  GitHub.user  0.120s
/// DRIFT GitHub.repos  0.301s
///     status: expected 200, got 404
///     note: $.items[0].topics: key not in the stub
/// ERROR GitHub.search  1.002s  couldn't connect to server
///     GET http://127.0.0.1:8080/search?q=swift
/// SKIP  GitHub.upload  0.000s  networkError stub: cannot be checked against a service
/// 1 passed, 1 failed, 1 errors, 1 skipped
/// ```
/// The words come from the same builder as the JUnit report; free text is redacted and its control characters are
/// escaped, so a body excerpt cannot drive the terminal.
public enum ConsoleReport {
    /// The whole run: each result's lines, then `N passed, N failed, N errors, N skipped`, ending with a newline.
    /// - Parameters:
    ///   - report: the finished run.
    ///   - colour: whether to add ANSI colours (the CLI decides: a terminal, and no `NO_COLOR`).
    /// - Returns: the text to print.
    public static func render(_ report: RunReport, colour: Bool) -> String {
        let redactor = Redactor(report: report)
        var lines = report.results.map { line(for: $0, colour: colour, redactor: redactor) }
        lines.append(totalsLine(for: report.results, colour: colour))
        return lines.joined(separator: "\n") + "\n"
    }

    /// Turns results that arrive in any order into console text in contract order, as soon as each one's turn
    /// comes: the console shows progress, and its output stays the same from run to run.
    public struct Stream {
        private let colour: Bool
        private let redactor: Redactor
        private var next = 0
        private var waiting: [Int: ContractResult] = [:]

        /// - Parameters:
        ///   - contracts: Every contract of the run, for the redactor.
        ///   - colour: Whether to add ANSI colours.
        public init(contracts: [Contract], colour: Bool) {
            self.colour = colour
            self.redactor = Redactor(contracts: contracts)
        }

        /// Takes the result of contract `index`; returns the text now ready to print (possibly empty), each
        /// result's lines ending with a newline.
        public mutating func add(_ result: ContractResult, at index: Int) -> String {
            waiting[index] = result
            var text = ""
            while let ready = waiting.removeValue(forKey: next) {
                text += ConsoleReport.line(for: ready, colour: colour, redactor: redactor) + "\n"
                next += 1
            }
            return text
        }
    }

    /// One result's lines, without a trailing newline, so the CLI can stream results as they finish.
    ///
    /// The first line is the status word, `Service.target`, the time, and for an error or a skip the reason. Under a
    /// drift come its findings (drifts, then notes), under a pass its notes, under an error the request line.
    /// - Parameters:
    ///   - result: one contract's result.
    ///   - colour: whether to add ANSI colours.
    ///   - redactor: what to hide; `Redactor(contracts:runSecrets:)` for the run's contracts.
    /// - Returns: one or more lines joined by `\n`.
    public static func line(for result: ContractResult, colour: Bool, redactor: Redactor) -> String {
        let word = ReportText.statusWord(result.outcome)
        let padded = word + String(repeating: " ", count: max(1, 6 - word.count))
        var head = paint(padded, style(for: result.outcome), colour) + ReportText.qualifiedName(result.contract)
        head += "  " + ReportText.seconds(result.duration) + "s"
        if let reason = ReportText.reason(result.outcome, redactor: redactor) {
            head += "  " + indentingContinuations(reason)
        }
        var details: [String]
        switch result.outcome {
        case .drifted: details = ReportText.findingLines(result, redactor: redactor)
        case .passed: details = ReportText.noteLines(result, redactor: redactor)
        case .error: details = [ReportText.requestLine(result, redactor: redactor)]
        case .skipped: details = []
        }
        details = collapsingNotes(details)
        details = details.map { paint(indent + indentingContinuations($0), faint, colour && $0.hasPrefix("note: ")) }
        return ([head] + details).joined(separator: "\n")
    }

    /// The console shows a target's first few notes and counts the rest: a terminal is for finding the drift fast,
    /// and the JUnit report keeps every note.
    static let maximumNotesShown = 3

    private static func collapsingNotes(_ lines: [String]) -> [String] {
        let notes = lines.filter { $0.hasPrefix("note: ") }
        guard notes.count > maximumNotesShown else { return lines }
        var shown = 0
        var kept: [String] = []
        for line in lines {
            if line.hasPrefix("note: ") {
                shown += 1
                if shown > maximumNotesShown { continue }
            }
            kept.append(line)
        }
        let hidden = notes.count - maximumNotesShown
        kept.append("note: … and \(hidden) more note\(hidden == 1 ? "" : "s") (all of them are in the JUnit report)")
        return kept
    }

    /// The closing line alone: `N passed, N failed, N errors, N skipped` (failed = drifted), bold with colour.
    /// - Parameters:
    ///   - results: every result of the run.
    ///   - colour: whether to add ANSI colours.
    /// - Returns: the line, without a newline.
    public static func totalsLine(for results: [ContractResult], colour: Bool) -> String {
        paint(ReportText.totalsLine(results), bold, colour)
    }

    // MARK: Private

    private static let indent = "    "
    private static let reset = "\u{1B}[0m"
    private static let bold = "\u{1B}[1m"
    private static let faint = "\u{1B}[2m"

    private static func style(for outcome: Outcome) -> String {
        switch outcome {
        case .passed: "\u{1B}[32m"  // green
        case .drifted: "\u{1B}[1;31m"  // bold red
        case .error: "\u{1B}[1;35m"  // bold magenta
        case .skipped: "\u{1B}[33m"  // yellow
        }
    }

    private static func paint(_ text: String, _ style: String, _ isOn: Bool) -> String {
        isOn ? style + text + reset : text
    }

    /// Multi-line text (a diff, a body excerpt) keeps the block's indentation on every line.
    private static func indentingContinuations(_ text: String) -> String {
        guard text.contains(where: \.isNewline) else { return text }
        return text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
            .joined(separator: "\n" + indent + "  ")
    }
}
