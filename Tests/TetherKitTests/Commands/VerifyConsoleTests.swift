import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// The console's detail levels, `--list` and `--fail-fast`, through the built binary on the real-world fixture
/// (15 targets replayed from its HAR: 9 pass, 5 drift, 1 is not recorded).
@Suite struct VerifyConsoleTests {
    static let manifest = FixturePaths.realWorld("github.json")
    static let har = FixturePaths.realWorld("github.har")

    static func run(_ extra: [String]) throws -> TetherRun {
        try TetherBinary.run(["verify", manifest, "--mock", har, "--no-color"] + extra)
    }

    @Test func aPassIsOneLineByDefaultQuietKeepsDriftsAndErrorsVerboseShowsEverything() throws {
        let normal = try Self.run([])
        #expect(normal.exitCode == 1)
        let lines = normal.stdout.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("PASS  GitHub.zen  ") && $0.hasSuffix("s") })
        #expect(lines.contains { $0.hasPrefix("PASS  GitHub.repository  ") && $0.hasSuffix("s  (102 notes)") })
        // Passes list no notes; drifts list theirs (three, then a count).
        #expect(!normal.stdout.contains("note: $[0].url"), "a pass's notes are counted, not listed")
        #expect(normal.stdout.contains("note: … and 26 more notes (--verbose shows them; the JUnit report has them)"))
        #expect(lines.count < 57, "\(lines.count) lines")

        let quiet = try Self.run(["--quiet"])
        #expect(quiet.exitCode == 1)
        #expect(!quiet.stdout.contains("PASS "))
        #expect(
            quiet.stdout.components(separatedBy: "\nDRIFT ").count - 1 + (quiet.stdout.hasPrefix("DRIFT ") ? 1 : 0) == 5
        )
        #expect(quiet.stdout.contains("ERROR GitHub.notRecorded"))
        #expect(quiet.stdout.contains("9 passed, 5 failed, 1 error, 0 skipped"))

        let verbose = try Self.run(["-v"])
        #expect(verbose.stdout.contains("note: $[0].url: key not in stub (string)"))
        #expect(!verbose.stdout.contains("more notes"))
        #expect(verbose.stdout.contains("    GET http://127.0.0.1:"))
    }

    @Test func listPrintsTheTargetsAndSendsNothing() throws {
        // No mock and an unroutable base URL: anything sent would fail the run.
        let list = try TetherBinary.run(
            [
                "verify", Self.manifest, "--list", "--base-url", "http://127.0.0.1:9", "--filter", "user*", "--filter",
                "zen",
            ])
        #expect(list.exitCode == 0, "\(list.stderr)")
        #expect(
            list.stdout == """
                GitHub.zen               GET http://127.0.0.1:9/zen
                GitHub.user              GET http://127.0.0.1:9/users/jacquev6
                GitHub.userRepositories  GET http://127.0.0.1:9/users/jacquev6/repos
                3 targets, 3 to send; nothing was sent (--list)

                """)
        #expect(!FileManager.default.fileExists(atPath: list.junitPath))
        let shard = try TetherBinary.run(["verify", Self.manifest, "--list", "--shard", "2/4"])
        #expect(shard.stdout.hasPrefix("shard 2/4: 4 of 15 targets, balanced by count\n"))
        #expect(shard.stdout.hasSuffix("4 targets, 4 to send; nothing was sent (--list)\n"))
    }

    @Test func failFastStopsAtTheFirstDriftAndReportsWhatDidNotRun() throws {
        let run = try Self.run(["--fail-fast", "--jobs", "1"])
        #expect(run.exitCode == 1)
        let junit = try #require(run.junit)
        // --jobs 1 sends in order: zen passes, user drifts; the 13 after it are not run, in the console and JUnit.
        #expect(run.stdout.contains("1 passed, 1 failed, 0 errors, 13 skipped"), "\(run.stdout)")
        #expect(
            run.stdout.contains(
                "SKIP  GitHub.notRecorded  0.000s  not run: --fail-fast stopped the run at the first drift (GitHub.user)"
            ))
        #expect(
            junit.components(separatedBy: "not run: --fail-fast stopped the run at the first drift (GitHub.user)").count
                - 1 == 13)
    }
}
