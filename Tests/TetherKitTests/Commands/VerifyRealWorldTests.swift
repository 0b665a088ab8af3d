import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// Replays real api.github.com traffic (recorded by public projects, Fixtures/realworld/SOURCES.md) and verifies stubs
/// against it through the built binary: data no one here wrote, in a clean export and in one with real-export quirks.
@Suite struct VerifyRealWorldTests {
    static let manifest = FixturePaths.fixture("realworld/github.json")

    static let expected: [String: String] = [
        "zen": "PASS", "user": "DRIFT", "userRepositories": "DRIFT", "unknownUser": "PASS", "badCredentials": "PASS",
        "searchUsers": "DRIFT", "searchCode": "DRIFT", "repository": "PASS", "labels": "PASS", "deleteLabel": "PASS",
        "createIssue": "PASS", "paginateIssues": "PASS", "branchProtection": "DRIFT", "searchIssues": "PASS",
        "notRecorded": "ERROR",
    ]

    /// Console lines without timings, the mock's port or the HAR's name, so two runs can be compared line for line.
    static func stable(_ output: String) -> [String] {
        output.split(separator: "\n").filter { !$0.hasPrefix("JUnit report:") }.map {
            // Times, the mock's port (in the request line under a status drift) and the HAR's path differ from run to run.
            String(
                $0.replacing(/\s+\d+\.\d{3}s/, with: "").replacing(/127\.0\.0\.1:\d+/, with: "127.0.0.1:PORT")
                    .replacing(/not recorded in [^:]+\.har:/, with: "not recorded in HAR:"))
        }
    }

    static func outcomes(_ output: String) -> [String: String] {
        var outcomes: [String: String] = [:]
        for line in output.split(separator: "\n") {
            guard let match = line.firstMatch(of: /^(PASS|DRIFT|ERROR|SKIP) +GitHub\.(\w+)/) else { continue }
            outcomes[String(match.2)] = String(match.1)
        }
        return outcomes
    }

    @Test func stubsAreCheckedAgainstRecordedGitHubResponses() throws {
        let run = try TetherBinary.run([
            "verify", Self.manifest, "--mock", FixturePaths.realWorld("github.har"), "--no-color",
        ])
        #expect(run.exitCode == 1, "\(run.stdout)\(run.stderr)")
        #expect(Self.outcomes(run.stdout) == Self.expected, "\(run.stdout)")
        for finding in [
            "$.company: unexpected null (stub has string)",
            "$[0].language: unexpected null (stub has string)",
            "$.items[0].score: expected integer, got fractional number 36.965874",
            "status: expected 200, got 403",
            "status: expected 200, got 404",
        ] {
            #expect(run.stdout.contains(finding), "missing \(finding) in\n\(run.stdout)")
        }
        // A request the HAR does not hold cannot be checked: an error, not a drift (the drifts still decide the exit).
        let notRecorded = run.stdout.split(separator: "\n").first { $0.hasPrefix("ERROR GitHub.notRecorded") }
        #expect(
            notRecorded?.contains(
                "not recorded in \(FixturePaths.realWorld("github.har")): GET /users/octocat/followers") == true,
            "\(run.stdout)")
        #expect(run.stdout.contains("9 passed, 5 failed, 1 error, 0 skipped"))
        let junit = try #require(run.junit)
        #expect(!junit.contains("YmFkOmNyZWRlbnRpYWxz"))
        let validation = try JUnitValidator.validate(junit)
        #expect(validation.isValid, "\(validation)")
    }

    @Test func aQuirkyExportGivesExactlyTheSameOutcomes() throws {
        let clean = try TetherBinary.run([
            "verify", Self.manifest, "--mock", FixturePaths.realWorld("github.har"), "--no-color",
        ])
        let quirky = try TetherBinary.run([
            "verify", Self.manifest, "--mock", FixturePaths.realWorld("github-quirks.har"), "--no-color",
        ])
        #expect(quirky.exitCode == clean.exitCode)
        #expect(Self.stable(quirky.stdout) == Self.stable(clean.stdout))
    }
}
