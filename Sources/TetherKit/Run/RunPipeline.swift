import Foundation

/// One run of the pipeline: contracts → transport → checks → report sinks. `tether verify` (through
/// `VerifyCommand`) and `ContractVerifier` both run through it.
public struct RunPipeline {
    /// Sends the requests and checks each answer.
    public var verifier: ContractRunner
    /// Strictness and transport.
    public var options: VerifyOptions
    /// Where results go: the console, report files.
    public var sinks: [any ReportSink]
    /// Called with each live response before its body is dropped (see `ContractRunner.run`).
    public var onResponse: (Int, HTTPResponse) -> Void
    /// The shard this run is, for its report (`RunReport.shard`).
    public var shard: ContractShard?
    /// `--fail-fast`: stops the run at the first drift and labels what was not run.
    public var failFast: FailFast?

    /// - Parameters: as the properties.
    public init(
        verifier: ContractRunner = ContractRunner(), options: VerifyOptions = VerifyOptions(),
        sinks: [any ReportSink] = [],
        onResponse: @escaping (Int, HTTPResponse) -> Void = { _, _ in }
    ) {
        self.verifier = verifier
        self.options = options
        self.sinks = sinks
        self.onResponse = onResponse
    }

    /// Checks that every sink can write (before anything is sent); throws the first that cannot.
    /// - Throws: `ReportError` of the first sink that could not write.
    public func prepare() throws(ReportError) {
        for sink in sinks { try sink.prepare() }
    }

