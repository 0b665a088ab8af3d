import Foundation
import Testing
import TetherKit

/// Verifies targets inside a Swift Testing test: each drifted target records one issue whose text is its findings, a
/// target that could not be checked records its error, and no targets at all records that nothing was checked.
///
/// ```swift
/// @Test func gitHubStubsHold() async throws {
///     try await expectContracts(GitHub.allCases, verifier: ContractVerifier(baseURL: staging))
/// }
/// ```
/// - Parameters:
///   - targets: The targets, e.g. `GitHub.allCases`.
///   - verifier: How to verify (endpoint closure, base URL, options); Moya's defaults by default.
///   - junitPath: Where to also write the JUnit report, if anywhere.
///   - sourceLocation: Where the issues point; the call site by default.
/// - Returns: The report, for further checks.
/// - Throws: `ReportError` when the JUnit report cannot be written.
@discardableResult
nonisolated(nonsending) public func expectContracts<Targets: Sequence>(
    _ targets: Targets, verifier: ContractVerifier = ContractVerifier(), junitPath: String? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws -> ContractReport where Targets.Element: TargetType {
    let report = await verifier.verify(targets)
    try record(report, junitPath: junitPath, sourceLocation: sourceLocation)
    return report
}

/// Verifies one target and decodes its live body with the app's model (the decode check) inside a Swift Testing
/// test; a drift, a decoding error or a transport error records one issue.
/// - Parameters:
///   - target: The target.
///   - model: The app's model for its body, e.g. `[Repository].self`.
///   - decoder: The app's decoder.
///   - verifier: How to verify; Moya's defaults by default.
///   - junitPath: Where to also write the JUnit report, if anywhere.
///   - sourceLocation: Where the issues point; the call site by default.
/// - Returns: The report, for further checks.
/// - Throws: `ReportError` when the JUnit report cannot be written.
@discardableResult
nonisolated(nonsending) public func expectContract<Target: TargetType, Model: Decodable>(
    _ target: Target, decodes model: Model.Type, using decoder: JSONDecoder = JSONDecoder(),
    verifier: ContractVerifier = ContractVerifier(), junitPath: String? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws -> ContractReport {
    let report = await verifier.verify(target, decodes: model, using: decoder)
    try record(report, junitPath: junitPath, sourceLocation: sourceLocation)
    return report
}

private func record(_ report: ContractReport, junitPath: String?, sourceLocation: SourceLocation) throws {
    for message in ContractIssues.messages(for: report) {
        Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
    }
    if let junitPath { try report.writeJUnit(to: junitPath) }
}
