import Foundation
import Testing

@testable import TetherContracts
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