    /// Runs `contracts`, handing each result to every sink as it is known, then the whole run.
    /// - Parameter contracts: What to verify.
    /// - Returns: The run, and the lines the sinks give for the console (where each report went).
    /// - Throws: `ReportError` when a sink cannot write its report (every other sink has still been finished).
    public mutating func run(_ contracts: [Contract]) throws(RunPipelineError) -> (report: RunReport, lines: [String]) {
        var sinks = self.sinks
        let onResponse = self.onResponse
        let failFast = failFast
        // Only sinks that show live bodies (HTML) get responses; without one, a body is dropped once checked.
        let wanting = sinks.indices.filter { sinks[$0].wantsResponses }
        var options = options
        // The first drift must stop the sending: each answer is checked before the transport goes on.
        if failFast != nil { options.checksInStep = true }
        var report = verifier.run(
            contracts, options: options,
            onResponse: { index, response in
                onResponse(index, response)
                for position in wanting { sinks[position].addResponse(response, at: index) }
            },
            onResult: { index, result in
                failFast?.observe(result)
                let shown = failFast?.relabeled(result) ?? result
                for position in sinks.indices { sinks[position].add(shown, at: index) }
            })
        if let failFast { report.results = report.results.map(failFast.relabeled) }
        report.shard = shard
        var lines: [String] = []
        var failure: ReportError?
        for position in sinks.indices {
            do {
                if let line = try sinks[position].finish(report) { lines.append(line) }
            } catch {
                failure = failure ?? error
            }
        }
        self.sinks = sinks
        if let failure { throw RunPipelineError(report: report, lines: lines, error: failure) }
        return (report, lines)
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

/// `tether verify` as a library call: read the manifests, select the targets, start the mock, check that every report
/// can be written, then run the pipeline with the console and the report files as sinks. The executable only parses
/// arguments and maps the outcome to an exit code.
public struct VerifyCommand {
    /// The manifests, `--base-url`, `--mock FILE.har` (replayed on 127.0.0.1, every request sent there) and `--filter`.
    public var inputs: RunInputs
    /// Strictness and transport (with the run's `Cancellation`).
    public var options: VerifyOptions
    /// Reports by format, with the option's value (`--junit PATH`; `nil` for flags): `ReportFormat.selection`.
    public var reports: [(format: ReportFormat, path: String?)]
    /// `--junit-file-attributes`.
    public var isJUnitFileAttributes: Bool
    /// Whether the console is colored.
    public var color: Bool
    /// The pipeline's verifier (libcurl by default).
    public var verifier: ContractRunner
    /// What else the run does with the live responses of the selected contracts (`tether record` keeps them).
    public var tap: ([Contract]) -> ResponseTap
    /// `--shard K/N`: run only this part of the selected targets.
    public var shard: ContractShard?
    /// `--timings FILE`: balance the shards by the durations of this earlier JUnit report, not by count.
    public var timingsReport: String?
    /// `--quiet`, `--verbose`.
    public var detail: ConsoleDetail = .normal
    /// `--fail-fast`: stop sending at the first drift.
    public var isFailFast = false
    /// `--baseline FILE`: known drifts and the targets that have passed; read before anything is sent.
    public var baselinePath: String?
    /// `--update-baseline`: write the baseline after the run (new drifts become known, fixed ones are pruned). A
    /// missing file then starts empty. The run's own exit code is still judged against the baseline as it was.
    public var isUpdatingBaseline: Bool

    /// - Parameters: as the properties.
    public init(
        inputs: RunInputs, options: VerifyOptions = VerifyOptions(),
        reports: [(format: ReportFormat, path: String?)] = [],
        isJUnitFileAttributes: Bool = false, color: Bool = false, verifier: ContractRunner = ContractRunner(),
        tap: @escaping ([Contract]) -> ResponseTap = { _ in ResponseTap() }, baselinePath: String? = nil,
        isUpdatingBaseline: Bool = false
    ) {
        self.isJUnitFileAttributes = isJUnitFileAttributes
        self.tap = tap
        self.baselinePath = baselinePath
        self.isUpdatingBaseline = isUpdatingBaseline
        self.inputs = inputs
        self.options = options
        self.reports = reports
        self.color = color
        self.verifier = verifier
    }

    /// Runs the command.
    /// - Parameters:
    ///   - write: Where standard output goes (the console, `--json -`, annotations), as soon as it is ready.
    ///   - writeError: Where the console goes instead when `--json -` takes standard output (default: `write`).
    /// - Returns: The run.
    /// - Throws: `VerifyCommandError`: broken contracts, no target selected, a mock or report that cannot be used
    ///   (nothing was sent), or a report that could not be written at the end.
    public func run(write: @escaping (String) -> Void, writeError: ((String) -> Void)? = nil)
        throws(VerifyCommandError) -> RunReport
    {
        // A tool reading `--json -` gets JSON lines alone on standard output; people read the console on stderr.
        let isStandardOutputTaken = reports.contains { $0.format.isStandardOutput($0.path) }
        let console = isStandardOutputTaken ? (writeError ?? write) : write
        var (selected, server) = try inputs.selectedContracts(write: console)
        defer { withExtendedLifetime(server) {} }
        // Every target the manifests declare, when no --filter kept some out: an entry of one of their services for
        // a target they no longer declare is dropped by --update-baseline.
        let declared = inputs.filter.patterns.isEmpty ? selected : nil
        if isUpdatingBaseline && baselinePath == nil {
            throw .usage("--update-baseline writes the file of --baseline FILE; add --baseline contracts/baseline.json")
        }
        let baseline = try baselinePath.map { (path) throws(VerifyCommandError) in
            BaselineGate(file: try Self.baseline(at: path, isUpdating: isUpdatingBaseline))
        }
        selected = try shardOf(selected, write: console)
        var sinks: [any ReportSink] = [
            ConsoleOutput(contracts: selected, color: color, detail: detail, write: console)
        ]
        let tap = tap(selected)
        let formats = reports.map { format, path in
            let destination = ReportDestination(
                // With `--json -` on standard output, annotations and diagnostics go where the console goes.
                path: path, environment: inputs.environment,
                standardOutput: format.isStandardOutput(path) ? write : console,
                isJUnitFileAttributes: isJUnitFileAttributes)
            return ("--\(format.option)", format.sink(destination))
        }
        // Every report path is checked before anything is sent: the exit code of a run always speaks of its contracts.
        for (option, sink) in formats + tap.sinks {
            do {
                try sink.prepare()
            } catch {
                throw .report(option: option, error)
            }
            sinks.append(sink)
        }
        var options = options
        if let baseline { options.baseline = baseline }
        var failFast: FailFast?
        if isFailFast {
            let cancellation = options.transport.cancellation ?? Cancellation()
            options.transport.cancellation = cancellation
            failFast = FailFast(cancellation: cancellation)
        }
        var pipeline = RunPipeline(verifier: verifier, options: options, sinks: sinks, onResponse: tap.onResponse)
        pipeline.shard = shard
        pipeline.failFast = failFast
        let report: RunReport
        do {
            let (finished, lines) = try pipeline.run(selected)
            for line in lines { console(line + "\n") }
            report = finished
        } catch {
            for line in error.lines { console(line + "\n") }
            throw .unwritten(error)
        }
        if let baselinePath, isUpdatingBaseline {
            let updated = options.baseline.updated(with: report.results, declared: declared)
            do {
                try ReportFile.write(updated.serialized(), to: baselinePath)
            } catch {
                throw .baselineUnwritten(report: report, error)
            }
            console(Self.baselineLine(updated, path: baselinePath, report: report) + "\n")
        }
        return report
    }

    /// The baseline at `path`, read before anything is sent; an empty one when it is being written and is not
    /// there yet.
    private static func baseline(at path: String, isUpdating: Bool) throws(VerifyCommandError) -> BaselineFile {
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

extension VerifyCommand {
    /// `--list`: the targets this command would run, one line each (`Service.target  GET URL`, secrets redacted),
    /// and nothing sent. The mock is not started: requests are shown with the manifests' (or `--base-url`'s) URLs.
    /// - Parameter write: Where the lines go.
    /// - Returns: How many targets would run.
    /// - Throws: `VerifyCommandError` as `run` does before it sends anything.
    public func list(write: @escaping (String) -> Void) throws(VerifyCommandError) -> Int {
        var listed = inputs
        listed.mockHAR = nil
        var (selected, _) = try listed.selectedContracts(write: write)
        selected = try shardOf(selected, write: write)
        let redactor = Redactor(contracts: selected)
        let width = min(48, selected.map { ReportText.qualifiedName($0).count }.max() ?? 0)
        var sent = 0
        for contract in selected {
            let name = ReportText.qualifiedName(contract)
            let padded = name + String(repeating: " ", count: max(0, width - name.count))
            if case .networkError = contract.sampleResponse {
                write("\(padded)  (a networkError stub: skipped, nothing to send)\n")
            } else {
                sent += 1
                write(
                    "\(padded)  "
                        + ReportText.clean("\(contract.request.method) \(contract.request.url)", redactor: redactor)
                        + "\n")
            }
        }
        let targets = selected.count == 1 ? "1 target" : "\(selected.count) targets"
        write("\(targets), \(sent) to send; nothing was sent (--list)\n")
        return selected.count
    }

    /// The part of `selected` that `--shard` runs (all of it without `--shard`), saying which part it is.
    fileprivate func shardOf(_ selected: [Contract], write: (String) -> Void) throws(VerifyCommandError)
        -> [Contract]
    {
        guard let shard else { return selected }
        var timings: [String: Double]?
        if let timingsReport {
            do {
                timings = try ContractShard.timings(fromReport: timingsReport)
            } catch {
                throw .selection("--timings \(error); give the JUnit report of an earlier run, or drop --timings")
            }
        }
        let part = shard.select(selected, timings: timings)
        let targets = selected.count == 1 ? "1 target" : "\(selected.count) targets"
        write("shard \(shard): \(part.count) of \(targets), balanced by \(timings == nil ? "count" : "time")\n")
        return part
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

/// Why `tether verify` stopped, or could not write its report.
public enum VerifyCommandError: Error, CustomStringConvertible {
    /// The manifests have errors: nothing was sent.
    case contracts(ContractErrors)
    /// The HAR file to replay cannot be used: nothing was sent.
    case mock(MockServerError)
    /// No target to verify: nothing was sent.
    case selection(String)
    /// A report cannot be written (checked before anything was sent).
    case report(option: String, ReportError)
    /// The run finished, but a report could not be written.
    case unwritten(RunPipelineError)
    /// The baseline file cannot be read or is malformed: nothing was sent.
    case baseline(ContractError)
    /// Options that do not go together (`--update-baseline` without `--baseline`): nothing was sent.
    case usage(String)
    /// The run finished, but `--update-baseline` could not write the file.
    case baselineUnwritten(report: RunReport, ReportError)

    /// The message, for `tether: error: …`.
    public var description: String {
        switch self {
        case .contracts(let errors): "\(errors.countText); nothing was sent"
        case .mock(let error): "\(error)"
        case .selection(let message): message
        case .report(let option, let error): "\(option) \(error); nothing was sent"
        case .unwritten(let error): "\(error)"
        case .baseline(let error): "--baseline \(error); nothing was sent"
        case .usage(let message): message
        case .baselineUnwritten(_, let error): "--update-baseline \(error)"
        }
    }
}
