import Foundation

/// `tether update` as a library call: run the contracts as `verify` does (the same start-up: manifests, `--filter`,
/// `--base-url`, `--mock`), then rewrite the stub of every target whose body drifted, so that it holds against what
/// the service answered, as a minimal, reviewable edit of its file (`StubMerge` for the value, `JSONTextEdit` for the
/// bytes). With `isDryRun` it writes nothing and prints, per file, what would change.
///
/// Only JSON stubs whose status held are rewritten: a status or header drift, a text stub and a `networkError` stub
/// are left for a person (with a line saying why). A stub (file and location) that several targets share is
/// rewritten only when one new stub holds against all their live bodies.
public struct UpdateCommand {
    /// The manifests, `--base-url`, `--mock` and `--filter`, as verify reads them.
    public var inputs: RunInputs
    /// Strictness (extra live keys are added only when strict) and transport.
    public var options: VerifyOptions
    /// `--dry-run`: print what would change, write nothing.
    public var isDryRun: Bool
    /// `--replace`: the new stub is the whole (redacted) live body, not a merge.
    public var isReplace: Bool
    /// `--redact-json` patterns: values hidden (their type kept) in each live body, with the run's secrets, before
    /// anything of it is kept (see `BodyRedaction`).
    public var redactJSON: [JSONPathPattern]
    /// The verifier (libcurl by default).
    public var verifier: ContractRunner

    /// - Parameters: as the properties.
    public init(
        inputs: RunInputs, options: VerifyOptions = VerifyOptions(), isDryRun: Bool = false, isReplace: Bool = false,
        redactJSON: [JSONPathPattern] = [], verifier: ContractRunner = ContractRunner()
    ) {
        self.inputs = inputs
        self.options = options
        self.isDryRun = isDryRun
        self.isReplace = isReplace
        self.redactJSON = redactJSON
        self.verifier = verifier
    }

    /// Runs the command.
    /// - Parameters:
    ///   - write: Where console text goes.
    ///   - isStopped: Asked after the run and before any file is written: `true` (Ctrl-C) writes nothing.
    /// - Returns: What was (or would be) changed, and what could not be.
    /// - Throws: `VerifyCommandError` for broken contracts, a mock that cannot start, or no target selected
    ///   (nothing was sent).
    public func run(write: @escaping (String) -> Void, isStopped: () -> Bool = { false }) throws(VerifyCommandError)
        -> UpdateReport
    {
        let (selected, server) = try inputs.selectedContracts(write: write)
        defer { withExtendedLifetime(server) {} }
        var responses: [Int: HTTPResponse] = [:]
        let run = verifier.run(selected, options: options, onResponse: { responses[$0] = $1 })
        let redactor = Redactor(report: run)
        var update = UpdateReport(run: run, isDryRun: isDryRun)
        for result in run.results {
            guard case .error(let message) = result.outcome else { continue }
            update.lines.append(
                "ERROR \(result.contract.service).\(result.contract.name)  \(redactor.redact(message))")
        }
        guard !isStopped() else { return update }
        let plan = UpdatePlan(
            contracts: selected, results: run.results, responses: responses, isStrict: options.isStrict,
            isReplace: isReplace,
            redact: { BodyRedaction(secrets: redactor, patterns: redactJSON).redact($0).value })
        update.problems = plan.problems
        update.lines += plan.problems
        for file in plan.files {
            update.apply(file, write: !isDryRun)
        }
        for line in update.lines { write(line + "\n") }
        write(update.summary + "\n")
        return update
    }
}

/// What `tether update` did: the run, every file it changed (or would), and every drift it left.
public struct UpdateReport: Sendable {
    /// The run that got the live responses.
    public var run: RunReport
    /// `--dry-run`: nothing was written.
    public var isDryRun: Bool
    /// The files that changed (or would), in the order of their first target.
    public var changedFiles: [String] = []
    /// One line per target or file that drifted and was not fixed, saying why.
    public var problems: [String] = []
    /// What the console shows, before the summary: errors, diffs (dry run), the files written, problems.
    public var lines: [String] = []

    init(run: RunReport, isDryRun: Bool) {
        self.run = run
        self.isDryRun = isDryRun
    }

    /// 1 when a dry run would change something or a drift was left; else 4 when nothing could be checked, 3 when
    /// some targets could not be, 0 when every checked stub now holds.
    public var exitCode: Int32 {
        if !problems.isEmpty || (isDryRun && !changedFiles.isEmpty) { return 1 }
        if run.isNothingChecked { return 4 }
        if run.errorCount > 0 { return 3 }
        return 0
    }

    /// The last line: how many files changed and how many drifts were left.
    public var summary: String {
        let files = changedFiles.count == 1 ? "1 file" : "\(changedFiles.count) files"
        var text = isDryRun ? "\(files) would change (dry run: nothing written)" : "\(files) updated"
        if !problems.isEmpty {
            text += ", \(problems.count) not updated (see above)"
        }
        return text
    }

    mutating func apply(_ file: UpdatePlan.File, write: Bool) {
        do throws(JSONFileEdit.Failure) {
            guard let edited = try JSONFileEdit.edited(file.path, changes: file.edits) else { return }
            changedFiles.append(file.path)
            guard write else {
                lines += file.diffLines
                return
            }
            do throws(JSONFileEdit.Failure) {
                try JSONFileEdit.write(edited, to: file.path)
            } catch {
                changedFiles.removeLast()
                throw error
            }
            lines.append("updated \(file.path) (\(file.targets.joined(separator: ", ")))")
        } catch {
            problems.append("cannot update \(file.path): \(error)")
            lines.append(problems[problems.count - 1])
        }
    }
}
