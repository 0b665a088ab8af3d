import Foundation

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
public struct ContractResult: Sendable, Equatable {
    /// The contract checked.
    public var contract: Contract
    /// Passed, drifted, error or skipped.
    public var outcome: Outcome
    /// Drifts and notes, in the order found.
    public var findings: [Finding]
    /// The live status code, when a response arrived.
    public var liveStatusCode: Int?
    /// The URL that answered, after redirects.
    public var liveURL: String?
    /// Seconds spent on this contract.
    public var duration: Double

    /// - Parameters: as the properties.
    public init(
        contract: Contract, outcome: Outcome, findings: [Finding] = [], liveStatusCode: Int? = nil,
        liveURL: String? = nil, duration: Double = 0
    ) {
        self.contract = contract
        self.outcome = outcome
        self.findings = findings
        self.liveStatusCode = liveStatusCode
        self.liveURL = liveURL
        self.duration = duration
    }

    /// The request line as reports print it: `GET https://api.example.com/users?per_page=2`.
    public var requestLine: String { "\(contract.request.method) \(contract.request.url)" }
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

    /// No results.
    public init() {}

    /// Counts `results`.
    public init<Results: Sequence>(_ results: Results) where Results.Element == ContractResult {
        for result in results {
            switch result.outcome {
            case .passed: passed += 1
            case .drifted: drifted += 1
            case .error: errors += 1
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
    }

    /// The exit code for a CI gate, the one home of that policy (a run, `ContractReport` and `merge-reports` use
    /// it): 1 a drift; else 4 nothing was checked (no target passed or drifted); else 3 some target could not be
    /// checked; else 0, every contract holds.
    public var exitCode: Int32 {
        if drifted > 0 { return 1 }
        if passed + drifted == 0 { return 4 }
        if errors > 0 { return 3 }
        return 0
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

    /// - Parameters: as the properties.
    public init(results: [ContractResult], startedAt: Date, duration: Double, hostname: String, secrets: [String] = [])
    {
        self.results = results
        self.startedAt = startedAt
        self.duration = duration
        self.hostname = hostname
        self.secrets = secrets
    }

    /// How many results came out each way: the one count every report prints.
    public var counts: OutcomeCounts { OutcomeCounts(results) }
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
        var order: [String] = []
        var byService: [String: [ContractResult]] = [:]
        for result in results {
            if byService[result.contract.service] == nil { order.append(result.contract.service) }
            byService[result.contract.service, default: []].append(result)
        }
        return order.map { ($0, byService[$0] ?? []) }
    }

    /// No target was checked against a service: none was given, or every one was skipped or could not be checked.
    public var isNothingChecked: Bool { passedCount + driftedCount == 0 }

    /// Why nothing was checked (`nothing was checked: …`), or `nil` when something was.
    public var nothingCheckedReason: String? {
        guard isNothingChecked else { return nil }
        if results.isEmpty, let shard { return "nothing to check: shard \(shard) has no targets" }
        if results.isEmpty { return "nothing was checked: no targets were given" }
        return "nothing was checked: every target was skipped or could not be checked"
    }

    /// The exit code for a CI gate: `OutcomeCounts.exitCode`, except that a shard with no targets (more shards
    /// than targets) is 0: there was nothing for it to check.
    public var exitCode: Int32 {
        if results.isEmpty, shard != nil { return 0 }
        return counts.exitCode
    }

    /// The exit code of a run that a signal may have stopped: `128 + signal` (130 for SIGINT, 143 for SIGTERM) when
    /// one did, whatever finished before it, else `exitCode`.
    /// - Parameter signal: The signal that stopped the run, or `nil`.
    /// - Returns: The process exit code.
    public func exitCode(interruptedBy signal: Int32?) -> Int32 {
        signal.map { 128 + $0 } ?? exitCode
    }
}
