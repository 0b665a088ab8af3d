/// How much the console says about each target: `--quiet`, the default, `--verbose`.
public enum ConsoleDetail: Sendable, Equatable {
    /// Only drifts and errors (with their details), then the closing lines.
    case quiet
    /// One line per target; a drift lists its findings and notes, an error its request line; a pass counts its
    /// notes (`(4 notes)`) without listing them.
    case normal
    /// As `normal`, and every target's request line and all of its notes, none collapsed.
    case verbose
}

/// The console report: one line per target, details indented under it, a closing count.
///
/// ```
/// PASS  GitHub.user  0.120s  (4 notes)
/// DRIFT GitHub.repos  0.301s
///     status: expected 200, got 404
///     note: $.items[0].topics: key not in the stub
/// ERROR GitHub.search  1.002s  couldn't connect to server
///     GET http://127.0.0.1:8080/search?q=swift
/// SKIP  GitHub.upload  0.000s  networkError stub: cannot be checked against a service
/// 1 passed, 1 failed, 1 error, 1 skipped in 1.302s
/// drifted or not checked:
///   DRIFT GitHub.repos  status: expected 200, got 404 (and 1 more drift)
///   ERROR GitHub.search  couldn't connect to server
/// ```
/// The words come from the same builder as the JUnit report; free text is redacted and its control characters are
/// escaped, so a body excerpt cannot drive the terminal.
public enum ConsoleWriter {
    /// The whole run: each result's lines, then the closing lines (`closing(for:color:)`), ending with a newline.
    /// - Parameters:
    ///   - report: the finished run.
    ///   - color: whether to add ANSI colors (the CLI decides: see `isColorOn`).
    /// - Returns: the text to print.
    ///   - detail: how much to say about each target.
    public static func render(_ report: RunReport, color: Bool, detail: ConsoleDetail = .normal) -> String {
        render(report, color: color, detail: detail, redactor: Redactor(report: report))
    }

    /// `render(_:color:detail:)` with the redactor the caller has made for `report` already (`Redactor(report:)`):
    /// for callers that render one report several times, as the console fuzzer does.
    @_spi(Testing) public static func render(
        _ report: RunReport, color: Bool, detail: ConsoleDetail = .normal, redactor: Redactor
    ) -> String {
        let lines = report.results.compactMap { result in
            line(for: result, color: color, redactor: redactor, detail: detail).map { $0 + "\n" }
        }
        return lines.joined() + closing(for: report, color: color, detail: detail, redactor: redactor)
    }

    /// What ends a run, so a long log needs no scrolling back: `N passed, N failed, N errors, N skipped in 1.234s`
    /// (the run's own `duration`, so a test can fix it), `nothing was checked: …` when no target passed or drifted,
    /// then one line for each target that drifted or could not be checked, with its first finding or its reason. A run
    /// at several git refs adds its versions × targets matrix (`VersionMatrix`): every row with `.verbose`, else the
    /// rows of the targets that drifted or failed at some version.
    /// - Parameters:
    ///   - report: the finished run.
    ///   - color: whether to add ANSI colors.
    ///   - detail: how much was said about each target.
    /// - Returns: the lines, each ending with a newline.
    public static func closing(for report: RunReport, color: Bool, detail: ConsoleDetail = .normal) -> String {
        closing(for: report, color: color, detail: detail, makingRedactor: { Redactor(report: report) })
    }

    /// `closing(for:color:detail:)` with the redactor the caller has made for `report` already.
    @_spi(Testing) public static func closing(
        for report: RunReport, color: Bool, detail: ConsoleDetail = .normal, redactor: Redactor
    ) -> String {
        closing(for: report, color: color, detail: detail, makingRedactor: { redactor })
    }

