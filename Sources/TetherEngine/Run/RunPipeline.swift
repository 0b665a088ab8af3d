#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A run, carried out from its plan: read the manifests and select the targets (`RunInputs`), read the baseline,
/// check that every report can be written, then send and check (`ContractRunner`), handing each result to the console
/// and the report sinks as it is known, and write the baseline last. `tether verify` and `tether record` run through
/// it; it reads the plan and never changes it.
public struct RunPipeline {
    /// What to run, as the command built it.
    public var plan: RunPlan
    /// Sends the requests and checks each answer (libcurl by default).
    public var runner: ContractRunner
    /// What else the run does with the live responses of the selected contracts (`tether record` keeps them).
    public var tap: ([Contract]) -> ResponseTap
    /// Runs of fewer results finish their sinks one after the other on the caller's thread: starting a thread costs
    /// more than a small report takes (tests lower it).
    var resultsForThreadedFinish = 256
    /// Takes what a run made and no longer needs, when the run returns: `CommandContext.keepUntilExit` in a command
    /// (the executable leaves it to the exit; freeing a 5-version run's contracts, built targets and reports took 3 ms
    /// at the end of it), nothing elsewhere (it is then freed as usual).
    var keepUntilExit: (Any) -> Void = { _ in }
    /// The signal that has stopped the run so far, asked before the reports are written (`RunReport.stoppedBySignal`).
    var stoppedBy: () -> Int32? = { nil }

    /// - Parameters: as the properties.
    public init(
        plan: RunPlan, runner: ContractRunner = ContractRunner(),
        tap: @escaping ([Contract]) -> ResponseTap = { _ in ResponseTap() }
    ) {
        self.plan = plan
        self.runner = runner
        self.tap = tap
    }

    /// Runs the plan.
    /// - Parameters:
    ///   - write: Where standard output goes (the console, `--json -`, annotations), as soon as it is ready.
    ///   - writeError: Where the console goes instead when `--json -` takes standard output (default: `write`).
    /// - Returns: The run.
    /// - Throws: `RunError`: broken contracts, no target selected, a mock, baseline or report that cannot be used
    ///   (nothing was sent), or a report or baseline that could not be written at the end.
    public func run(write: @escaping (String) -> Void, writeError: ((String) -> Void)? = nil) throws(RunError)
        -> RunReport
    {
        let inputs = plan.inputs
        let gate = plan.gate
        // The transport's own set-up (libcurl's, OpenSSL's) on the other core while the manifests are read: a run
        // of one contract is mostly start-up. Waited for on every way out, sent or not.
        let startUp = plan.spec.isOffline ? nil : runner.transport.startUp()
        defer { startUp?.wait() }
        // A tool reading `--json -` gets JSON lines alone on standard output; people read the console on stderr.
        let console = plan.reports.isStandardOutputTaken ? (writeError ?? write) : write
        var (selected, server, versions) = try selectedContracts(write: console)
        defer {
            versions?.removeScratch()
            withExtendedLifetime(server) {}
        }
        // Every target the manifests declare, when no --filter kept some out: an entry of one of their services for
        // a target they no longer declare is dropped by --update-baseline.
        let declared = inputs.filter.patterns.isEmpty ? selected : nil
        if gate.isUpdatingBaseline && gate.baselinePath == nil {
            throw .usage("--update-baseline writes the file of --baseline FILE; add --baseline contracts/baseline.json")
        }
        let baseline = BaselineGate(
            file: try gate.baselinePath.map { (path) throws(RunError) in
                try Self.baseline(at: path, isUpdating: gate.isUpdatingBaseline)
            })
        selected = try inputs.shardPart(of: selected, write: console)
        let specs = try plan.spec.load(for: selected)
        var sinks: [any ReportSink] = [
            ConsoleOutput(
                contracts: selected, color: plan.reports.color ?? false, detail: plan.reports.detail, write: console)
        ]
        let tap = tap(selected)
        let formats = plan.reports.selection(environment: inputs.environment).map { format, path in
            let destination = ReportDestination(
                // With `--json -` on standard output, annotations and diagnostics go where the console goes.
                path: path, environment: inputs.environment,
                standardOutput: format.isStandardOutput(path) ? write : console,
                flags: plan.reports.flags.intersection(format.flags.map(\.name)))
            return ("--\(format.option)", format.sink(destination))
        }
        // Every report path is checked before anything is sent: the exit code of a run always speaks of its contracts.
        let written =
            plan.reports.selection(environment: inputs.environment).compactMap { format, path in
                path.map { ("--\(format.option)", $0) }
            } + tap.sinks.compactMap { option, sink in (sink as? HARRecording).map { (option, $0.path) } }
        try Self.refuseOverwriting(written, readBy: selected)
        for (option, sink) in formats + tap.sinks {
            do {
                try sink.prepare()
            } catch {
                throw .report(option: option, error)
            }
            sinks.append(sink)
        }
        let report: RunReport
        defer { keepUntilExit((selected, sinks, specs, versions as Any)) }
        do {
            let (finished, lines) = try run(
                selected, sinks: sinks, baseline: baseline, specs: specs, onResponse: tap.onResponse,
                whenChecked: { versions?.startRemovingScratch() })
            for line in lines { console(line + "\n") }
            if plan.spec.listsUncovered {
                for coverage in finished.specCoverage {
                    console(
                        "not covered by any target in \(coverage.file):"
                            + (coverage.uncovered.isEmpty ? " nothing\n" : "\n"))
                    for line in coverage.uncovered { console("  \(line)\n") }
                }
            }
            report = finished
        } catch {
            for line in error.lines { console(line + "\n") }
            throw .unwritten(error)
        }
        if let path = gate.baselinePath, gate.isUpdatingBaseline {
            let updated = baseline.updated(with: report.results, declared: declared)
            do {
                try ReportFile.write(updated.serialized(), to: path)
            } catch {
                throw .baselineUnwritten(report: report, error)
            }
            console(Self.baselineLine(updated, path: path, report: report) + "\n")
        }
        return report
    }

