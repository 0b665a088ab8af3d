import Foundation
import Testing

@testable import TetherEngine
@testable import TetherKit

/// `--ref`: every released version's contracts in one run, read from git. A repository with three tagged versions of
/// a manifest, against a service on 127.0.0.1 that counts each request: the matrix names exactly the versions whose
/// stub drifted, each request is sent once, and the JUnit report has one suite per version.
@Suite(.serialized) struct VerifyRefsTests {
    /// A git repository in a scratch folder, removed at the end.
    final class Repository {
        let path = NSTemporaryDirectory() + "tether-refs-test-" + UUID().uuidString

        init() throws {
            try FileManager.default.createDirectory(atPath: path + "/contracts", withIntermediateDirectories: true)
            try git(["init", "-q"])
            try git(["config", "user.email", "ci@example.com"])
            try git(["config", "user.name", "CI"])
            try git(["config", "commit.gpgsign", "false"])
            try git(["config", "tag.gpgsign", "false"])
        }

        deinit { try? FileManager.default.removeItem(atPath: path) }

        /// Runs git in the repository, each version a day after the one before (tags sort by date).
        @discardableResult
        func git(_ arguments: [String], day: Int = 1) throws -> String {
            var environment = ProcessInfo.processInfo.environment
            let date = "2026-0\(min(9, day))-01T12:00:00Z"
            environment["GIT_COMMITTER_DATE"] = date
            environment["GIT_AUTHOR_DATE"] = date
            let run = try ChildProcess.run(
                "/usr/bin/env", ["git"] + arguments, environment: environment, directory: path)
            guard run.status == 0 else {
                Issue.record("git \(arguments.joined(separator: " ")): \(run.stderrText)")
                return ""
            }
            return String(decoding: run.stdout, as: UTF8.self)
        }

        /// Commits `files` and tags the commit `tag`.
        func release(_ tag: String, day: Int, _ files: [String: String]) throws {
            for (name, text) in files {
                try Data(text.utf8).write(to: URL(fileURLWithPath: path + "/" + name))
            }
            try git(["add", "-A"], day: day)
            try git(["commit", "-q", "-m", "release \(tag)"], day: day)
            try git(["tag", "-a", tag, "-m", tag], day: day)
        }
    }

    /// The manifest of one app version: `item`'s stub says `id` is `idType`; `extra` is a target only some versions
    /// have.
    static func manifest(_ base: String, id: String, extra: Bool = false) -> String {
        let more = extra ? #",\#n   {"name": "extra", "path": "/extra", "sampleData": {"json": {"ok": true}}}"# : ""
        return """
            {"service": "Shop", "baseURL": "\(base)",
             "targets": [
               {"name": "item", "path": "/items/1", "sampleData": {"json": {"id": \(id), "name": "pen"}}},
               {"name": "zen", "path": "/zen", "sampleData": {"json": {"ok": true}}}\(more)
             ]}
            """
    }

