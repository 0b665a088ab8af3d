import Foundation

/// What `ContractVerifier.verify` found: the run (the same `RunReport` the CLI makes) and what it means for a test.
public struct ContractReport: Sendable, Equatable, CustomStringConvertible {
    /// Every target's result, in target order.
    public var run: RunReport
    /// Targets that could not become contracts (each is also an `.error` result).
    public var contractErrors: [ContractError]

    /// - Parameters: as the properties.
    public init(run: RunReport, contractErrors: [ContractError] = []) {
        self.run = run
        self.contractErrors = contractErrors
    }

    /// Every target's result, in target order.
    public var results: [ContractResult] { run.results }

    /// No target was checked against the service: none was given, or every one was skipped or failed to send.
    public var isNothingChecked: Bool { run.isNothingChecked }

    /// At least one target was checked, and nothing drifted or failed. An empty run is not a pass.
    public var isPassing: Bool { run.exitCode == 0 }

    /// The CLI's exit code for this run (`RunReport.exitCode`): 0 pass, 1 drift, 3 something could not be
    /// checked, 4 nothing was checked.
    public var exitCode: ExitCode { run.exitCode }

    /// Targets with a body contract / all targets (`BodyCoverage`); the console's and JUnit's coverage.
    public var coverage: BodyCoverage { run.coverage }

    /// Why nothing was checked, or `nil` when something was.
    public var nothingCheckedReason: String? { run.nothingCheckedReason }

    /// The results that need a look: drifts and errors, in target order.
    public var failures: [ContractResult] {
        results.filter {
            switch $0.outcome {
            case .drifted, .error: true
            case .passed, .skipped: false
            }
        }
    }

    /// Writes the JUnit XML report (the CLI's `JUnitWriter`). When no target was given, the file holds one `<error>`
    /// test case saying so, so that a CI dashboard never shows an empty run as green.
    /// - Parameter path: Where, e.g. `reports/junit.xml`; parent folders are created.
    /// - Throws: `ReportError` naming the path and the reason.
    public func writeJUnit(to path: String) throws(ReportError) {
        try JUnitWriter.write(junitRun, to: path)
    }

    /// The run the JUnit report is written from: `run`, or for no targets one error result saying nothing was checked.
    var junitRun: RunReport {
        guard results.isEmpty, let reason = nothingCheckedReason else { return run }
        var placeholder = run
        let contract = Contract(
            service: "Tether", name: "nothing checked", baseURL: "", request: HTTPRequest(method: "GET", url: ""),
            sampleData: .none, source: "ContractVerifier.verify")
        placeholder.results = [ContractResult(contract: contract, outcome: .error(reason))]
        return placeholder
    }

    /// The console report (the CLI's words); its closing lines say why nothing was checked when that is so.
    /// - Parameter color: Whether to add ANSI colors.
    /// - Returns: The text, ending with a newline.
    public func rendered(color: Bool = false) -> String {
        ConsoleWriter.render(run, color: color)
    }

    /// One result's lines as the console prints them, secrets redacted: the text of a test issue.
    /// - Parameter result: One of `results`.
    /// - Returns: The lines, without a trailing newline.
    public func text(for result: ContractResult) -> String {
        ConsoleWriter.line(for: result, color: false, redactor: Redactor(report: run)) ?? ""
    }

    /// The console report without color.
    public var description: String { rendered() }
}
