import Foundation
import TetherKit
import XCTest

/// Verifies targets inside an XCTest test: each drifted target fails once with its findings, a target that could
/// not be checked fails with its error, and no targets at all fails with "nothing was checked".
///
/// ```swift
/// func testGitHubStubsHold() async {
///     await assertContracts(GitHub.allCases, verifier: ContractVerifier(baseURL: staging))
/// }
/// ```
/// - Parameters:
///   - targets: The targets, e.g. `GitHub.allCases`.
///   - verifier: How to verify (endpoint closure, base URL, options); Moya's defaults by default.
///   - junitPath: Where to also write the JUnit report, if anywhere (a write error fails the test).
///   - file: The file the failures point to; the call site by default.
///   - line: The line the failures point to; the call site by default.
/// - Returns: The report, for further checks.
@discardableResult
nonisolated(nonsending) public func assertContracts<Targets: Sequence>(
    _ targets: Targets, verifier: ContractVerifier = ContractVerifier(), junitPath: String? = nil,
    file: StaticString = #filePath, line: UInt = #line
) async -> ContractReport where Targets.Element: TargetType {
    let report = await verifier.verify(targets)
    fail(report, junitPath: junitPath, file: file, line: line)
    return report
}

/// Verifies one target and decodes its live body with the app's model (the decode check) inside an XCTest test.
/// - Parameters:
///   - target: The target.
///   - model: The app's model for its body, e.g. `[Repository].self`.
///   - decoder: The app's decoder.
///   - verifier: How to verify; Moya's defaults by default.
///   - junitPath: Where to also write the JUnit report, if anywhere.
///   - file: The file the failures point to.
///   - line: The line the failures point to.
/// - Returns: The report, for further checks.
@discardableResult
nonisolated(nonsending) public func assertContract<Target: TargetType, Model: Decodable>(
    _ target: Target, decodes model: Model.Type, using decoder: JSONDecoder = JSONDecoder(),
    verifier: ContractVerifier = ContractVerifier(), junitPath: String? = nil,
    file: StaticString = #filePath, line: UInt = #line
) async -> ContractReport {
    let report = await verifier.verify(target, decodes: model, using: decoder)
    fail(report, junitPath: junitPath, file: file, line: line)
    return report
}

private func fail(_ report: ContractReport, junitPath: String?, file: StaticString, line: UInt) {
    for message in ContractIssues.messages(for: report) {
        XCTFail(message, file: file, line: line)
    }
    guard let junitPath else { return }
    do {
        try report.writeJUnit(to: junitPath)
    } catch {
        XCTFail("\(error)", file: file, line: line)
    }
}
