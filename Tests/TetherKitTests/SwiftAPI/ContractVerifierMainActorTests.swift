import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// A holder as an app or a UI test would have one: main-actor isolated, keeping its verifier in a property.
@MainActor
final class VerifierHolder {
    var verifier = ContractVerifier.stubbed(StubTransport(status: 200, body: "Half measures."))

    func check() async -> ContractReport {
        await verifier.verify([GitHub.zen])
    }
}

/// `verify` can be called from the main actor with a verifier the actor owns.
@Suite struct ContractVerifierMainActorTests {
    @Test @MainActor func verifyRunsFromTheMainActor() async {
        let holder = VerifierHolder()
        let report = await holder.check()
        #expect(report.results.first?.outcome == .passed)
        let local = ContractVerifier.stubbed(StubTransport(status: 200, body: "Half measures."))
        let again = await local.verify([GitHub.zen])
        #expect(again.isPassing)
    }
}