    /// The redactor is made only for the lines that need one (steps, drifts, errors, fixed drifts): a run where
    /// every target passed has none to make (10,000 contracts walked for their secrets, 1.8 ms).
    private static func closing(
        for report: RunReport, color: Bool, detail: ConsoleDetail, makingRedactor: () -> Redactor
    ) -> String {
        var made: Redactor?
        func redactor() -> Redactor {
            if let made { return made }
            let redactor = makingRedactor()
            made = redactor
            return redactor
        }
        let counts = OutcomeCounts(report.results)
        var lines = [
            paint(
                ReportText.totalsLine(counts) + ReportText.gateTotals(counts) + " in "
                    + ReportText.seconds(report.duration) + "s", bold, color
            )
        ]
        if !report.results.isEmpty { lines.append(report.coverage.line) }
        lines += report.specCoverage.map(\.line)
        if let reason = report.nothingCheckedReason { lines.append(reason) }
        if let matrix = VersionMatrix(report) { lines += matrix.consoleLines(everyRow: detail == .verbose) }
        if !report.steps.isEmpty {
            lines += ["service steps (once per run):"]
            lines += report.steps.map { "  \($0.service): " + ReportText.stepLine($0, redactor: redactor()) }
        }
        let recap = report.results.compactMap { result in
            ReportText.recapSummary(result, redactor: redactor()).map { summary in
                let marks = ReportText.marks(result).filter { !$0.hasPrefix("flaky") }
                return "  " + paddedWord(result.outcome, color: color) + ReportText.qualifiedName(result.contract)
                    + (marks.isEmpty ? "" : "  [" + marks.joined(separator: "; ") + "]") + "  " + summary
            }
        }
        if !recap.isEmpty { lines += ["drifted or not checked:"] + recap }
        if !report.fixed.isEmpty {
            lines +=
                ["fixed since the baseline (--update-baseline prunes them):"]
                + report.fixed.map { "  FIXED " + ReportText.fixedLine($0, redactor: redactor()) }
        }
        let flaky = report.results.filter { $0.isFlaky }
        if !flaky.isEmpty {
            lines +=
                ["flaky (passed only after a retry):"]
                + flaky.map {
                    "  FLAKY " + ReportText.qualifiedName($0.contract) + "  " + (ReportText.marks($0).first ?? "")
                }
        }
        // Each line and its newline, appended: the generic `joined(separator:)` searched every conformance of the
        // binary at its first use in a process (0.09 ms of a one-contract run).
        var text = ""
        for line in lines {
            text += line
            text += "\n"
        }
        return text
    }

    /// Whether the console gets ANSI colors: never with `NO_COLOR` set (not empty), whatever else says; else as
    /// `--color` / `--no-color` say; else only on a terminal that is not `TERM=dumb`.
    /// - Parameters:
    ///   - flag: `true` for `--color`, `false` for `--no-color`, `nil` for neither.
    ///   - environment: the process environment (`NO_COLOR`, `TERM`).
    ///   - isTerminal: whether standard output is a terminal.
    /// - Returns: whether to color.
    public static func isColorOn(flag: Bool?, environment: [String: String], isTerminal: Bool) -> Bool {
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
        if let flag { return flag }
        return isTerminal && environment["TERM"] != "dumb"
    }

    /// Turns results that arrive in any order into console text in contract order, as soon as each one's turn
    /// comes: the console shows progress, and its output stays the same from run to run.
    public struct Stream {
        private let color: Bool
        private let detail: ConsoleDetail
        private var redactor: Redactor
        /// What `redactor` hides, when this stream made it: a secret the run learns (a sign-in's token, a step's
        /// captured secret) arrives in a result's contract, and the redactor is made again with it.
        private var secrets: [String]?
        private var known: Set<String> = []
        private var next = 0
        /// The results come before their turn, by index (nil when none is waiting): an array, not a dictionary (a
        /// 5-tag run's later versions all wait for the first version's last result: 8,000 entries, 840 instructions
        /// each in and out of a dictionary). It grows to the highest index that came early, 8 bytes an entry.
        private var waiting: [ContractResult?] = []
        private var waitingCount = 0

        /// - Parameters:
        ///   - contracts: Every contract of the run, for the redactor.
        ///   - color: Whether to add ANSI colors.
        ///   - detail: How much to say about each target.
        public init(contracts: [Contract], color: Bool, detail: ConsoleDetail = .normal) {
            let secrets = Redactor.secrets(contracts: contracts, runSecrets: [])
            self.init(redactor: Redactor(secrets: secrets), color: color, detail: detail)
            self.secrets = secrets
            known = Set(secrets)
        }

