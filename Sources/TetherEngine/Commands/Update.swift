#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `tether update`: run the contracts as `verify` does (the same start-up: manifests, `--filter`, `--base-url`,
/// `--mock`), then rewrite the stub of every target whose body drifted, so that it holds against what the service
/// answered, as a minimal, reviewable edit of its file (`UpdatePlan`, `StubMerge` for the value, `JSONTextEdit` for
/// the bytes). With `isDryRun` it writes nothing and prints, per file, what would change.
///
/// Only JSON stubs whose status held are rewritten: a status or header drift, a text stub and a `networkError` stub
/// are left for a person (with a line saying why). A stub (file and location) that several targets share is
/// rewritten only when one new stub holds against all their live bodies.
public struct UpdateCommand: Command {
    /// The manifests, `--base-url`, `--mock` and `--filter`, as verify reads them.
    public var inputs = RunInputs()
    /// `--strict` (extra live keys are added only when strict), `--exhaustive`.
    public var checks = CheckOptions()
    /// How requests travel.
    public var transport = TransportOptions()
    /// `--dry-run`: print what would change, write nothing.
    public var isDryRun = false
    /// `--replace`: the new stub is the whole (redacted) live body, not a merge.
    public var isReplace = false
    /// `--redact-json` patterns: values hidden (their type kept) in each live body, with the run's secrets, before
    /// anything of it is kept (see `BodyRedaction`).
    public var redactJSON: [JSONPathPattern] = []
    /// Sends and checks (libcurl by default).
    public var runner = ContractRunner()

    /// Every option at its default.
    public init() {}

    /// `tether update`.
    public static let configuration = CommandConfiguration(
        names: ["update"], usage: "tether update [PATH ...] [OPTIONS]",
        summary: "rewrite drifted stubs to match the live service, as minimal edits (--dry-run: show them)",
        help: { help })

    /// Where requests go, which targets, the rules and the transport, as verify takes them (update writes stubs, not
    /// reports, has no gate to pass, and needs every target's answers: no `--shard`), then its own.
    public static let options = OptionTable<UpdateCommand>(
        command: "update",
        groups: [
            .group({ $0.inputs.baseURLs }, { $0.inputs.baseURLs = $1 }),
            .group({ $0.inputs.mock }, { $0.inputs.mock = $1 }),
            .group({ $0.inputs.filter }, { $0.inputs.filter = $1 }), .group({ $0.checks }, { $0.checks = $1 }),
            .group({ $0.transport }, { $0.transport = $1 }),
            [
                .flag(
                    "--dry-run", section: .update,
                    help: "print, per file, what would change (- stub, + live); write nothing; exit 1 when something "
                        + "would"
                ) { $0.isDryRun = true },
                .flag(
                    "--replace", section: .update,
                    help: "write the whole live body as the stub (as re-recording a snapshot), not the minimal change"
                ) { $0.isReplace = true },
                .redactJSON(section: .update, into: \UpdateCommand.redactJSON),
                .help,
            ],
        ],
        operand: { $0.inputs.paths.append($1) })

    /// `PATH` defaults to `contracts`.
    public mutating func validate() throws(UsageError) {
        if inputs.paths.isEmpty { inputs.paths = ["contracts"] }
    }

    /// Updates, and writes nothing when stopped (Ctrl-C, SIGTERM: exit 130, 143).
    public func run(_ context: CommandContext) -> ExitCode {
        var command = self
        command.inputs.environment = context.environment
        let cancellation = Cancellation()
        command.transport.cancellation = cancellation
        return context.runWritingNothingOnStop(cancelling: cancellation) { isStopped throws(RunError) in
            try command.update(write: context.write, isStopped: isStopped).exitCode
        }
    }

    /// Runs the contracts and rewrites what drifted (or, with `isDryRun`, prints what would change).
    /// - Parameters:
    ///   - write: Where console text goes.
    ///   - isStopped: Asked after the run and before any file is written: `true` (Ctrl-C) writes nothing.
    /// - Returns: What was (or would be) changed, and what could not be.
    /// - Throws: `RunError` for broken contracts, a mock that cannot start, or no target selected (nothing was
    ///   sent).
    public func update(write: @escaping (String) -> Void, isStopped: () -> Bool = { false }) throws(RunError)
        -> UpdateReport
    {
        let (selected, server, _) = try inputs.selectedContracts(write: write)
        defer { withExtendedLifetime(server) {} }
        var responses: [Int: HTTPResponse] = [:]
        let run = runner.run(selected, checks: checks, transport: transport, onResponse: { responses[$0] = $1 })
        let redactor = Redactor(report: run)
        var update = UpdateReport(run: run, isDryRun: isDryRun)
        for result in run.results {
            guard case .error(let message) = result.outcome else { continue }
            update.lines.append(
                "ERROR \(result.contract.service).\(result.contract.name)  \(redactor.redact(message))")
        }
        guard !isStopped() else { return update }
        let plan = UpdatePlan(
            contracts: selected, results: run.results, responses: responses, isStrict: checks.isStrict,
            isReplace: isReplace,
            redact: { BodyRedaction(secrets: redactor, patterns: redactJSON).redact($0).value })
        // A problem quotes the live body's paths and values (a key that is a token), as verify's findings do.
        update.problems = plan.problems.map { redactor.redact($0) }
        update.lines += update.problems
        for file in plan.files {
            update.apply(file, write: !isDryRun)
        }
        for line in update.lines { write(line + "\n") }
        write(update.summary + "\n")
        return update
    }

    /// `tether update --help`.
    static var help: String {
        """
        USAGE
          \(configuration.usage)

        Runs the contracts as 'tether verify' does (same PATH and options), then rewrites the stub of every target
        whose JSON body drifted so that it holds, as a minimal change of its file: a missing key is removed, a type
        drift or a live null takes the live value, an array element takes the live elements' shape, extra live keys
        are added only with --strict; everything else keeps its curated value and every other byte of the file (its
        indent, key order, number spellings, trailing newline) stays. Inline {"json": ...} samples are edited inside
        the manifest. Live strings pass the same redaction as reports. Status, header, text and networkError stubs are
        never rewritten (a line says why); a file shared by several targets is rewritten only when one stub holds for
        all of them. Each file is written atomically (a new file renamed over the old, permissions kept).

        \(options.helpSections())

        EXIT CODES
          0  every stub that drifted was rewritten and now holds (or nothing drifted)
          1  --dry-run and something would change, or a drift was left (each has a line saying why)
          2  usage error or broken contract file (nothing was sent)
          3  some targets could not be checked (connection refused, timeout, …); the others were updated
          4  nothing was checked
          130, 143  stopped by Ctrl-C or SIGTERM: nothing was written
        """
    }
}

extension HelpSection {
    /// `--dry-run`, `--replace`, `--redact-json`.
    static let update = HelpSection(title: "UPDATE")
}
