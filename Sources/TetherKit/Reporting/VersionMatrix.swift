import Foundation

/// A run at several git refs (`--ref`) as a matrix: one row per target (`Service.target`), one column per version in
/// the order of the refs, each cell the target's outcome at that version (none when that version has no such
/// target), and the first version, left to right, whose stub drifted. The console, Markdown and HTML reports show it.
struct VersionMatrix {
    struct Row {
        /// `GitHub.userProfile`, without a version.
        var target: String
        /// One cell per ref: the outcome there, or `nil` when that version has no such target.
        var cells: [Outcome?]
        /// The first ref whose stub drifted, or `nil`.
        var firstDrifted: String?
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
        for result in report.results {
            guard let ref = result.contract.ref, let column = refs.firstIndex(of: ref) else { continue }
            let target = "\(result.contract.unversionedService).\(result.contract.name)"
            let row = rowOf[target] ?? rows.count
            if row == rows.count {
                rowOf[target] = row
                rows.append(Row(target: target, cells: Array(repeating: nil, count: refs.count)))
            }
            rows[row].cells[column] = result.outcome
        }
        for row in rows.indices {
            rows[row].firstDrifted = rows[row].cells.indices.first { rows[row].cells[$0] == .drifted }.map { refs[$0] }
        }
        self.refs = refs
        self.rows = rows
    }

    /// A cell's word: `PASS`, `DRIFT`, `ERROR`, `SKIP`, or `-` for a version without the target.
    static func word(_ outcome: Outcome?) -> String { outcome.map(ReportText.statusWord) ?? "-" }

    /// The console's table, columns aligned:
    /// ```
    /// versions × targets:
    ///   target         v1.1.0  v1.2.0  first drifted
    ///   Api.item       PASS    DRIFT   v1.2.0
    /// ```
    var consoleLines: [String] {
        let header = ["target"] + refs.map(ReportText.escapingControls) + ["first drifted"]
        let body = rows.map { row in
            [ReportText.escapingControls(row.target)] + row.cells.map(Self.word)
                + [row.firstDrifted.map(ReportText.escapingControls) ?? "-"]
        }
        // The widths in one pass, and each line written into one string (a 2,000-row matrix copied the rows once
        // per column, and made a string per cell).
        var widths = header.map(\.count)
        for cells in body {
            for (column, cell) in cells.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            var line = "  "
            for (column, cell) in cells.enumerated() {
                line += cell
                if column < cells.count - 1 { line += String(repeating: " ", count: widths[column] - cell.count + 2) }
            }
            return line
        }
        return ["versions × targets:", line(header)] + body.map(line)
    }

    /// The Markdown table: `| Target | v1.1.0 | v1.2.0 | First drifted |`, each cell escaped by `cell`.
    func markdownLines(cell: (String) -> String) -> [String] {
        let header = "| Target | " + refs.map { "`\(cell($0))`" }.joined(separator: " | ") + " | First drifted |"
        let rule = "| --- | " + refs.map { _ in "---" }.joined(separator: " | ") + " | --- |"
        return [header, rule]
            + rows.map { row in
                "| `\(cell(row.target))` | " + row.cells.map(Self.word).joined(separator: " | ") + " | "
                    + (row.firstDrifted.map { "`\(cell($0))`" } ?? "-") + " |"
            }
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
