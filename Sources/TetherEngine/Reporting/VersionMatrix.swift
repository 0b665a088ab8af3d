#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A run at several git refs (`--ref`) as a matrix: one row per target (`Service.target`), one column per version in
/// the order of the refs, each cell the target's outcome at that version (none when that version has no such
/// target), and the first version, left to right, whose stub drifted. The HTML report shows every row; the console
/// (but with `--verbose`) and the Markdown summary show the rows of the targets that drifted or failed at some
/// version and count the others: 2,000 targets at 5 tags that all pass are one line, not a 2,000-row table that
/// pushed the run's totals out of sight and made the summary 119 KB.
struct VersionMatrix {
    struct Row {
        /// `GitHub.userProfile`, without a version.
        var target: String
        /// One cell per ref: the outcome there, or `nil` when that version has no such target.
        var cells: [Outcome?]
        /// The first ref whose stub drifted, or `nil`.
        var firstDrifted: String?

        /// Whether the target drifted or could not be checked at some version (a `DRIFT` or `ERROR` cell): the rows
        /// the console and the Markdown summary show.
        var isTroubled: Bool {
            cells.contains { cell in
                switch cell {
                case .drifted, .error: true
                case .passed, .skipped, nil: false
                }
            }
        }
    }

    /// The refs, as columns.
    let refs: [String]
    /// The targets, in the order they first appear.
    let rows: [Row]

    /// The matrix of `report`, or `nil` for a run of the working tree alone.
    init?(_ report: RunReport) {
        var refs: [String] = []
        var rows: [Row] = []
        var rowOf: [String: Int] = [:]
        for result in report.results {
            guard let ref = result.contract.ref else { continue }
            if !refs.contains(ref) { refs.append(ref) }
        }
        guard !refs.isEmpty else { return nil }
        // A version's results share their service's name: it is cut from its `@REF` once for each run of them.
        var service = (versioned: "", plain: "")
        // Each row's service and target name: a version lists its targets in the order the one before did, so the
        // row after the last one filled is tried first, without making the target's `Service.target` to look up.
        var names: [(service: String, name: String)] = []
        var next = 0
        for result in report.results {
            guard let ref = result.contract.ref, let column = refs.firstIndex(of: ref) else { continue }
            if result.contract.service != service.versioned {
                service = (result.contract.service, result.contract.unversionedService)
            }
            let name = result.contract.name
            var row = next
            if row >= rows.count || names[row].name != name || names[row].service != service.plain {
                let target = service.plain + "." + name
                row = rowOf[target] ?? rows.count
                if row == rows.count {
                    rowOf[target] = row
                    rows.append(Row(target: target, cells: Array(repeating: nil, count: refs.count)))
                    names.append((service.plain, name))
                }
            }
            rows[row].cells[column] = result.outcome
            next = row + 1
        }
        for row in rows.indices {
            rows[row].firstDrifted = rows[row].cells.indices.first { rows[row].cells[$0] == .drifted }.map { refs[$0] }
        }
        self.refs = refs
        self.rows = rows
    }

    /// A cell's word: `PASS`, `DRIFT`, `ERROR`, `SKIP`, or `-` for a version without the target.
    static func word(_ outcome: Outcome?) -> String { outcome.map(ReportText.statusWord) ?? "-" }

    /// The console's table, columns aligned, of every row (`--verbose`) or of the troubled ones (`Row.isTroubled`),
    /// the others counted:
    /// ```
    /// versions × targets:
    ///   target         v1.1.0  v1.2.0  first drifted
    ///   Api.item       PASS    DRIFT   v1.2.0
    ///   (12 more targets, none drifted or failed at any version: --verbose lists them)
    /// ```
    /// With no troubled row, one line: `versions × targets: no target drifted or failed (13 targets at 2 versions;
    /// --verbose shows the matrix)`.
    func consoleLines(everyRow: Bool) -> [String] {
        let rows = everyRow ? rows : rows.filter(\.isTroubled)
        let untroubled = self.rows.count - rows.count
        guard !rows.isEmpty else {
            return [
                "versions × targets: no target drifted or failed (\(Self.counted(untroubled, "target")) at "
                    + "\(Self.counted(refs.count, "version")); --verbose shows the matrix)"
            ]
        }
        let header = ["target"] + refs.map(ReportText.escapingControls) + ["first drifted"]
        let targets = rows.map { ReportText.escapingControls($0.target) }
        // Widths in characters. The last column is not padded.
        var widths = header.map(\.count)
        let targetWidths = targets.map(\.count)
        widths[0] = max(widths[0], targetWidths.max() ?? 0)
        for row in rows {
            for (column, cell) in row.cells.enumerated() {
                widths[column + 1] = max(widths[column + 1], Self.word(cell).utf8.count)  // the words are ASCII
            }
        }
        // Each line is written as bytes into one buffer, and a ref column's cell is one of five words, padded once
        // for the column (2,000 rows took 15 K instructions a line as strings appended and padded per cell).
        let words: [Outcome?] = [nil, .passed, .drifted, .error(""), .skipped("")]
        let padded = refs.indices.map { column in
            words.map { Array(Self.word($0).utf8) + Self.spaces(widths[column + 1] - Self.word($0).utf8.count + 2) }
        }
        var bytes: [UInt8] = []
        func take() -> String {
            defer { bytes.removeAll(keepingCapacity: true) }
            return String(decoding: bytes, as: UTF8.self)
        }
        bytes += Self.spaces(2)
        for (column, cell) in header.enumerated() {
            bytes += cell.utf8
            if column < header.count - 1 { bytes += Self.spaces(widths[column] - cell.count + 2) }
        }
        var lines = ["versions × targets:", take()]
        lines.reserveCapacity(rows.count + 2)
        for (index, row) in rows.enumerated() {
            bytes += Self.spaces(2)
            bytes += targets[index].utf8
            bytes += Self.spaces(widths[0] - targetWidths[index] + 2)
            for (column, cell) in row.cells.enumerated() { bytes += padded[column][Self.wordIndex(cell)] }
            bytes += (row.firstDrifted.map(ReportText.escapingControls) ?? "-").utf8
            lines.append(take())
        }
        if untroubled > 0 {
            lines.append(
                "  (\(untroubled) more \(Self.plural("target", untroubled)), none drifted or failed at any "
                    + "version: --verbose lists them)")
        }
        return lines
    }