        /// A stream that redacts with `redactor` (made by the caller for the run's contracts).
        @_spi(Testing) public init(redactor: Redactor, color: Bool, detail: ConsoleDetail = .normal) {
            self.color = color
            self.detail = detail
            self.redactor = redactor
        }

        /// Takes the result of contract `index`; returns the text now ready to print (possibly empty), each
        /// result's lines ending with a newline.
        public mutating func add(_ result: ContractResult, at index: Int) -> String {
            if var secrets, !result.contract.secrets.isEmpty {
                let learned = result.contract.secrets.filter {
                    $0.count >= Redactor.minimumSecretLength && !known.contains($0)
                }
                if !learned.isEmpty {
                    secrets += learned
                    known.formUnion(learned)
                    redactor = Redactor(secrets: secrets)
                    self.secrets = secrets
                }
            }
            if index == next && waitingCount == 0 {  // the usual order: the result is not stored to be taken again
                next += 1
                return ConsoleWriter.terminatedLine(for: result, color: color, redactor: redactor, detail: detail)
                    ?? ""
            }
            if index >= waiting.count {
                waiting.append(contentsOf: repeatElement(nil, count: index + 1 - waiting.count))
            }
            waiting[index] = result
            waitingCount += 1
            let first = next
            while next < waiting.count, waiting[next] != nil { next += 1 }
            let due = first..<next
            let text = Self.lines(of: waiting, due, color: color, redactor: redactor, detail: detail)
            for position in due { waiting[position] = nil }
            waitingCount -= due.count
            return text
        }

        /// The lines of the results `due`, in order. Written on both cores when many come due at once: a
        /// 5-version run's later versions all wait for the first version's last result, which comes near the run's
        /// end, and 8,000 lines written then on one core were 3 ms while the other had nothing to do.
        private static func lines(
            of waiting: [ContractResult?], _ due: Range<Int>, color: Bool, redactor: Redactor, detail: ConsoleDetail
        ) -> String {
            let parts = due.count >= linesWrittenInParts ? 2 : 1
            let partLength = (due.count + parts - 1) / parts
            func write(_ part: Int) -> String {
                var text = ""
                let start = due.lowerBound + part * partLength
                for position in start..<min(due.upperBound, start + partLength) {
                    if let lines = ConsoleWriter.terminatedLine(
                        for: waiting[position]!, color: color, redactor: redactor, detail: detail)
                    {
                        text += lines
                    }
                }
                return text
            }
            return parts == 1
                ? write(0) : DeepStack.concurrentMap(name: "tether-console", iterations: parts, write).joined()
        }

        /// How many lines coming due at once are written in two parts, on both cores.
        static let linesWrittenInParts = 2_000
    }

    /// `line(for:)` with its newline. A passed target with nothing to mark, in normal detail (nearly every line of
    /// a run), is written at once in one string: its head, time, note count and newline were four strings (0.6 µs a
    /// line, 6 ms of a 5-tag run's 10,000).
    static func terminatedLine(
        for result: ContractResult, color: Bool, redactor: Redactor, detail: ConsoleDetail
    ) -> String? {
        guard detail == .normal, result.outcome == .passed, result.attempts <= 1, !result.isPending,
            let line = passedLine(result, color: color)
        else { return line(for: result, color: color, redactor: redactor, detail: detail).map { $0 + "\n" } }
        return line
    }

