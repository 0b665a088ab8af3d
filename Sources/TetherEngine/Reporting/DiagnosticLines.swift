/// Compiler-style diagnostics (`--diagnostics`): for each drifted or failed target, drifts first, an
/// `error:` line at the target's `name` in its manifest, then a `note:` line per further drift, as Xcode's
/// issue navigator, Vim's quickfix and VS Code's problem matchers read them:
///
/// ```
/// contracts/shop.json:4:6: error: Shop.items drifted: $[0].price: expected number, got string "12.50"
/// contracts/shop.json:4:6: note: Shop.items: $[0].tags: expected array, got null
/// ```
/// A target without a place in a manifest (a Swift target) is named by its source alone. Off by default: on a
/// terminal the console already lists every drift, and the lines would say it twice.
public struct DiagnosticLines: ReportSink {
    private let standardOutput: (String) -> Void

    /// - Parameter destination: where standard output goes.
    public init(destination: ReportDestination) {
        standardOutput = destination.standardOutput
    }

    /// Prints the lines.
    public mutating func finish(_ report: RunReport) throws(ReportError) -> String? {
        standardOutput(Self.lines(for: report))
        return nil
    }

    /// The diagnostics for `report`, each ending with a newline.
    public static func lines(for report: RunReport) -> String {
        let redactor = Redactor(report: report)
        var lines: [String] = []
        for result in ReportText.problems(report) {
            let place =
                result.contract.declaration.map { "\($0.file):\($0.line):\($0.column)" }
                ?? result.contract.source
            let prefix = ReportText.clean(place, redactor: redactor)
            let name = ReportText.qualifiedName(result.contract)
            if result.outcome == .drifted {
                let drifts = result.findings.filter(\.isDrift).map {
                    ReportText.firstLine(ReportText.clean($0.description, redactor: redactor))
                }
                lines.append("\(prefix): error: \(name) drifted: \(drifts.first ?? "no drift recorded")")
                lines += drifts.dropFirst().map { "\(prefix): note: \(name): \($0)" }
            } else {
                let reason = ReportText.reason(result.outcome, redactor: redactor).map(ReportText.firstLine) ?? ""
                lines.append("\(prefix): error: \(name) could not be checked: \(reason)")
            }
        }
        return lines.map { $0 + "\n" }.joined()
    }
}
