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

/// `tether learn`: gather several live answers of each target (by calling it `samples` times, and from every
/// matching entry of HAR files), propose the rules under which its stub holds against all of them (`RuleLearner`:
/// `optional`, `nullable`, `maps`, nothing else), print each with its evidence, and with `isWriting` add them to the
/// targets' `"rules"` in their manifests, as minimal edits (`JSONFileEdit`).
///
/// What no rule may fix (a type change, a key gone from every answer) is printed as a drift left: learning never
/// hides a change of the API.
public struct LearnCommand: Command {
    /// The manifests, `--base-url`, `--mock` and `--filter`, as verify reads them.
    public var inputs = RunInputs()
    /// `--strict`, `--exhaustive`.
    public var checks = CheckOptions()
    /// How requests travel.
    public var transport = TransportOptions()
    /// `--samples N`; `nil` until given (the default depends on `--har`).
    public var samplesGiven: Int?
    /// `--pause SECONDS` between two rounds of calls.
    public var pause: Double = 0
    /// `--har FILE`: recorded answers to learn from too (every entry that matches a target's request).
    public var harFiles: [String] = []
    /// `--write`: add the proposals to the manifests.
    public var isWriting = false
    /// Sends and checks (libcurl by default).
    public var runner = ContractRunner()

    /// Every option at its default.
    public init() {}

    /// How many rounds of calls: `--samples`, else 3, or 0 when HAR files are given (they are then the only source,
    /// unless `--samples` asks for calls too).
    public var samples: Int { samplesGiven ?? (harFiles.isEmpty ? 3 : 0) }

    /// `tether learn`.
    public static let configuration = CommandConfiguration(
        names: ["learn"], usage: "tether learn [PATH ...] [--samples N] [--har FILE ...] [--write] [OPTIONS]",
        summary: "call each target several times (or read HAR files) and propose the rules its stub needs",
        help: { help })

    /// Where requests go, which targets, the rules and the transport, as verify takes them (learn proposes rules;
    /// it has no report or gate, and needs every target's answers: no `--shard`), then its own.
    public static let options = OptionTable<LearnCommand>(
        command: "learn",
        groups: [
            .group({ $0.inputs.baseURLs }, { $0.inputs.baseURLs = $1 }),
            .group({ $0.inputs.mock }, { $0.inputs.mock = $1 }),
            .group({ $0.inputs.filter }, { $0.inputs.filter = $1 }), .group({ $0.checks }, { $0.checks = $1 }),
            .group({ $0.transport }, { $0.transport = $1 }),
            [
                .value(
                    "--samples", "N", section: .learn,
                    help: "call every target N times (0: learn from --har only)", defaultValue: "3, or 0 with --har"
                ) { command, text throws(InvalidValue) in
                    command.samplesGiven = try ValueReader.wholeNumber(text, in: 0...1000)
                },
                .value(
                    "--pause", "SECONDS", section: .learn, help: "wait between two rounds of calls (e.g. 0.5)",
                    defaultValue: "0"
                ) { command, text throws(InvalidValue) in
                    command.pause = try ValueReader.seconds(text, in: 0...3600)
                },
                .value(
                    "--har", "FILE", section: .learn,
                    help: "learn from every entry of this HAR file that matches a target's request too",
                    isRepeatable: true
                ) { $0.harFiles.append($1) },
                .flag(
                    "--write", section: .learn,
                    help: "add the proposed rules to the targets' \"rules\" in their manifests (minimal edits)"
                ) { $0.isWriting = true },
                .help,
            ],
        ],
        operand: { $0.inputs.paths.append($1) })

    /// `PATH` defaults to `contracts`; something to learn from is needed.
    public mutating func validate() throws(UsageError) {
        if inputs.paths.isEmpty { inputs.paths = ["contracts"] }
        if samples == 0, harFiles.isEmpty {
            throw UsageError("learn: --samples 0 and no --har FILE: nothing to learn from")
        }
    }

    /// Learns, and writes nothing when stopped (Ctrl-C, SIGTERM: exit 130, 143).
    public func run(_ context: CommandContext) -> ExitCode {
        var command = self
        command.inputs.environment = context.environment
        let cancellation = Cancellation()
        command.transport.cancellation = cancellation
        return context.runWritingNothingOnStop(cancelling: cancellation) { isStopped throws(RunError) in
            try command.learn(write: context.write, isStopped: isStopped).exitCode
        }
    }

