import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// `tether import` on real exports (Chrome, Firefox, Charles, mitmproxy: Fixtures/har-exports/SOURCES.md; GitHub
/// traffic: Fixtures/realworld/SOURCES.md), then `tether verify DIR --mock` on what it wrote, through the built binary.
@Suite struct ImportTests {
    struct Export: CustomTestStringConvertible, Sendable {
        var file: String
        var host: String?
        /// The imported targets, in file order.
        var targets: [String]
        /// Entries `import` must name in a message (skipped, repeated, another host).
        var named: [String] = []
        /// What no message may say.
        var unsaid: [String] = []
        /// Recorded credential values that no written file and no output may hold (the export holds them).
        var recordedSecrets: [String] = []
        var testDescription: String { file + (host.map { " --host \($0)" } ?? "") }
    }

    static let exports: [Export] = [
        Export(file: "har-exports/charles.har", targets: ["root"]),  // GET /?= from Charles 4.6.3
        Export(
            file: "har-exports/chrome.har", targets: ["root"],
            named: [
                "log.entries[1] GET https://www.google.com/: no response was recorded (status 0",
                "1 entry for https://www.google.com (log.entries[2])",
            ]),
        Export(
            file: "har-exports/chrome.har", host: "www.google.com",
            targets: ["imagesBrandingGooglelogo2xGooglelogoLightColor272x92dpPng"],
            named: [
                "log.entries[1] GET https://www.google.com/: no response was recorded (status 0",
                "1 entry for https://mitmproxy.org (log.entries[0])",
            ],
            recordedSecrets: ["YAieF18TdLas-8SKhGKNYvnieZbB1wJ1jf2t"]),
        Export(
            file: "har-exports/head-content-length.har",
            targets: [
                "headPackages00E5F12a80907d0884e6dff9c16d0c0114d81b8cd07dc3ae54c5e962cc83037eTqdm4661Py3NoneAnyWhl"
            ]),
        Export(file: "har-exports/with-bom.har", targets: ["postMetrics"]),
        Export(
            file: "har-exports/successful_log.har", targets: ["root"],
            named: ["1 entry for https://httpbin.org (log.entries[1])"]),
        Export(
            file: "har-exports/error_log.har", targets: ["postGet"],
            named: ["log.entries[0] GET http://163.com/: no response was recorded (status 0"],
            unsaid: ["--host 163.com", "another host"]),
        Export(
            file: "realworld/github-quirks.har",
            targets: [
                "usersJacquev6Repos", "user", "usersThisUserShouldReallyNotExist", "zen", "searchUsers",
                "reposOctokitFixtureOrgHelloWorld", "orgsOctokitFixtureOrg", "reposOctokitFixtureOrgLabelsLabels",
                "deleteReposOctokitFixtureOrgLabelsLabelsTestLabelUpdated",
                "postReposOctokitFixtureOrgAddLabelsToIssueIssues",
                "postReposOctokitFixtureOrgAddLabelsToIssueIssues1Labels", "reposOctokitFixtureOrgPaginateIssuesIssues",
                "repositories1000Issues", "reposOctokitFixtureOrgBranchProtectionBranchesMainProtection",
                "searchIssues", "searchCode", "usersJacquev6",
            ],
            named: ["log.entries[17] (GET /users/jacquev6): a repeat of log.entries[16]"],
            recordedSecrets: ["login_and_password_removed", "token private_token_removed"]),
    ]

    @Test(arguments: exports)
    func importedContractsPassAgainstTheRecording(_ export: Export) throws {
        let har = FixturePaths.fixture(export.file)
        let folder = NSTemporaryDirectory() + "tether-import-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let service = "Imported"
        let imported = try TetherBinary.run(
            ["import", har, "--service", service, "--out", folder] + (export.host.map { ["--host", $0] } ?? []))
        #expect(imported.exitCode == 0, "\(imported.stdout)\(imported.stderr)")
        for text in export.named {
            #expect(imported.stdout.contains(text), "\(imported.stdout)")
        }
        for text in export.unsaid {
            #expect(!imported.stdout.contains(text), "\(imported.stdout)")
        }
        // Every other-host hint leads somewhere: the import it names succeeds.
        for hint in imported.stdout.matches(of: /'tether import \S+ --service NAME --host (\S+)'/) {
            let other = NSTemporaryDirectory() + "tether-import-" + UUID().uuidString
            defer { try? FileManager.default.removeItem(atPath: other) }
            let followed = try TetherBinary.run(
                ["import", har, "--service", "Other", "--out", other, "--host", String(hint.1)])
            #expect(followed.exitCode == 0, "--host \(hint.1): \(followed.stdout)\(followed.stderr)")
        }
        let manifestPath = folder + "/imported.json"
        let manifest = try String(contentsOfFile: manifestPath, encoding: .utf8)
        // Credentials and HTTP/2 pseudo-headers (`:authority`, `:path`) are never copied: no header but Accept is.
        for header in ["authorization", "cookie", ":authority", ":path", ":method", "user-agent"] {
            #expect(!manifest.lowercased().contains("\"\(header)\""), "\(header) in \(manifest)")
        }
        let written = try FileManager.default.subpathsOfDirectory(atPath: folder).compactMap {
            FileManager.default.contents(atPath: folder + "/" + $0)
        }
        for secret in export.recordedSecrets {
            #expect(!written.contains { $0.range(of: Data(secret.utf8)) != nil }, "\(secret) written")
            #expect(!imported.stdout.contains(secret) && !imported.stderr.contains(secret))
        }
        let loaded = try ManifestLoader(environment: [:]).load(paths: [folder])
        #expect(loaded.map(\.name) == export.targets)

        let verified = try TetherBinary.run(["verify", folder, "--mock", har, "--no-color"])
        #expect(verified.exitCode == 0, "\(verified.stdout)\(verified.stderr)")
        let passed = verified.stdout.split(separator: "\n").compactMap { line in
            line.firstMatch(of: /^PASS +Imported\.(\w+)/).map { String($0.1) }
        }
        #expect(Set(passed) == Set(export.targets), "\(verified.stdout)")
        #expect(verified.stdout.contains("\(export.targets.count) passed, 0 failed, 0 errors, 0 skipped"))
    }

    @Test func aFileWithNoAnswerIsUnusableInput() throws {
        let folder = NSTemporaryDirectory() + "tether-import-" + UUID().uuidString
        let har = FixturePaths.fixture("har-exports/incomplete_log.har")
        let run = try TetherBinary.run(["import", har, "--service", "Example", "--out", folder])
        #expect(run.exitCode == 2)
        #expect(
            run.stderr
                == "tether: error: \(har): none of its 4 entries has a response status (the requests were aborted): "
                + "nothing to replay; record the requests again and export the HAR file\n")
        #expect(!FileManager.default.fileExists(atPath: folder))
    }

    @Test func theServiceIsRequired() throws {
        let run = try TetherBinary.run(["import", FixturePaths.fixture("har-exports/charles.har")])
        #expect(run.exitCode == 2)
        #expect(run.stderr.contains("tether import needs --service NAME"))
    }
}