    /// Sends and checks `contracts`, handing each result to every sink as it is known, then the whole run: the part
    /// of `run(write:writeError:)` after the start-up, for callers that bring their own contracts and sinks.
    /// - Parameters:
    ///   - contracts: What to verify.
    ///   - sinks: Where results go (prepared already).
    ///   - baseline: The known drifts and pending targets (`--baseline`).
    ///   - specs: The OpenAPI documents (`--spec`); with `--offline` the targets are checked against them alone.
    ///   - onResponse: Called with each live response before its body is dropped (see `ContractRunner.run`).
    ///   - whenChecked: Called once every answer is checked, before the sinks finish their reports.
    /// - Returns: The run, and the lines the sinks give for the console (where each report went).
    /// - Throws: `RunPipelineError` when a sink cannot write its report (every other sink has still been finished).
    public func run(
        _ contracts: [Contract], sinks: [any ReportSink], baseline: BaselineGate = BaselineGate(),
        specs: SpecSet = SpecSet(), onResponse: @escaping (Int, HTTPResponse) -> Void = { _, _ in },
        whenChecked: () -> Void = {}
    ) throws(RunPipelineError) -> (report: RunReport, lines: [String]) {
        var sinks = sinks
        // Only sinks that show live bodies (HTML) get responses; without one, a body is dropped once checked.
        let wanting = sinks.indices.filter { sinks[$0].wantsResponses }
        // `--fail-fast`: the run's cancellation (the one Ctrl-C uses too) is raised at the first drift; each answer
        // is then checked before the transport goes on, so nothing is sent after that drift.
        // (A plan always has a cancellation: `RunPlan.init` makes one when it is given none.)
        let cancellation = plan.transport.cancellation ?? Cancellation()
        let failFast =
            plan.gate.isFailFast
            ? FailFast(cancellation: cancellation, failingCulprits: plan.spec.failingCulprits) : nil
        var transport = plan.transport
        transport.cancellation = cancellation
        func deliver(_ index: Int, _ result: ContractResult) {
            failFast?.observe(result)
            let shown = failFast?.relabeled(result) ?? result
            for position in sinks.indices { sinks[position].add(shown, at: index) }
        }
        var report =
            plan.spec.isOffline
            ? runner.check(contracts, against: specs, baseline: baseline, onResult: deliver)
            : runner.run(
                contracts, checks: plan.checks, transport: transport, baseline: baseline, inStep: failFast != nil,
                specs: specs,
                onResponse: { index, response in
                    onResponse(index, response)
                    for position in wanting { sinks[position].addResponse(response, at: index) }
                }, onResult: deliver)
        whenChecked()
        if let failFast { report.results = report.results.map(failFast.relabeled) }
        report.shard = plan.inputs.sharding.shard
        report.failsOnFlaky = plan.gate.failsOnFlaky
        report.failingCulprits = plan.spec.failingCulprits
        report.stoppedBySignal = stoppedBy()
        let outcomes = Self.finish(&sinks, report, threadedFrom: resultsForThreadedFinish)
        var lines: [String] = []
        var failure: ReportError?
        for outcome in outcomes {
            switch outcome {
            case .success(let line): if let line { lines.append(line) }
            case .failure(let error): failure = failure ?? error
            }
        }
        if let failure { throw RunPipelineError(report: report, lines: lines, error: failure) }
        return (report, lines)
    }

