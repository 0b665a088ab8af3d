import Foundation
import GitHubExample
import TetherKit
import TetherTesting
import XCTest

/// The same check from XCTest: each drifted target fails the test once, with its findings.
final class GitHubXCTests: XCTestCase {
    func testTheStubsHoldAgainstTheRecordedResponses() async {
        let har = Bundle.module.path(forResource: "github", ofType: "har") ?? "github.har is missing"
        await assertContracts(GitHub.allCases, verifier: ContractVerifier(mockHAR: har))
    }
}