    /// `PASS  Service.target  0.012s  (2 notes)` and its newline, as `line(for:)` writes a passed target with no
    /// marks in normal detail; nil for a name that is not contiguous UTF-8 (bridged), which `line(for:)` takes.
    private static func passedLine(_ result: ContractResult, color: Bool) -> String? {
        let service = ReportText.escapingControls(result.contract.service)
        let name = ReportText.escapingControls(result.contract.name)
        guard service.isContiguousUTF8, name.isContiguousUTF8 else { return nil }
        let notes = result.findings.reduce(0) { $1.isDrift ? $0 : $0 + 1 }
        let word = paddedWord(.passed, color: color)
        let count = notes == 1 ? "  (1 note)" : notes > 1 ? "  (\(notes) notes)" : ""
        let (start, end) = notes > 0 && color ? (faint, reset) : ("", "")
        let total =
            word.utf8.count + service.utf8.count + name.utf8.count + start.utf8.count + count.utf8.count
            + end.utf8.count + ReportText.maximumSecondsLength + 6  // ".", two spaces, "s" and the newline
        return String(unsafeUninitializedCapacity: total) { buffer in
            var at = copy(word, into: buffer, at: 0)
            at = copy(service, into: buffer, at: at)
            at = copy(".", into: buffer, at: at)
            at = copy(name, into: buffer, at: at)
            at = copy("  ", into: buffer, at: at)
            at += ReportText.writeSeconds(result.duration, into: UnsafeMutableBufferPointer(rebasing: buffer[at...]))
            buffer[at] = UInt8(ascii: "s")
            at = copy(start, into: buffer, at: at + 1)
            at = copy(count, into: buffer, at: at)
            at = copy(end, into: buffer, at: at)
            return copy("\n", into: buffer, at: at)
        }
    }

    /// Copies `part`'s bytes (contiguous: native, or checked by the caller) into `buffer` at `at`; returns where
    /// they end.
    private static func copy(_ part: String, into buffer: UnsafeMutableBufferPointer<UInt8>, at: Int) -> Int {
        part.utf8.withContiguousStorageIfAvailable { bytes in
            guard let source = bytes.baseAddress else { return at }
            (buffer.baseAddress! + at).update(from: source, count: bytes.count)
            return at + bytes.count
        } ?? at
    }

    /// One result's lines, without a trailing newline, so the CLI can stream results as they finish; `nil` when
    /// `detail` leaves the result out (`--quiet` shows only drifts and errors).
    ///
    /// The first line is the status word, `Service.target`, the time, and for an error or a skip the reason (for a
    /// pass with notes, their count). Under a drift come its findings (drifts, then notes), under an error the
    /// request line; `verbose` adds every target's request line and notes.
    /// - Parameters:
    ///   - result: one contract's result.
    ///   - color: whether to add ANSI colors.
    ///   - redactor: what to hide; `Redactor(contracts:runSecrets:)` for the run's contracts.
    ///   - detail: how much to say.
    /// - Returns: one or more lines joined by `\n`, or `nil`.
    public static func line(
        for result: ContractResult, color: Bool, redactor: Redactor, detail: ConsoleDetail = .normal
    ) -> String? {
        switch (detail, result.outcome) {
        case (.quiet, .passed), (.quiet, .skipped): return nil
        default: break
        }
        // `Service.target` as `ReportText.qualifiedName` writes it, its two names escaped each (the escapes never
        // span the dot), without a string of its own for each line.
        var head = concatenating(
            paddedWord(result.outcome, color: color), ReportText.escapingControls(result.contract.service), ".",
            ReportText.escapingControls(result.contract.name), "  ", ReportText.seconds(result.duration), "s")
        let marks = ReportText.marks(result)
        if !marks.isEmpty { head += "  [" + marks.joined(separator: "; ") + "]" }
        if let reason = ReportText.reason(result.outcome, redactor: redactor) {
            head += "  " + indentingContinuations(reason)
        }
        // Built only for the lines that show it: a passed target in normal detail (nearly all) has none.
        var requestLine: String { ReportText.requestLine(result, redactor: redactor) }
        var details: [String]
        switch result.outcome {
        case .drifted:
            details = ReportText.findingLines(result, redactor: redactor)
            // A status drift shows what was asked: a wrong path and a real 404 look alike without it.
            let drifts = result.findings.filter(\.isDrift)
            if let last = drifts.lastIndex(where: { $0.location == .status }) {
                details.insert(requestLine, at: last + 1)
            } else if detail == .verbose {
                details.insert(requestLine, at: 0)
            }
        case .passed:
            if detail == .verbose {
                details = [requestLine] + ReportText.noteLines(result, redactor: redactor)
            } else {
                // Counted, not spelled: the lines are not shown (one per note finding, as `noteLines` makes them).
                let notes = result.findings.reduce(0) { $1.isDrift ? $0 : $0 + 1 }
                if notes > 0 { head += paint(notes == 1 ? "  (1 note)" : "  (\(notes) notes)", faint, color) }
                return head  // nothing under it (steps show in verbose detail only): nearly every line of a run
            }
        case .error: details = [requestLine]
        case .skipped: details = detail == .verbose ? [requestLine] : []
        }
        if !result.steps.isEmpty, detail == .verbose || result.outcome.isError {
            // Set-up steps before the target's lines, clean-up steps after them.
            let lines = result.steps.map { ($0.phase, ReportText.stepLine($0, redactor: redactor)) }
            details = lines.filter { $0.0 == .before }.map(\.1) + details + lines.filter { $0.0 == .after }.map(\.1)
        }
        if detail != .verbose { details = collapsingNotes(details) }
        details = details.map { paint(indent + indentingContinuations($0), faint, color && $0.hasPrefix("note: ")) }
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
        kept.append(
            "note: … and \(hidden) more note\(hidden == 1 ? "" : "s") (--verbose shows them; the JUnit report has them)"
        )
        return kept
    }