    /// Each sink's `finish`, its outcome in the order of the sinks. The sinks that only write their own file
    /// (`finishesAlone`: JUnit, HTML, CTRF) finish on threads of their own, beside the others, which print and so
    /// finish one after the other: once the run is over both cores are idle, and a 5-version run of 2,000 targets
    /// spent 98 M instructions on the console's summary, then 192 M on its JUnit file.
    private static func finish(_ sinks: inout [any ReportSink], _ report: RunReport, threadedFrom: Int)
        -> [Result<String?, ReportError>]
    {
        typealias Outcome = Result<String?, ReportError>
        let alone = sinks.indices.filter { sinks[$0].finishesAlone }
        let printing = sinks.indices.filter { !sinks[$0].finishesAlone }
        // Group 0 is the printing sinks, in order; each other group one sink alone.
        let groups = (printing.isEmpty ? [] : [printing]) + alone.map { [$0] }
        var outcomes = [Outcome](repeating: .success(nil), count: sinks.count)
        func finish(_ position: Int, in sinks: UnsafeMutableBufferPointer<any ReportSink>) -> Outcome {
            Outcome { () throws(ReportError) in try sinks[position].finish(report) }
        }
        // A small run finishes on the caller's thread: starting threads would cost more than they save.
        guard groups.count > 1, report.results.count >= threadedFrom else {
            sinks.withUnsafeMutableBufferPointer { sinks in
                for position in sinks.indices { outcomes[position] = finish(position, in: sinks) }
            }
            return outcomes
        }
        sinks.withUnsafeMutableBufferPointer { sinks in
            outcomes.withUnsafeMutableBufferPointer { outcomes in
                // Each group reads and writes its own sinks' and outcomes' elements only.
                let shared = UncheckedSendable((sinks, outcomes))
                DeepStack.concurrentPerform(name: "tether-report", iterations: groups.count) { group in
                    let (sinks, outcomes) = shared.value
                    for position in groups[group] { outcomes[position] = finish(position, in: sinks) }
                }
            }
        }
        return outcomes
    }

    /// The inputs' selected contracts; when the manifests have errors, with the problems of the documents given with
    /// `--spec`, so that one run names both (the documents are read only then: a run reads them once its targets
    /// are selected).
    private func selectedContracts(write: (String) -> Void) throws(RunError) -> (
        contracts: [Contract], server: MockServer?, versions: VersionedContracts?
    ) {
        do {
            return try plan.inputs.selectedContracts(write: write)
        } catch .contracts(let errors, _) where !plan.spec.documents.isEmpty {
            throw .contracts(errors, specs: plan.spec.brokenDocuments())
        } catch {
            throw error
        }
    }

    /// `--list`: the targets this plan would run, one line each (`Service.target  GET URL`, secrets redacted), and
    /// nothing sent. The mock is not started: requests are shown with the manifests' (or `--base-url`'s) URLs.
    /// - Parameter write: Where the lines go.
    /// - Returns: How many targets would run.
    /// - Throws: `RunError` as `run` does before it sends anything.
    public func list(write: @escaping (String) -> Void) throws(RunError) -> Int {
        var inputs = plan.inputs
        inputs.mock = MockReplay()
        var (selected, _, versions) = try inputs.selectedContracts(write: write, sends: false)
        defer {
            versions?.removeScratch()
            keepUntilExit((selected, versions as Any))
        }
        selected = try inputs.shardPart(of: selected, write: write)
        let redactor = Redactor(contracts: selected)
        let width = min(48, selected.map { ReportText.qualifiedName($0).count }.max() ?? 0)
        var sent = 0
        var servicesWithSteps = Set<String>()
        // A step as `--list` shows it: under its target (or before its service's first target), indented.
        func stepLines(_ steps: [Step], _ phase: StepRecord.Phase, indent: String) {
            for step in steps {
                let request = StepCaptures.written("\(step.request.method) \(step.request.url)")
                write("\(indent)\(phase.label) step \(step.name)  \(ReportText.clean(request, redactor: redactor))\n")
            }
        }
        for contract in selected {
            let name = ReportText.qualifiedName(contract)
            let padded = name + String(repeating: " ", count: max(0, width - name.count))
            if let steps = contract.serviceSteps, servicesWithSteps.insert(contract.service).inserted {
                write("\(contract.service) (once per run):\n")
                stepLines(steps.before, .before, indent: "  ")
                stepLines(steps.after, .after, indent: "  ")
            }
            if case .networkError = contract.sampleResponse {
                write("\(padded)  (a networkError stub: skipped, nothing to send)\n")
            } else {
                sent += 1
                let request = ContractResult(contract: contract, outcome: .passed).requestLine
                write("\(padded)  " + ReportText.clean(request, redactor: redactor) + "\n")
                if let steps = contract.steps {
                    stepLines(steps.before, .before, indent: "    ")
                    stepLines(steps.after, .after, indent: "    ")
                }
            }
        }
        let targets = selected.count == 1 ? "1 target" : "\(selected.count) targets"
        write("\(targets), \(sent) to send; nothing was sent (--list)\n")
        return selected.count
    }

