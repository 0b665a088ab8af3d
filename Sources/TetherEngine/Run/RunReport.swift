#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// How one contract came out.
public enum Outcome: Sendable, Equatable {
    /// Every rule holds (notes may still be attached).
    case passed
    /// At least one finding is a drift.
    case drifted
    /// The target could not be checked (transport failure): the message says why.
    case error(String)
    /// The target cannot be checked against a service (a `networkError` stub, an upload): the reason.
    case skipped(String)
}

/// One contract, its outcome, and everything the reports print about it.
///
/// A value with its fields behind one shared, immutable reference, as `Contract`'s: the runner, each sink and each
/// report copy every result (about twenty copies a result in a run), and a copy of the fields was six references to
/// retain and release (a `--ref` run of five versions: 64 M instructions of copies). Setting a property changes the
/// fields in place when no other result shares them, else makes a new reference (copy on write).
public struct ContractResult: Sendable, Equatable {
    private struct Fields: Sendable, Equatable {
        var contract: Contract
        var outcome: Outcome
        var findings: [Finding]
        var liveStatusCode: Int?
        var liveURL: String?
        var duration: Double
        var attempts: Int
        var knownDrifts: [Finding]
        var isPending: Bool
        var steps: [StepRecord] = []
        /// `BodyCoverage.covers(contract)`, asked once, when the result is made or its contract is set: a run's
        /// check has just read the stub, and its reports count the results, reading no stub again (at the end of a
        /// 100,000-target run, each report read every stub's first bytes, page by page, from a mapped manifest).
        var hasBodyContract: Bool
    }

    /// Changed in place only while one result holds it; reads skip the run-time exclusivity check. The same class as
    /// `Contract`'s, not one generic class for both: a `SharedFields<Fields>` in TetherContracts made a 5-tag run 962
    /// -> 997 M instructions (each field read through the generic class from this module).
    private final class Storage: @unchecked Sendable {
        @exclusivity(unchecked) var fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private var storage: Storage

    private mutating func update(_ change: (inout Fields) -> Void) {
        if isKnownUniquelyReferenced(&storage) {
            change(&storage.fields)
        } else {
            var fields = storage.fields
            change(&fields)
            storage = Storage(fields)
        }
    }

    /// The contract checked.
    public var contract: Contract {
        get { storage.fields.contract }
        set {
            update {
                $0.contract = newValue
                $0.hasBodyContract = BodyCoverage.covers(newValue)
            }
        }
    }
    /// Passed, drifted, error or skipped.
    public var outcome: Outcome {
        get { storage.fields.outcome }
        set { update { $0.outcome = newValue } }
    }
    /// Drifts and notes, in the order found.
    public var findings: [Finding] {
        get { storage.fields.findings }
        set { update { $0.findings = newValue } }
    }
    /// The live status code, when a response arrived.
    public var liveStatusCode: Int? {
        get { storage.fields.liveStatusCode }
        set { update { $0.liveStatusCode = newValue } }
    }
    /// The URL that answered, after redirects.
    public var liveURL: String? {
        get { storage.fields.liveURL }
        set { update { $0.liveURL = newValue } }
    }
    /// Seconds spent on this contract (its last attempt).
    public var duration: Double {
        get { storage.fields.duration }
        set { update { $0.duration = newValue } }
    }
    /// How many times the request was sent: 1, or more when `--retries` sent it again after a transport error, a
    /// 5xx or a 429.
    public var attempts: Int {
        get { storage.fields.attempts }
        set { update { $0.attempts = newValue } }
    }
    /// The drifts that the baseline (`--baseline`) already records: a subset of `findings`.
    public var knownDrifts: [Finding] {
        get { storage.fields.knownDrifts }
        set { update { $0.knownDrifts = newValue } }
    }
    /// Whether the target is pending (`"pending": true` and never passed, or new since the baseline): it is
    /// reported, but its drifts and errors do not fail the gate.
    public var isPending: Bool {
        get { storage.fields.isPending }
        set { update { $0.isPending = newValue } }
    }
    /// The target's set-up and clean-up steps (manifest target `"steps"`), in the order they ran.
    public var steps: [StepRecord] {
        get { storage.fields.steps }
        set { update { $0.steps = newValue } }
    }