    /// Learns from the answers and prints the proposals; with `isWriting`, writes them.
    /// - Parameters:
    ///   - write: Where console text goes.
    ///   - isStopped: Asked between rounds and before any file is written: `true` (Ctrl-C) stops and writes nothing.
    /// - Returns: The proposals, the drifts left, and what was written.
    /// - Throws: `RunError` for broken contracts or HAR files, a mock that cannot start, or no target selected
    ///   (nothing was sent).
    public func learn(write: @escaping (String) -> Void, isStopped: () -> Bool = { false }) throws(RunError)
        -> LearnReport
    {
        var archives: [(path: String, archive: HARArchive)] = []
        for path in harFiles {
            do {
                archives.append((path, try HARArchive.load(contentsOf: path)))
            } catch {
                throw .usage("--har \(error); nothing was sent")
            }
        }
        let (contracts, server, _) = try inputs.selectedContracts(write: write)
        defer { withExtendedLifetime(server) {} }
        var selected = contracts
        var report = LearnReport(isWriting: isWriting)
        // The recordings' credentials are hidden too: the answers learned from may echo them.
        for (_, archive) in archives { archive.shareCredentials(with: &selected) }
        let redactor = Redactor(contracts: selected)
        // Each target's answers: (where from, status, body).
        var answers = [[Answer]](repeating: [], count: selected.count)
        var errors = [String?](repeating: nil, count: selected.count)
        for round in 0..<samples {
            if round > 0, pause > 0 {
                // A long pause is a long silence: say where the run is.
                if pause >= 1 {
                    write(
                        "round \(round) of \(samples) done; the next in \(pause == pause.rounded() ? String(Int(pause)) : String(pause))s\n"
                    )
                }
                Self.sleep(pause, isStopped: isStopped)
            }
            guard !isStopped() else { return report }
            var responses: [Int: HTTPResponse] = [:]
            let run = runner.run(selected, checks: checks, transport: transport, onResponse: { responses[$0] = $1 })
            for (index, result) in run.results.enumerated() {
                if let response = responses[index] {
                    answers[index].append(Answer(status: response.statusCode, body: response.body))
                } else if case .error(let message) = result.outcome {
                    errors[index] = errors[index] ?? redactor.redact(message)
                }
            }
        }
        guard !isStopped() else { return report }
        for (index, contract) in selected.enumerated() {
            let (path, query) = HAREntry.target(of: contract.request.url)
            let request = RequestKey(method: contract.request.method, path: path, query: query)
            for (_, archive) in archives {
                for entry in archive.entries where entry.hasResponse {
                    let recorded = RequestKey(method: entry.method, path: entry.path, query: entry.query)
                    if request == recorded || request.isAnswered(byRecorded: recorded) {
                        answers[index].append(Answer(status: entry.status, body: entry.body))
                    }
                }
            }
        }
        for (index, contract) in selected.enumerated() {
            report.targets.append(
                TargetLearning(
                    contract: contract, answers: answers[index], error: errors[index],
                    isStrict: contract.rules.isStrict ?? checks.isStrict))
        }
        for target in report.targets {
            for line in target.lines(redactor: redactor) { write(line + "\n") }
        }
        if isWriting, !isStopped() {
            report.writeProposals(redactor: redactor)
            for line in report.writeLines { write(line + "\n") }
        }
        write(report.summary + "\n")
        return report
    }

    /// Sleeps `seconds`, waking every 50 ms to see whether the run was stopped.
    private static func sleep(_ seconds: Double, isStopped: () -> Bool) {
        let end = Date().addingTimeInterval(seconds)
        while !isStopped(), Date() < end {
            usleep(UInt32(min(0.05, max(0, end.timeIntervalSinceNow)) * 1_000_000))
        }
    }

    /// `tether learn --help`.
    static var help: String {
        """
        USAGE
          \(configuration.usage)

        Calls every target --samples times (as 'tether verify' calls it: same PATH and options) and/or reads every
        entry of the --har files whose request matches a target's, then proposes the rules under which each JSON stub
        holds against all those answers, each with its evidence:
          optional  a key absent in some answers and present in others ("absent in 2 of 5 responses")
          nullable  a value null in some answers and typed in the others
          maps      an object whose keys all look like ids (1017, a UUID, user_42) and differ between answers
        and nothing else: a key absent from every answer, a value null in every answer or a changed type is a change
        of the API, printed as a drift left (see 'tether update'), never hidden by a rule; ignore is never proposed.
        Only answers with the stub's status (or rules.status) are learned from. Without --write it prints the
        proposals and exits 1 when there are any, so a CI job can ask for a review; --write adds them to the
        targets' "rules" in their manifests as minimal edits (formatting, key order and every other byte kept).
        Nothing of a live value is printed: evidence is counts and the stub's own keys, drifts are redacted.

        \(options.helpSections())

        EXAMPLES
          tether learn --samples 5 --pause 1          call each target 5 times, 1 s apart; print proposals
          tether learn --har recordings/*.har --write  learn from recordings and add the rules to the manifests

        EXIT CODES
          0  nothing to propose (or, with --write, every proposal written) and no drift left
          1  proposals not written (without --write), a drift no rule may hide, or a manifest not written
          2  usage error, broken contract or HAR file (nothing was sent)
          3  some targets had no answer to learn from (connection refused, another status, …)
          4  no target had an answer to learn from
          130, 143  stopped by Ctrl-C or SIGTERM: nothing was written
        """
    }
}

extension HelpSection {
    /// `--samples`, `--pause`, `--har`, `--write`.
    static let learn = HelpSection(title: "LEARN")
}