    /// Whether `text` ends with `suffix`, ASCII letters compared without case; nothing is allocated.
    static func endsWith(_ suffix: String, _ text: String) -> Bool {
        guard suffix.utf8.count <= text.utf8.count else { return false }
        func folded(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }
        return zip(suffix.utf8.reversed(), text.utf8.reversed()).allSatisfy { folded($0) == folded($1) }
    }

    /// Refuses a report path that names a file the run reads (a manifest, a sample file), before anything is sent:
    /// `--junit contracts/api.json` would replace the contracts with the report. Only paths that exist are compared
    /// (by where they lead), and each contract's files once they differ from the last one's.
    private static func refuseOverwriting(_ written: [(option: String, path: String)], readBy contracts: [Contract])
        throws(RunError)
    {
        let existing = written.compactMap { option, path in
            path.resolvedPath.map { (option, path, real: $0, name: $0.pathLastComponent) }
        }
        guard !existing.isEmpty else { return }
        func check(_ file: String) throws(RunError) {
            // The name first, cheaply, without case: a Mac's disk folds it (`--junit contracts/api.json` replaces
            // `contracts/API.json` there), and `realpath` gives the name as stored.
            for (option, path, real, name) in existing where Self.endsWith(name, file) && file.resolvedPath == real {
                throw .usage(
                    "\(option) \(path): the run reads this file (\(file)), which the report would replace: give the "
                        + "report another path")
            }
        }
        // A manifest's targets share its path, and an inline stub's file is the manifest: compared once a run of them.
        var last: (source: String?, stub: String?)
        for contract in contracts {
            let (source, stub) = (contract.source, contract.stubFile)
            if source != last.source { try check(source) }
            if let stub, stub != last.stub { try check(stub) }
            last = (source, stub)
        }
    }

    /// The baseline at `path`, read before anything is sent; an empty one when it is being written and is not
    /// there yet.
    private static func baseline(at path: String, isUpdating: Bool) throws(RunError) -> BaselineFile {
        if isUpdating {
            do {
                try ReportFile.checkWritable(path)
            } catch {
                throw .report(option: "--update-baseline", error)
            }
            if !FileManager.default.fileExists(atPath: path) { return BaselineFile() }
        }
        do {
            return try BaselineFile.load(path: path)
        } catch {
            throw .baseline(error)
        }
    }

    /// `wrote baseline FILE: 3 targets, 2 known drifts (1 new, 1 pruned)`.
    private static func baselineLine(_ baseline: BaselineFile, path: String, report: RunReport) -> String {
        let drifts = baseline.targets.reduce(0) { $0 + $1.drifts.count }
        let added = report.results.reduce(0) { count, result in
            count + result.findings.filter(\.isDrift).count - result.knownDrifts.count
        }
        let targets = baseline.targets.count == 1 ? "1 target" : "\(baseline.targets.count) targets"
        let known = drifts == 1 ? "1 known drift" : "\(drifts) known drifts"
        return "wrote baseline \(path): \(targets), \(known) (\(added) new, \(report.fixed.count) pruned)"
    }
}

/// What a command built on `verify` adds to its run: a callback for each live response, and the sinks that write
/// what it kept (prepared with the reports, before anything is sent), each with the option that named its file.
public struct ResponseTap {
    /// Called with each live response and its contract's index among the selected contracts.
    public var onResponse: (Int, HTTPResponse) -> Void
    /// The sinks, each with its option (`--out`) for the message when its file cannot be written.
    public var sinks: [(option: String, sink: any ReportSink)]

    /// - Parameters: as the properties.
    public init(
        onResponse: @escaping (Int, HTTPResponse) -> Void = { _, _ in },
        sinks: [(option: String, sink: any ReportSink)] = []
    ) {
        self.onResponse = onResponse
        self.sinks = sinks
    }
}

/// A run that finished but whose report could not be written: the run, and why.
public struct RunPipelineError: Error, CustomStringConvertible {
    /// The run, complete.
    public var report: RunReport
    /// The lines of the sinks that did write.
    public var lines: [String]
    /// Why a report could not be written.
    public var error: ReportError

    /// Why the report could not be written.
    public var description: String { error.description }
}
