import Foundation
import GitHubAPI
import Testing
import TetherContracts

/// Writes the GitHub targets as contract files, as an iOS test target would: into `TETHER_EXPORT_DIR` when it is set
/// (`scripts/test` sets it and then runs `tether verify` on the folder), else into a temporary folder.
@Suite struct ExportTests {
    @Test func theTargetsExportAsContractFiles() throws {
        let environment = ProcessInfo.processInfo.environment
        let folder =
            environment["TETHER_EXPORT_DIR"] ?? NSTemporaryDirectory() + "tether-export-" + UUID().uuidString
        let manifest = try ContractManifest(service: "GitHub", targets: GitHub.allCases).write(to: folder)
        #expect(manifest.hasSuffix("github.json"))
        // The files load back into the contracts the targets are, without the engine: same requests, same stubs.
        let loaded = try ManifestLoader(environment: [:]).load(paths: [manifest])
        #expect(loaded.map(\.name) == ["zen", "userProfile", "userRepositories"])
        #expect(
            loaded.map(\.request.url) == [
                "https://api.github.com/zen", "https://api.github.com/users/ashfurrow",
                "https://api.github.com/users/ashfurrow/repos?sort=pushed",
            ])
        let profile = JSONValue.object([JSONMember("login", .string("ashfurrow")), JSONMember("id", .integer(100))])
        #expect(loaded[1].sampleData == .json(profile))
    }
}
