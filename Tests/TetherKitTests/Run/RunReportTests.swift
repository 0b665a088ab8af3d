import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// The exit-code policy, in its one home: 1 a drift > 4 nothing was checked > 3 some could not be checked > 0.
@Suite struct RunReportTests {
    static func report(_ outcomes: [Outcome]) -> RunReport {
        let contract = Contract(
            service: "S", name: "t", baseURL: "http://127.0.0.1",
            request: HTTPRequest(method: "GET", url: "http://127.0.0.1/"), sampleData: .none, source: "x")
        return RunReport(
            results: outcomes.map { ContractResult(contract: contract, outcome: $0) }, startedAt: .now, duration: 0,
            hostname: "h")
    }

    @Test(
        arguments: [
            ([Outcome.passed], ExitCode.success),
            ([.passed, .skipped("upload")], 0),
            ([.drifted], 1),
            ([.drifted, .error("refused")], 1),
            ([.drifted, .skipped("upload")], 1),
            ([.passed, .error("refused")], 3),
            ([.error("refused")], 4),
            ([.skipped("upload")], 4),
            ([.skipped("upload"), .error("refused")], 4),
            ([], 4),
        ] as [([Outcome], ExitCode)])
    func exitCodeFollowsOutcomes(outcomes: [Outcome], code: ExitCode) async {
        let run = Self.report(outcomes)
        #expect(run.exitCode == code)
        // The Swift API's verdict is the same policy, not a second one.
        #expect(ContractReport(run: run).exitCode == code)
        #expect(ContractReport(run: run).isPassing == (code == 0))
        #expect((run.nothingCheckedReason != nil) == (code == 4))
    }

    @Test func aSignalDecidesTheExitCodeOfAStoppedRun() {
        let run = Self.report([.passed, .error("interrupted")])
        #expect(run.exitCode(interruptedBy: nil) == 3)
        #expect(run.exitCode(interruptedBy: SIGINT) == 130)
        #expect(run.exitCode(interruptedBy: SIGTERM) == 143)
        #expect(Self.report([.drifted]).exitCode(interruptedBy: SIGINT) == 130)
    }

    @Test func anInterruptedRequestIsAnErrorSayingInterrupted() {
        let contract = Contract(
            service: "S", name: "t", baseURL: "http://127.0.0.1",
            request: HTTPRequest(method: "GET", url: "http://127.0.0.1/t"), sampleData: .none, source: "x")
        let result = ContractRunner.result(
            contract: contract, response: .failure(.interrupted(url: "http://127.0.0.1/t")), isStrict: false)
        #expect(result.outcome == .error("interrupted"))
        let refused = ContractRunner.result(
            contract: contract,
            response: .failure(TransportError(message: "Couldn't connect", url: "http://127.0.0.1/t", code: 7)),
            isStrict: false)
        #expect(refused.outcome == .error("http://127.0.0.1/t: Couldn't connect"))
    }
}

/// `RunReport.suites`: one suite per service, in the order the services first appear, each with its results in run
/// order, however the services' results interleave (a run of several manifests, a shard, a merge).
@Suite struct RunReportSuitesTests {
    static func result(_ service: String, _ name: String) -> ContractResult {
        ContractResult(
            contract: Contract(
                service: service, name: name, baseURL: "http://127.0.0.1",
                request: HTTPRequest(method: "GET", url: "http://127.0.0.1/" + name), sampleData: .none,
                source: "api.json"),
            outcome: .passed)
    }

    static func names(_ suites: [(service: String, results: [ContractResult])]) -> [String] {
        suites.map { suite in suite.service + ":" + suite.results.map(\.contract.name).joined(separator: ",") }
    }

    @Test func servicesInTheOrderTheyFirstAppearEachWithItsResultsInOrder() {
        let results = [
            Self.result("A", "a1"), Self.result("B", "b1"), Self.result("A", "a2"), Self.result("C", "c1"),
            Self.result("B", "b2"), Self.result("B", "b3"), Self.result("A", "a3"),
        ]
        let report = RunReport(results: results, startedAt: Date(), duration: 1, hostname: "ci")
        #expect(Self.names(report.suites) == ["A:a1,a2,a3", "B:b1,b2,b3", "C:c1"])
        let one = RunReport(results: Array(results.prefix(1)), startedAt: Date(), duration: 1, hostname: "ci")
        #expect(Self.names(one.suites) == ["A:a1"])
        #expect(RunReport(results: [], startedAt: Date(), duration: 1, hostname: "ci").suites.isEmpty)
    }