    /// Whether the target has a body contract (`BodyCoverage`), known since the result was made.
    var hasBodyContract: Bool { storage.fields.hasBodyContract }

    /// - Parameters: as the properties.
    public init(
        contract: Contract, outcome: Outcome, findings: [Finding] = [], liveStatusCode: Int? = nil,
        liveURL: String? = nil, duration: Double = 0, attempts: Int = 1, knownDrifts: [Finding] = [],
        isPending: Bool = false
    ) {
        storage = Storage(
            Fields(
                contract: contract, outcome: outcome, findings: findings, liveStatusCode: liveStatusCode,
                liveURL: liveURL, duration: duration, attempts: attempts, knownDrifts: knownDrifts,
                isPending: isPending, hasBodyContract: BodyCoverage.covers(contract)))
    }

    /// Equal when every field is: the same storage is equal without comparing.
    public static func == (a: ContractResult, b: ContractResult) -> Bool {
        a.storage === b.storage || a.storage.fields == b.storage.fields
    }

    /// Passed, but only after a retry: the service or the network is unreliable (`--fail-on-flaky` fails on it).
    public var isFlaky: Bool { outcome == .passed && attempts > 1 }

    /// Drifted, and every drift is recorded in the baseline: reported as known, it does not fail the gate.
    public var isKnownDrift: Bool {
        outcome == .drifted && !knownDrifts.isEmpty && findings.filter(\.isDrift).allSatisfy(knownDrifts.contains)
    }

    /// Whether this result fails the gate, the one home of that rule per target: a drift that is not all known, or
    /// an error, unless the target is pending; a flaky pass when `failsOnFlaky`.
    /// A drift against an OpenAPI document fails it only when its culprit is one of `failingCulprits` (`--fail-on`).
    /// - Parameters:
    ///   - failsOnFlaky: `--fail-on-flaky`.
    ///   - failingCulprits: `--fail-on`: the culprits whose drifts fail the gate; `nil` for all.
    /// - Returns: `true` when the run must not pass because of this result.
    public func failsGate(failsOnFlaky: Bool = false, failingCulprits: Set<Finding.Culprit>? = nil) -> Bool {
        switch outcome {
        case .drifted:
            !isPending && !isKnownDrift
                && (failingCulprits == nil
                    || findings.contains { finding in
                        finding.isDrift && !knownDrifts.contains(finding)
                            && (finding.culprit.map { failingCulprits?.contains($0) ?? true } ?? true)
                    })
        case .error: !isPending
        case .passed: failsOnFlaky && isFlaky
        case .skipped: false
        }
    }

    /// The request line as reports print it: `GET https://api.example.com/users?per_page=2`.
    /// A request that steps fill in and that was not sent shows the captured values it waited for as `${NAME}`.
    public var requestLine: String { "\(contract.request.method) \(requestURL)" }

    /// The request's URL as reports print it (captured values not filled in written as `${NAME}`).
    public var requestURL: String {
        contract.steps == nil && contract.serviceSteps == nil
            ? contract.request.url : StepCaptures.written(contract.request.url)
    }
}

/// How many results came out each way; the one place outcomes are counted (console, JUnit, exit code).
public struct OutcomeCounts: Sendable, Equatable {
    /// Every rule held.
    public var passed = 0
    /// At least one drift (JUnit's failures).
    public var drifted = 0
    /// Could not be checked (JUnit's errors).
    public var errors = 0
    /// Cannot be checked against a service.
    public var skipped = 0
    /// Of `drifted`: every drift recorded in the baseline.
    public var knownDrifted = 0
    /// Pending targets that drifted or could not be checked (they do not fail the gate).
    public var pending = 0
    /// Passed only after a retry.
    public var flaky = 0
    /// Of `drifted`: those that do not fail the gate (every drift known, or the target pending).
    public var excusedDrifted = 0
    /// Of `errors`: those that do not fail the gate (the target pending).
    public var excusedErrors = 0
    /// Of `flaky`: those that fail the gate (`--fail-on-flaky`).
    public var failingFlaky = 0

    /// No results.
    public init() {}

