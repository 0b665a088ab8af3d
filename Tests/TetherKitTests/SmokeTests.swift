import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

@Test func exitCodeFollowsOutcomes() {
    let contract = Contract(
        service: "S", name: "t", baseURL: "http://127.0.0.1",
        request: HTTPRequest(method: "GET", url: "http://127.0.0.1/"), sampleData: .none, source: "x")
    #expect(
        RunReport(
            results: [ContractResult(contract: contract, outcome: .passed)], startedAt: .now, duration: 0, hostname: "h"
        ).exitCode == 0)
    #expect(
        RunReport(
            results: [ContractResult(contract: contract, outcome: .error("x"))], startedAt: .now, duration: 0,
            hostname: "h"
        ).exitCode == 4)  // nothing was checked
    #expect(
        RunReport(
            results: [
                ContractResult(contract: contract, outcome: .error("x")),
                ContractResult(contract: contract, outcome: .drifted),
            ], startedAt: .now, duration: 0, hostname: "h"
        ).exitCode == 1)
}
