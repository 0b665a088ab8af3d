import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// A service on 127.0.0.1 whose answers vary between calls, as real ones do: call `n` (from 0, counted per path)
/// of `/user` has `company` null when `n` is odd and lacks `bio` when `n % 3 == 1`; `/teams` is keyed by ids that
/// change with `n`; `/items` has elements with and without `discount`; `/count` changed a type (`"3"`, and echoes
/// the caller's bearer token in that string); `/stable` never changes; `/reactions` is keyed by user ids that are
/// no id-like words (`u7`, then `u9` and `u3`, then none: `{}`, in turn).
final class VaryingServer: PythonServer, @unchecked Sendable {
    private static let script = """
        import http.server, json, sys, threading
        calls, lock = {}, threading.Lock()
        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def do_GET(self):
                with lock:
                    n = calls.get(self.path, 0); calls[self.path] = n + 1
                token = self.headers.get("Authorization", "").replace("Bearer ", "")
                if self.path == "/user":
                    body = {"id": 100 + n, "login": "octocat", "company": None if n % 2 else "Acme"}
                    if n % 3 != 1: body["bio"] = "hello"
                elif self.path == "/teams":
                    body = {"teams": {str(1000 + n): {"name": "a", "size": n}, str(2000 + 2 * n): {"name": "b", "size": 1}}}
                elif self.path == "/items":
                    body = {"items": [{"sku": "s1", "discount": 0.5}, {"sku": "s2"}][: 1 + n % 2] if n else [{"sku": "s0"}]}
                elif self.path == "/count":
                    body = {"count": "3 " + token}
                elif self.path == "/reactions":
                    body = {"reactions": [{"u7": {"emoji": "heart", "count": 1}},
                                          {"u9": {"emoji": "+1", "count": 2}, "u3": {"emoji": "eyes", "count": 1}},
                                          {}][n % 3]}
                elif self.path == "/stable":
                    body = {"ok": True}
                else:
                    self.send_response(404); self.send_header("Content-Length", "0"); self.end_headers(); return
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            def log_message(self, *args):
                pass
        class Server(http.server.ThreadingHTTPServer):
            daemon_threads = True
        server = Server(("127.0.0.1", 0), Handler)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """

    init() throws {
        try super.init(script: Self.script, name: "varying test server")
    }
}

/// `tether learn` through the built binary against `VaryingServer`, and from HAR files.
@Suite struct LearnTests {
    /// A manifest that could not be written is counted in the last line, not only named above it.
    @Test func theLastLineCountsWhatCouldNotBeWritten() {
        var report = LearnReport(isWriting: true)
        report.problems = ["cannot update contracts/shop.json: cannot create a file in 'contracts': Permission denied"]
        #expect(report.summary.hasSuffix("; 1 not written (see above)"), "\(report.summary)")
        #expect(report.exitCode == .drift)
    }

    static let token = "s3cr3t-learn-token-42"

    static func manifest(baseURL: String) -> String {
        """
        {
            "service": "API",
            "baseURL": "\(baseURL)",
            "headers": {"Authorization": "Bearer ${TOKEN}"},
            "targets": [
                {"name": "user", "path": "/user",
                 "sampleData": {"json": {"id": 1, "login": "x", "company": "c", "bio": "b"}}},
                {"name": "teams", "path": "/teams",
                 "sampleData": {"json": {"teams": {"1": {"name": "x", "size": 1}}}}},
                {"name": "items", "path": "/items", "rules": {"ignore": ["$.nothing"]},
                 "sampleData": {"json": {"items": [{"sku": "s", "discount": 0.1}], "nothing": 0}}},
                {"name": "count", "path": "/count", "sampleData": {"json": {"count": 3}}},
                {"name": "stable", "path": "/stable", "sampleData": {"json": {"ok": false}}}
            ]
        }

        """
    }

    struct Project {
        let folder = NSTemporaryDirectory() + "tether-learn-" + UUID().uuidString
        var manifest: String { folder + "/contracts/api.json" }

        init(_ text: String) throws {
            try FileManager.default.createDirectory(atPath: folder + "/contracts", withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: manifest))
        }

        var text: String { String(decoding: FileManager.default.contents(atPath: manifest) ?? Data(), as: UTF8.self) }

        func run(_ arguments: [String]) throws -> TetherRun {
            try TetherBinary.run(arguments.map { $0 == "MANIFEST" ? manifest : $0 }, environment: ["TOKEN": token])
        }