    /// Counts `results`; which of them fail the gate is `ContractResult.failsGate(failsOnFlaky:)`.
    /// - Parameters:
    ///   - results: The results.
    ///   - failsOnFlaky: `--fail-on-flaky`.
    ///   - failingCulprits: `--fail-on`.
    public init<Results: Sequence>(
        _ results: Results, failsOnFlaky: Bool = false, failingCulprits: Set<Finding.Culprit>? = nil
    ) where Results.Element == ContractResult {
        // Each outcome asked only what can be true of it (a pass fails the gate only when it is flaky): a report's
        // sinks count every result, and asking each all of it was 0.2 µs a result.
        func fails(_ result: ContractResult) -> Bool {
            result.failsGate(failsOnFlaky: failsOnFlaky, failingCulprits: failingCulprits)
        }
        for result in results {
            switch result.outcome {
            case .passed:
                passed += 1
                if result.isFlaky {
                    flaky += 1
                    if fails(result) { failingFlaky += 1 }
                }
            case .drifted:
                drifted += 1
                if !fails(result) { excusedDrifted += 1 }
                if result.isKnownDrift { knownDrifted += 1 }
                if result.isPending { pending += 1 }
            case .error:
                errors += 1
                if !fails(result) { excusedErrors += 1 }
                if result.isPending { pending += 1 }
            case .skipped: skipped += 1
            }
        }
    }
}

extension OutcomeCounts {
    /// Adds `other`'s counts.
    public mutating func add(_ other: OutcomeCounts) {
        passed += other.passed
        drifted += other.drifted
        errors += other.errors
        skipped += other.skipped
        knownDrifted += other.knownDrifted
        pending += other.pending
        flaky += other.flaky
        excusedDrifted += other.excusedDrifted
        excusedErrors += other.excusedErrors
        failingFlaky += other.failingFlaky
    }

    /// The exit code for a CI gate, the one home of that policy (a run, `ContractReport` and `merge-reports` use
    /// it): 1 a drift that fails the gate (not every drift known to the baseline, the target not pending); else 4
    /// nothing was checked (no target passed or drifted); else 3 some target could not be checked (and is not
    /// pending), or with `--fail-on-flaky` passed only after a retry; else 0, every contract holds. Counts that
    /// know nothing of the gate (all excused counts 0) give the plain rule.
    public var exitCode: ExitCode {
        if drifted > excusedDrifted { return .drift }
        if passed + drifted == 0 { return .nothingChecked }
        if errors > excusedErrors || failingFlaky > 0 { return .notChecked }
        return .success
    }
}

/// Everything one run produced: what the console, JUnit and the exit code are made from.
public struct RunReport: Sendable, Equatable {
    /// Every contract's result, in contract order.
    public var results: [ContractResult]
    /// When the run started (the JUnit timestamp).
    public var startedAt: Date
    /// Wall-clock seconds of the whole run.
    public var duration: Double
    /// The machine that ran it (the JUnit suites' `hostname`).
    public var hostname: String
    /// Every value that must be shown as `<redacted>` in any text.
    public var secrets: [String]
    /// The part of a sharded run this is (`--shard K/N`), or `nil` for a whole run.
    public var shard: ContractShard?
    /// The signal that stopped the run (Ctrl-C's SIGINT, SIGTERM) before its reports were written, or `nil`: their
    /// exit code is then the process's, `128 + signal`.
    public var stoppedBySignal: Int32?
    /// Baseline drifts of targets checked in this run that no longer drift (`--update-baseline` prunes them).
    public var fixed: [FixedDrift]
    /// `--fail-on-flaky`: a target that passed only after a retry fails the gate.
    public var failsOnFlaky: Bool
    /// `--fail-on`: the culprits whose drifts fail the gate; `nil` for all.
    public var failingCulprits: Set<Finding.Culprit>?
    /// How much of each OpenAPI document (`--spec`) the targets cover; empty without one.
    public var specCoverage: [SpecCoverage] = []
    /// The service-level set-up and clean-up steps (manifest service `"steps"`), in the order they ran; a target's
    /// own are in its result.
    public var steps: [StepRecord] = []