    @Test func randomRunsGroupAsADictionaryOfServicesWould() {
        var random = SplitMix(state: 11)
        for _ in 0..<200 {
            let results = (0..<Int.random(in: 1...60, using: &random)).map { index in
                Self.result(["A", "B", "C", "D@v1", "D@v2"].randomElement(using: &random)!, "t\(index)")
            }
            var order: [String] = []
            var byService: [String: [String]] = [:]
            for result in results {
                if byService[result.contract.service] == nil { order.append(result.contract.service) }
                byService[result.contract.service, default: []].append(result.contract.name)
            }
            let expected = order.map { $0 + ":" + byService[$0]!.joined(separator: ",") }
            let report = RunReport(results: results, startedAt: Date(), duration: 1, hostname: "ci")
            #expect(Self.names(report.suites) == expected)
        }
    }
}

/// `OutcomeCounts` asks each outcome only what can be true of it; its counts are those of asking every result all of
/// it (the rule as `failsGate`, `isKnownDrift`, `isPending` and `isFlaky` say it), on random results.
@Suite struct OutcomeCountsTests {
    /// Every count, each result asked everything.
    static func everything(
        _ results: [ContractResult], failsOnFlaky: Bool, failingCulprits: Set<Finding.Culprit>?
    ) -> [Int] {
        var counts = Array(repeating: 0, count: 10)
        for result in results {
            let fails = result.failsGate(failsOnFlaky: failsOnFlaky, failingCulprits: failingCulprits)
            switch result.outcome {
            case .passed:
                counts[0] += 1
                if fails { counts[9] += 1 }
            case .drifted:
                counts[1] += 1
                if !fails { counts[7] += 1 }
            case .error:
                counts[2] += 1
                if !fails { counts[8] += 1 }
            case .skipped: counts[3] += 1
            }
            if result.isKnownDrift { counts[4] += 1 }
            if result.isPending && (result.outcome == .drifted || result.outcome.isError) { counts[5] += 1 }
            if result.isFlaky { counts[6] += 1 }
        }
        return counts
    }

    @Test func eachOutcomeAskedWhatCanBeTrueOfItCountsAsAskingEverything() {
        let contract = Contract(
            service: "S", name: "t", baseURL: "http://127.0.0.1",
            request: HTTPRequest(method: "GET", url: "http://127.0.0.1/"), sampleData: .none, source: "x")
        let drifts = [
            Finding(.drift, .missingKey, at: .jsonPath("$.a"), "missing key"),
            Finding(.drift, .missingKey, at: .jsonPath("$.b"), "missing key", culprit: .service),
            Finding(.drift, .missingKey, at: .jsonPath("$.c"), "missing key", culprit: .stub),
        ]
        let note = Finding(.note, .notCompared, at: .body, "not compared")
        var generator = SystemRandomNumberGenerator()
        var seen = Set<[Int]>()
        for _ in 0..<300 {
            let results = (0..<Int.random(in: 0...12, using: &generator)).map { _ in
                let findings = drifts.filter { _ in Bool.random(using: &generator) } + [note]
                return ContractResult(
                    contract: contract,
                    outcome: [Outcome.passed, .drifted, .error("refused"), .skipped("upload")].randomElement(
                        using: &generator)!,
                    findings: findings, attempts: Int.random(in: 1...3, using: &generator),
                    knownDrifts: findings.filter { $0.isDrift && Bool.random(using: &generator) },
                    isPending: Bool.random(using: &generator))
            }
            for failsOnFlaky in [false, true] {
                for culprits in [nil, [], [Finding.Culprit.service], Set(Finding.Culprit.allCases)] {
                    let counts = OutcomeCounts(results, failsOnFlaky: failsOnFlaky, failingCulprits: culprits)
                    let expected = Self.everything(results, failsOnFlaky: failsOnFlaky, failingCulprits: culprits)
                    #expect(
                        [
                            counts.passed, counts.drifted, counts.errors, counts.skipped, counts.knownDrifted,
                            counts.pending, counts.flaky, counts.excusedDrifted, counts.excusedErrors,
                            counts.failingFlaky,
                        ] == expected)
                    seen.insert(expected.map { min($0, 1) })
                }
            }
        }
        // Every count was non-zero in some of the runs (the test reaches each branch).
        #expect(
            seen.reduce(Array(repeating: 0, count: 10)) { zip($0, $1).map { max($0, $1) } }
                == Array(repeating: 1, count: 10))
    }
}