        func remove() { try? FileManager.default.removeItem(atPath: folder) }
    }

    @Test func proposesRulesWithEvidenceAndWritesNothing() async throws {
        let server = try VaryingServer()
        let project = try Project(Self.manifest(baseURL: server.baseURL))
        defer { project.remove() }
        let before = project.text
        let run = try await offPool { try project.run(["learn", "MANIFEST", "--samples", "4"]) }
        let out = run.stdout
        #expect(run.exitCode == 1, "\(out)\n\(run.stderr)")
        // /user: company null in calls 1 and 3, bio absent in call 1.
        #expect(out.contains("LEARN API.user  4 responses"), "\(out)")
        #expect(out.contains("+ optional $.bio      absent in 1 of 4 responses"), "\(out)")
        #expect(out.contains("+ nullable $.company  null in 2 of 4 responses"), "\(out)")
        // /teams: the ids change with every call.
        #expect(out.contains("+ maps     $.teams  keys look like ids and differ: 4 different key sets in 4 objects"))
        // /items: discount absent from some elements; the ignore rule on $.nothing is respected.
        #expect(out.contains("+ optional $.items[*].discount  absent in 3 of 4 responses (3 of 6 values)"), "\(out)")
        // /count: a type change is never hidden by a rule; the echoed token never shows.
        #expect(out.contains("DRIFT API.count  4 responses"), "\(out)")
        #expect(out.contains(#"drift  $.count: expected integer, got string "3 <redacted>""#), "\(out)")
        #expect(!out.contains(Self.token) && !run.stderr.contains(Self.token))
        #expect(out.contains("OK    API.stable  holds against 4 responses: nothing to propose"))
        #expect(!out.contains("round "), "no progress lines without a pause")
        #expect(
            out.contains(
                "4 rules proposed for 3 of 5 targets; review them, then run again with --write to add them to the "
                    + "manifests; 1 target has drift no rule may hide"), "\(out)")
        #expect(project.text == before, "learn without --write changed the manifest")
    }

    @Test func writtenRulesMakeVerifyPassAndLearnFindNothing() async throws {
        let server = try VaryingServer()
        let project = try Project(Self.manifest(baseURL: server.baseURL))
        defer { project.remove() }
        let before = project.text
        let run = try await offPool {
            try project.run([
                "learn", "MANIFEST", "--samples", "4", "--filter", "user", "--filter", "teams", "--filter", "items",
                "--write",
            ])
        }
        #expect(run.exitCode == 0, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stdout.contains("updated \(project.manifest) (API.user, API.teams, API.items)"), "\(run.stdout)")
        #expect(run.stdout.contains("4 rules for 3 of 3 targets written to 1 manifest"), "\(run.stdout)")
        let after = project.text
        // Minimal edits: each target line gains its rules, every other line stays.
        #expect(
            after.contains(
                #""sampleData": {"json": {"id": 1, "login": "x", "company": "c", "bio": "b"}}, "rules": {"optional": ["$.bio"], "nullable": ["$.company"]}},"#
            ), "\(after)")
        #expect(
            after.contains(#""rules": {"ignore": ["$.nothing"], "optional": ["$.items[*].discount"]},"#), "\(after)")
        #expect(after.contains(#""rules": {"maps": ["$.teams"]}}"#), "\(after)")
        let unchanged = Set(before.split(separator: "\n")).intersection(after.split(separator: "\n"))
        #expect(unchanged.count == before.split(separator: "\n").count - 3, "\(after)")
        // The server keeps varying: every later answer holds, and learning again finds nothing more.
        for _ in 0..<3 {
            let verify = try await offPool {
                try project.run(["verify", "MANIFEST", "--filter", "user", "--filter", "teams", "--filter", "items"])
            }
            #expect(verify.exitCode == 0, "\(verify.stdout)")
        }
        let again = try await offPool {
            try project.run([
                "learn", "MANIFEST", "--samples", "3", "--filter", "user", "--filter", "teams", "--filter", "items",
            ])
        }
        #expect(again.exitCode == 0, "\(again.stdout)")
        #expect(again.stdout.contains("nothing to propose (3 targets learned from)"), "\(again.stdout)")
    }

    /// An object keyed by ids that are not id-like words, whose values keep one shape, is learned as a map, even
    /// when one answer is `{}` and the stub's own key (`u1`) never comes back: not a missing key.
    @Test func changingKeysOfOneShapeAreLearnedAsAMap() async throws {
        let server = try VaryingServer()
        let project = try Project(
            """
            {"service": "API", "baseURL": "\(server.baseURL)",
             "targets": [{"name": "reactions", "path": "/reactions",
                          "sampleData": {"json": {"reactions": {"u1": {"emoji": "+1", "count": 1}}}}}]}

            """)
        defer { project.remove() }
        let run = try await offPool { try project.run(["learn", "MANIFEST", "--samples", "3"]) }
        #expect(run.exitCode == 1, "\(run.stdout)\n\(run.stderr)")
        #expect(
            run.stdout.contains(
                "LEARN API.reactions  3 responses\n  + maps     $.reactions  keys differ between answers and every "
                    + #"value has one shape: 3 different key sets in 3 objects (the stub's: "u1")"#), "\(run.stdout)")
        #expect(!run.stdout.contains("drift"), "\(run.stdout)")
        let write = try await offPool { try project.run(["learn", "MANIFEST", "--samples", "3", "--write"]) }
        #expect(write.exitCode == 0, "\(write.stdout)\n\(write.stderr)")
        #expect(project.text.contains(#"}}}}, "rules": {"maps": ["$.reactions"]}}]}"#), "\(project.text)")
        for _ in 0..<3 {
            let verify = try await offPool { try project.run(["verify", "MANIFEST"]) }
            #expect(verify.exitCode == 0, "\(verify.stdout)")
        }
        let again = try await offPool { try project.run(["learn", "MANIFEST", "--samples", "3"]) }
        #expect(again.stdout.contains("nothing to propose (1 target learned from)"), "\(again.stdout)")
    }

    /// Ctrl-C between rounds stops the run at once and writes nothing.
    @Test func interruptedRunWritesNothing() async throws {
        let server = try VaryingServer()
        let project = try Project(Self.manifest(baseURL: server.baseURL))
        defer { project.remove() }
        let before = project.text
        let manifest = project.manifest
        let (sawRound, status, out, err) = try await offPool {
            let learn = try RunningTether(
                ["learn", manifest, "--samples", "3", "--pause", "30", "--write"], environment: ["TOKEN": Self.token])
            let sawRound = learn.waitForOutput("round 1 of 3 done; the next in 30s", within: 20)
            kill(learn.process.processIdentifier, SIGINT)
            return (sawRound, learn.waitForExit(within: 5), learn.stdout, learn.stderr)
        }
        #expect(sawRound, "\(out)")
        #expect(status == 130, "\(out)\n\(err)")
        #expect(err.contains("tether: SIGINT: stopping; nothing is written"), "\(err)")
        #expect(project.text == before)
    }

    /// HAR files alone: every entry matching a target's request is an answer; others are not read.
    @Test func learnsFromHAREntries() async throws {
        let project = try Project(Self.manifest(baseURL: "https://api.test"))
        defer { project.remove() }
        func entry(_ path: String, _ body: String, status: Int = 200) -> String {
            let text = String(decoding: JSONValue.string(body).serialized(), as: UTF8.self)
            return """
                {"request": {"method": "GET", "url": "https://api.test\(path)"},
                 "response": {"status": \(status), "content": {"mimeType": "application/json", "text": \(text)}}}
                """
        }
        let entries = [
            entry("/user", #"{"id": 1, "login": "a", "company": null, "bio": "x"}"#),
            entry("/user", #"{"id": 2, "login": "b", "company": "c"}"#),
            entry("/user", #"{"id": 3, "login": "c", "company": "c", "bio": "y"}"#),
            entry("/user", #"{"error": "down"}"#, status: 503),
            entry("/other", #"{"nothing": true}"#),
        ]
        let har = project.folder + "/traffic.har"
        try Data(#"{"log": {"version": "1.2", "entries": [\#(entries.joined(separator: ","))]}}"#.utf8)
            .write(to: URL(fileURLWithPath: har))
        let run = try await offPool { try project.run(["learn", "MANIFEST", "--har", har, "--filter", "user"]) }
        #expect(run.exitCode == 1, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stdout.contains("+ optional $.bio      absent in 1 of 3 responses"), "\(run.stdout)")
        #expect(run.stdout.contains("+ nullable $.company  null in 1 of 3 responses"), "\(run.stdout)")
        #expect(
            run.stdout.contains("drift  status: 1 of 4 answers had status 503, not 200 (not learned from)"),
            "\(run.stdout)")
    }

    /// Real api.github.com recordings: repositories whose `language` is null in some elements is the one rule to
    /// learn; `company` null in every answer stays a drift (no rule hides what never varied).
    @Test func learnsFromTheRealWorldRecordings() async throws {
        let folder = FixturePaths.realWorld.path
        let run = try await offPool {
            try TetherBinary.run([
                "learn", folder + "/github.json", "--har", folder + "/github.har", "--har",
                folder + "/github-quirks.har",
            ])
        }
        #expect(run.exitCode == 1, "\(run.stdout)\n\(run.stderr)")
        #expect(
            run.stdout.contains(
                "LEARN GitHub.userRepositories  2 responses\n"
                    + "  + nullable $[*].language  null in 2 of 2 responses (4 of 22 values)\n"
            ), "\(run.stdout)")
        #expect(run.stdout.contains("drift  $.company: unexpected null (stub has string)"), "\(run.stdout)")
        #expect(run.stdout.contains("1 rule proposed for 1 of 10 targets;"), "\(run.stdout)")
        #expect(run.stdout.split(separator: "\n").filter { $0.hasPrefix("  + ") }.count == 1, "\(run.stdout)")
    }

    @Test(arguments: [
        (["learn", "MANIFEST", "--samples", "0"], "--samples 0 and no --har FILE: nothing to learn from"),
        (["learn", "MANIFEST", "--har", "/nonexistent/x.har"], "/nonexistent/x.har"),
        (["learn", "MANIFEST", "--samples", "-1"], "--samples"),
        (["learn", "MANIFEST", "--shard", "1/2"], "--shard"),
    ])
    func usageErrorsSendNothing(arguments: [String], message: String) async throws {
        let project = try Project(Self.manifest(baseURL: "http://127.0.0.1:9"))
        defer { project.remove() }
        let run = try await offPool { try project.run(arguments) }
        #expect(run.exitCode == 2, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }
}