    /// - Parameters: as the properties.
    public init(
        results: [ContractResult], startedAt: Date, duration: Double, hostname: String, secrets: [String] = [],
        fixed: [FixedDrift] = [], failsOnFlaky: Bool = false
    ) {
        self.results = results
        self.startedAt = startedAt
        self.duration = duration
        self.hostname = hostname
        self.secrets = secrets
        self.fixed = fixed
        self.failsOnFlaky = failsOnFlaky
    }

    /// How many results came out each way: the one count every report prints.
    public var counts: OutcomeCounts {
        OutcomeCounts(results, failsOnFlaky: failsOnFlaky, failingCulprits: failingCulprits)
    }
    /// Targets with a body contract / all targets (`BodyCoverage`).
    public var coverage: BodyCoverage { BodyCoverage(results: results) }
    /// Targets that held.
    public var passedCount: Int { counts.passed }
    /// Targets that drifted (JUnit's failures).
    public var driftedCount: Int { counts.drifted }
    /// Targets that could not be checked (JUnit's errors).
    public var errorCount: Int { counts.errors }
    /// Targets that cannot be checked against a service (JUnit's skipped).
    public var skippedCount: Int { counts.skipped }

    /// Services in order of first appearance, each with its results: the JUnit suites.
    public var suites: [(service: String, results: [ContractResult])] {
        // One service (the usual run) shares the results instead of copying them (100,000 results are ~14 MB).
        if let first = results.first?.contract.service, results.allSatisfy({ $0.contract.service == first }) {
            return [(first, results)]
        }
        // Results come in runs of one service (a version's, a manifest's): the service is looked up once a run.
        var suites: [(service: String, results: [ContractResult])] = []
        var suiteOf: [String: Int] = [:]
        var current = -1
        for result in results {
            let service = result.contract.service
            if current < 0 || service != suites[current].service {
                current = suiteOf[service] ?? suites.count
                if current == suites.count {
                    suiteOf[service] = current
                    suites.append((service, []))
                }
            }
            suites[current].results.append(result)
        }
        return suites
    }

    /// No target was checked against a service: none was given, or every one was skipped or could not be checked.
    public var isNothingChecked: Bool {
        let counts = counts  // one pass over the results, not one per count
        return counts.passed + counts.drifted == 0
    }

    /// Why nothing was checked (`nothing was checked: …`), or `nil` when something was.
    public var nothingCheckedReason: String? {
        guard isNothingChecked else { return nil }
        if results.isEmpty, let shard { return "nothing to check: shard \(shard) has no targets" }
        if results.isEmpty { return "nothing was checked: no targets were given" }
        return "nothing was checked: every target was skipped or could not be checked"
    }

    /// The exit code for a CI gate: `OutcomeCounts.exitCode` (which reads the baseline's marks and
    /// `failsOnFlaky`), except that a shard with no targets (more shards than targets) is 0: there was nothing for
    /// it to check; and a run a signal stopped has the process's, `128 + signal` (`stoppedBySignal`).
    public var exitCode: ExitCode {
        if let stoppedBySignal { return .stopped(by: stoppedBySignal) }
        if results.isEmpty, shard != nil { return .success }
        return counts.exitCode
    }

    /// The exit code of a run that a signal may have stopped: `128 + signal` (130 for SIGINT, 143 for SIGTERM) when
    /// one did, whatever finished before it, else `exitCode`.
    /// - Parameter signal: The signal that stopped the run, or `nil`.
    /// - Returns: The process exit code.
    public func exitCode(interruptedBy signal: Int32?) -> ExitCode {
        signal.map(ExitCode.stopped(by:)) ?? exitCode
    }
}

extension Outcome {
    /// Whether the target could not be checked.
    public var isError: Bool {
        if case .error = self { return true }
        return false
    }
}

/// A drift the baseline records that did not come back: the target was checked and no longer drifts there.
public struct FixedDrift: Sendable, Equatable {
    /// The target's service.
    public var service: String
    /// The target's name.
    public var target: String
    /// Where and which rule, as the baseline has it.
    public var drift: BaselineFile.Drift

    /// - Parameters: as the properties.
    public init(service: String, target: String, drift: BaselineFile.Drift) {
        self.service = service
        self.target = target
        self.drift = drift
    }
}