    @Test func threeVersionsInOneRunEachRequestSentOnce() async throws {
        let counts = Locked([String: Int]())
        let server = try MockServer { request in
            counts.withLock { $0[request.path, default: 0] += 1 }
            switch request.path {
            case "/items/1": return .json(#"{"id": 1, "name": "pen"}"#)
            default: return .json(#"{"ok": true}"#)
            }
        }
        let repository = try Repository()
        try repository.release("v1.0.0", day: 1, ["contracts/shop.json": Self.manifest(server.baseURL, id: "1")])
        // v1.1.0's stub says the id is a string: the one version that drifts.
        try repository.release(
            "v1.1.0", day: 2, ["contracts/shop.json": Self.manifest(server.baseURL, id: #""1""#, extra: true)])
        try repository.release("v1.2.0", day: 3, ["contracts/shop.json": Self.manifest(server.baseURL, id: "1")])
        // The working tree moves on; --ref reads the tags, not it.
        try Data("not json".utf8).write(to: URL(fileURLWithPath: repository.path + "/contracts/shop.json"))

        let reports = repository.path + "/reports"
        let run = try ChildProcess.run(
            TetherBinary.path,
            [
                "verify", "--ref", "v1.*", "--last", "3", "--no-color", "--junit", reports + "/junit.xml", "--json",
                reports + "/run.jsonl", "--summary", reports + "/summary.md", "--html", reports + "/report.html",
            ], directory: repository.path)
        let stdout = String(decoding: run.stdout, as: UTF8.self)
        #expect(run.status == 1, "\(stdout)\(run.stderrText)")
        // Each distinct request once, though three versions have it.
        #expect(counts.withLock { $0 } == ["/items/1": 1, "/zen": 1, "/extra": 1], "\(counts.withLock { $0 })")
        // The matrix: oldest version first, exactly v1.1.0 drifted; the targets that passed wherever they are
        // counted (`--verbose` below lists them).
        #expect(
            stdout.contains(
                """
                versions × targets:
                  target     v1.0.0  v1.1.0  v1.2.0  first drifted
                  Shop.item  PASS    DRIFT   PASS    v1.1.0
                  (2 more targets, none drifted or failed at any version: --verbose lists them)

                """), "\(stdout)")
        #expect(stdout.contains("DRIFT Shop@v1.1.0.item"), "\(stdout)")
        let junit = try String(contentsOfFile: reports + "/junit.xml", encoding: .utf8)
        for (version, tests, failures) in [("v1.0.0", 2, 0), ("v1.1.0", 3, 1), ("v1.2.0", 2, 0)] {
            #expect(
                junit.contains(#"<testsuite name="Shop@\#(version)" tests="\#(tests)" failures="\#(failures)""#),
                "\(junit)")
        }
        #expect(try JUnitValidator.validate(junit).isValid)
        let lines = try String(contentsOfFile: reports + "/run.jsonl", encoding: .utf8)
        #expect(lines.contains(#""service":"Shop@v1.1.0","target":"item","outcome":"drifted""#), "\(lines)")
        #expect(lines.contains(#""ref":"v1.1.0""#))
        // Where a drifted target is declared: the file as git names it at that version.
        #expect(lines.contains(#""declaration":{"file":"v1.1.0:contracts/shop.json","line":3"#), "\(lines)")
        let summary = try String(contentsOfFile: reports + "/summary.md", encoding: .utf8)
        #expect(summary.contains("| `Shop.item` | PASS | DRIFT | PASS | `v1.1.0` |"), "\(summary)")
        #expect(!summary.contains("Shop.zen"), "\(summary)")
        #expect(summary.contains("The other 2 targets neither drifted nor failed at any version"), "\(summary)")
        // The HTML report's matrix, as Chromium reads the page.
        if VerifyReportsTests.chromium != nil {
            let dom = try await VerifyReportsTests.chromiumRun(
                ["--dump-dom", "file://\(reports)/report.html"], profile: repository.path + "/profile")
            #expect(dom.status == 0, "\(dom.stderr)")
            #expect(
                dom.stdout.contains(
                    #"<tr><th>Shop.item</th><td class="passed">PASS</td><td class="drifted">DRIFT</td>"#
                        + #"<td class="passed">PASS</td><td>v1.1.0</td></tr>"#), "\(dom.stdout)")
            #expect(dom.stdout.contains(#"<td class="absent">-</td><td class="passed">PASS</td><td class="absent">"#))
        }
        // The working tree is as it was: no checkout, no stash.
        #expect(try String(contentsOfFile: repository.path + "/contracts/shop.json", encoding: .utf8) == "not json")
        #expect(try repository.git(["status", "--porcelain"]).contains("contracts/shop.json"))

        // --verbose: every row, `-` where a version has no such target.
        let verbose = try ChildProcess.run(
            TetherBinary.path,
            ["verify", "--ref", "v1.*", "--verbose", "--no-color", "--junit", reports + "/verbose.xml"],
            directory: repository.path)
        #expect(
            String(decoding: verbose.stdout, as: UTF8.self).contains(
                """
                versions × targets:
                  target      v1.0.0  v1.1.0  v1.2.0  first drifted
                  Shop.item   PASS    DRIFT   PASS    v1.1.0
                  Shop.zen    PASS    PASS    PASS    -
                  Shop.extra  -       PASS    -       -

                """), "\(String(decoding: verbose.stdout, as: UTF8.self))")

        // --last 2 takes the two newest tags.
        let last = try ChildProcess.run(
            TetherBinary.path,
            [
                "verify", "--ref", "v*", "--last", "2", "--no-color", "--quiet", "--junit",
                reports + "/last.xml",
            ], directory: repository.path)
        #expect(String(decoding: last.stdout, as: UTF8.self).contains("  target     v1.1.0  v1.2.0  first drifted\n"))
    }

    /// The versions' scratch folder (removed beside the reports' writing, once the answers are checked) is gone when
    /// the run ends, whatever the outcome: nothing is left in the temporary folder.
    @Test(arguments: [false, true])
    func nothingIsLeftInTheTemporaryFolder(drifts: Bool) throws {
        let server = try MockServer { request in
            .json(request.path == "/items/1" ? #"{"id": 1, "name": "pen"}"# : #"{"ok": true}"#)
        }
        let repository = try Repository()
        try repository.release("v1.0.0", day: 1, ["contracts/shop.json": Self.manifest(server.baseURL, id: "1")])
        let id = drifts ? #""1""# : "1"
        try repository.release(
            "v1.1.0", day: 2, ["contracts/shop.json": Self.manifest(server.baseURL, id: id, extra: true)])
        let temporary = repository.path + "/tmp"
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = temporary
        let run = try ChildProcess.run(
            TetherBinary.path,
            ["verify", "--ref", "v*", "--no-color", "--junit", repository.path + "/reports/junit.xml"],
            environment: environment, directory: repository.path)
        let stdout = String(decoding: run.stdout, as: UTF8.self)
        #expect(run.status == (drifts ? 1 : 0), "\(stdout)\(run.stderrText)")
        #expect(
            stdout.contains(
                drifts
                    ? "  target     v1.0.0  v1.1.0  first drifted\n  Shop.item  PASS    DRIFT   v1.1.0\n"
                    : "versions × targets: no target drifted or failed (3 targets at 2 versions; --verbose shows the matrix)\n"
            ),
            "\(stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary) == [])
    }

    /// The versions are read side by side, yet the first broken one in the order of the refs stops the run, its
    /// errors placed in its file as git names it, as if they were read one after the other; nothing is sent.
    @Test func theFirstBrokenVersionInTheOrderOfTheRefsStopsTheRun() throws {
        let repository = try Repository()
        try repository.release("v1.0.0", day: 1, ["contracts/shop.json": Self.manifest("http://127.0.0.1:9", id: "1")])
        try repository.release(
            "v1.1.0", day: 2,
            ["contracts/shop.json": "{\"service\": \"Shop\", \"baseURL\": \"http://127.0.0.1:9\",\n\"targets\": 7}"])
        try repository.release(
            "v1.2.0", day: 3, ["contracts/shop.json": "{\"service\": \"Shop\",\n\n  \"targets\": [}"])
        for _ in 0..<3 {
            let run = try ChildProcess.run(
                TetherBinary.path, ["verify", "--ref", "v*", "--no-color"], directory: repository.path)
            #expect(run.status == 2, "\(run.stderrText)")
            #expect(run.stderrText.contains("v1.1.0:contracts/shop.json:2:12: "), "\(run.stderrText)")
            #expect(!run.stderrText.contains("v1.2.0"), "\(run.stderrText)")
        }
    }

    @Test(arguments: [
        (["--ref", "v9.9.9"], "--ref v9.9.9 is no tag, branch or commit of "),
        (["--ref", "release-*"], "--ref release-* matches no tag in "),
        (["--ref", "v1.0.0", "--last", "2"], "--last N takes the newest of the tags a --ref pattern matches"),
        (["--ref", "v1.0.0", "elsewhere"], "--ref v1.0.0 has none of elsewhere: nothing to verify at that version"),
    ])
    func aRefThatCannotBeReadIsExitTwoNamingIt(arguments: [String], message: String) throws {
        let repository = try Repository()
        try repository.release("v1.0.0", day: 1, ["contracts/shop.json": Self.manifest("http://127.0.0.1:9", id: "1")])
        let run = try ChildProcess.run(
            TetherBinary.path, ["verify"] + arguments + ["--no-color"], directory: repository.path)
        #expect(run.status == 2, "\(run.stderrText)")
        #expect(run.stderrText.contains(message), "\(run.stderrText)")
    }

    /// A folder outside any git repository: git's words, then what to do.
    @Test func aFolderOutsideGitSaysWhatToDo() throws {
        let folder = try ContractFolder(["contracts/shop.json": Self.manifest("http://127.0.0.1:9", id: "1")])
        var environment = ProcessInfo.processInfo.environment
        environment["GIT_CEILING_DIRECTORIES"] = folder.path  // no repository above the scratch folder counts
        let run = try ChildProcess.run(
            TetherBinary.path, ["verify", "contracts", "--ref", "v1.0.0", "--no-color"], environment: environment,
            directory: folder.path)
        #expect(run.status == 2, "\(run.stderrText)")
        #expect(run.stderrText.contains("not a git repository"), "\(run.stderrText)")
        #expect(run.stderrText.contains("give a path inside a git clone"), "\(run.stderrText)")
    }
}
