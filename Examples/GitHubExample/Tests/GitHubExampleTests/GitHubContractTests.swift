import Foundation
import GitHubExample
import Testing
import TetherKit
import TetherTesting

/// The responses recorded for the example (a HAR file, as Proxyman or Charles export them).
private var recordedHAR: String {
    Bundle.module.path(forResource: "github", ofType: "har") ?? "github.har is missing from the test bundle"
}

/// A server that wants credentials, as api.github.com does for /user: 401 without an Authorization header.
private func serverRequiringAuthentication() throws -> MockServer {
    try MockServer { request in
        request.header("Authorization") == nil
            ? .json(
                #"{"message": "Requires authentication", "documentation_url": "https://docs.github.com/rest"}"#,
                status: 401)
            : .json("{}")
    }
}

@Suite struct GitHubContractTests {
    @Test func theStubsHoldAgainstTheRecordedResponses() async throws {
        let report = try await expectContracts(GitHub.allCases, verifier: ContractVerifier(mockHAR: recordedHAR))
        #expect(report.results.count == 3)
        #expect(report.isPassing)
    }

    @Test func theRepositoriesDecodeIntoTheAppsModel() async throws {
        try await expectContract(
            GitHub.userRepositories("ashfurrow"), decodes: [Repository].self, using: Repository.decoder,
            verifier: ContractVerifier(mockHAR: recordedHAR))
    }

    @Test func theTestingGuides401StubHoldsAgainstAServerThatRequiresAuthentication() async throws {
        let server = try serverRequiringAuthentication()
        let verifier = ContractVerifier(endpointClosure: customEndpointClosure, baseURL: URL(string: server.baseURL))
        let report = try await expectContracts(GitHub.allCases, verifier: verifier)
        #expect(report.results.map(\.liveStatusCode) == [401, 401, 401])
    }

    @Test func theDefaultStubsDriftAgainstAServerThatRequiresAuthentication() async throws {
        let server = try serverRequiringAuthentication()
        let report = await ContractVerifier(baseURL: URL(string: server.baseURL)).verify(GitHub.allCases)
        #expect(report.results.map(\.outcome) == [.drifted, .drifted, .drifted])
        #expect(ContractIssues.messages(for: report).allSatisfy { $0.contains("status: expected 200, got 401") })
    }

    @Test func theExportedContractsRunFromFiles() async throws {
        let folder = NSTemporaryDirectory() + "github-example-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let manifest = try ContractManifest(service: "GitHub", targets: GitHub.allCases).write(to: folder)
        let server = try MockServer(replaying: try HARArchive.load(contentsOf: recordedHAR))
        let contracts = try ManifestLoader(environment: [:], baseURLOverrides: BaseURLOverrides(all: server.baseURL))
            .load(paths: [manifest])
        let fromFiles = ContractRunner().run(contracts)
        let inCode = await ContractVerifier(baseURL: URL(string: server.baseURL)).verify(GitHub.allCases)
        #expect(fromFiles.results.map(\.outcome) == inCode.results.map(\.outcome))
        #expect(fromFiles.results.map(\.findings) == inCode.results.map(\.findings))
    }
}