    /// The counts alone: `N passed, N failed, N errors, N skipped` (failed = drifted), bold with color.
    /// - Parameters:
    ///   - results: every result of the run.
    ///   - color: whether to add ANSI colors.
    /// - Returns: the line, without a newline.
    public static func totalsLine(for results: [ContractResult], color: Bool) -> String {
        paint(ReportText.totalsLine(results), bold, color)
    }

    /// The status word padded to six columns (`PASS  `, `DRIFT `), colored when asked.
    private static func paddedWord(_ outcome: Outcome, color: Bool) -> String {
        let index =
            switch outcome {
            case .passed: 0
            case .drifted: 1
            case .error: 2
            case .skipped: 3
            }
        return paint(paddedWords[index], style(for: outcome), color)
    }

    /// Each status word padded to six columns, made once (`String(repeating:)` and `count` were 800 instructions a
    /// line).
    private static let paddedWords = [Outcome.passed, .drifted, .error(""), .skipped("")].map { outcome in
        let word = ReportText.statusWord(outcome)
        return word + String(repeating: " ", count: max(1, 6 - word.count))
    }

    /// The parts of a line's head in one string, their bytes copied once into a buffer with room for the marks or
    /// notes that may follow: appended one by one, the string was grown and checked at each (3.5 K instructions of
    /// a passed target's line). Read in place (a string that is not, bridged from Objective-C, is joined as usual).
    private static func concatenating(_ parts: String...) -> String {
        guard parts.allSatisfy({ $0.isContiguousUTF8 }) else { return parts.joined() }
        let total = parts.reduce(0) { $0 + $1.utf8.count }
        return String(unsafeUninitializedCapacity: total + 32) { buffer in
            var at = 0
            for part in parts { at = copy(part, into: buffer, at: at) }
            return at
        }
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
        guard ReportText.mayBreakLines(text), text.contains(where: \.isNewline) else { return text }
        return text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
            .joined(separator: "\n" + indent + "  ")
    }
}

/// The console as a report sink: each result's lines as soon as its turn in contract order comes, then the closing
/// line and the recap. `write` gets the text (the CLI writes it straight to standard output, past stdio's buffer).
public struct ConsoleOutput: ReportSink {
    private var stream: ConsoleWriter.Stream
    private let color: Bool
    private let detail: ConsoleDetail
    private let write: (String) -> Void

    /// - Parameters:
    ///   - contracts: Every contract of the run (for the redactor).
    ///   - color: Whether to add ANSI colors (`ConsoleWriter.isColorOn`).
    ///   - write: Where the text goes.
    ///   - detail: How much to say about each target.
    public init(
        contracts: [Contract], color: Bool, detail: ConsoleDetail = .normal, write: @escaping (String) -> Void
    ) {
        self.stream = ConsoleWriter.Stream(contracts: contracts, color: color, detail: detail)
        self.color = color
        self.detail = detail
        self.write = write
    }

    /// Writes the results whose turn has come.
    public mutating func add(_ result: ContractResult, at index: Int) {
        let text = stream.add(result, at: index)
        if !text.isEmpty { write(text) }
    }

    /// Writes the closing line and the recap.
    public mutating func finish(_ report: RunReport) throws(ReportError) -> String? {
        write(ConsoleWriter.closing(for: report, color: color, detail: detail))
        return nil
    }
}