    /// `13 targets`, `1 target`.
    private static func counted(_ count: Int, _ noun: String) -> String { "\(count) " + plural(noun, count) }

    /// `targets`, or `target` for 1.
    private static func plural(_ noun: String, _ count: Int) -> String { count == 1 ? noun : noun + "s" }

    /// `count` spaces.
    private static func spaces(_ count: Int) -> Repeated<UInt8> { repeatElement(UInt8(ascii: " "), count: count) }

    /// The cell's place among the five words, in the order `consoleLines` pads them.
    private static func wordIndex(_ outcome: Outcome?) -> Int {
        switch outcome {
        case nil: 0
        case .passed: 1
        case .drifted: 2
        case .error: 3
        case .skipped: 4
        }
    }

    /// The Markdown table of the troubled rows (`Row.isTroubled`), at most `maxRows` of them: `| Target | v1.1.0 |
    /// v1.2.0 | First drifted |`, each cell escaped by `cell`; then how many more there are and how many targets
    /// neither drifted nor failed. With no troubled row, one sentence naming the versions.
    func markdownLines(maxRows: Int, cell: (String) -> String) -> [String] {
        let troubled = rows.filter(\.isTroubled)
        let untroubled = rows.count - troubled.count
        let versions = refs.map { "`\(cell($0))`" }
        guard !troubled.isEmpty else {
            return [
                "No target drifted or failed (\(Self.counted(untroubled, "target")) at "
                    + "\(Self.counted(refs.count, "version")): " + versions.joined(separator: ", ") + ")."
            ]
        }
        let header = "| Target | " + versions.joined(separator: " | ") + " | First drifted |"
        let rule = "| --- | " + refs.map { _ in "---" }.joined(separator: " | ") + " | --- |"
        var lines =
            [header, rule]
            + troubled.prefix(maxRows).map { row in
                "| `\(cell(row.target))` | " + row.cells.map(Self.word).joined(separator: " | ") + " | "
                    + (row.firstDrifted.map { "`\(cell($0))`" } ?? "-") + " |"
            }
        if troubled.count > maxRows {
            let more = troubled.count - maxRows
            lines += [
                "", "…and \(more) more \(Self.plural("target", more)) that drifted or failed at some version.",
            ]
        }
        if untroubled > 0 {
            lines += [
                "",
                "The other \(Self.counted(untroubled, "target")) neither drifted nor failed at any version (the HTML report, "
                    + "`--html`, has every row).",
            ]
        }
        return lines
    }

    /// The HTML table, each cell's class its outcome (`drifted`, `passed`, …), escaped by `escaped`.
    func html(escaped: (String) -> String) -> String {
        var html = "<table class=\"matrix\">\n<thead><tr><th>target</th>"
        html += refs.map { "<th>\(escaped($0))</th>" }.joined() + "<th>first drifted</th></tr></thead>\n<tbody>\n"
        for row in rows {
            html += "<tr><th>\(escaped(row.target))</th>"
            for cell in row.cells {
                let name = cell.map(ReportText.outcomeName) ?? "absent"
                html += "<td class=\"\(name)\">\(Self.word(cell))</td>"
            }
            html += "<td>\(escaped(row.firstDrifted ?? "-"))</td></tr>\n"
        }
        return html + "</tbody>\n</table>\n"
    }
}
