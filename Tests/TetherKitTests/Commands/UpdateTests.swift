import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// `tether update` through the built binary, against HAR files replayed by `--mock` on 127.0.0.1: drifted stubs are
/// rewritten as minimal edits, then `verify` passes and a second `update --dry-run` finds nothing to do.
@Suite struct UpdateTests {
    /// A scratch folder with a manifest, its sample files and a HAR of the live answers.
    struct Project {
        let folder: String
        var manifest: String { folder + "/contracts/api.json" }
        var har: String { folder + "/live.har" }

        init(manifest: String, samples: [String: String], live: [(path: String, status: Int, body: String)]) throws {
            folder = NSTemporaryDirectory() + "tether-update-" + UUID().uuidString
            try FileManager.default.createDirectory(
                atPath: folder + "/contracts/samples", withIntermediateDirectories: true)
            try Data(manifest.utf8).write(to: URL(fileURLWithPath: folder + "/contracts/api.json"))
            for (name, text) in samples {
                try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/contracts/samples/" + name))
            }
            let entries: [JSONValue] = live.map { entry in
                .object([
                    JSONMember(
                        "request",
                        .object([
                            JSONMember("method", .string("GET")),
                            JSONMember("url", .string("https://api.test" + entry.path)),
                        ])),
                    JSONMember(
                        "response",
                        .object([
                            JSONMember("status", .integer(Int64(entry.status))),
                            JSONMember(
                                "content",
                                .object([
                                    JSONMember("mimeType", .string("application/json")),
                                    JSONMember("text", .string(entry.body)),
                                ])),
                        ])),
                ])
            }
            let har = JSONValue.object([
                JSONMember(
                    "log", .object([JSONMember("version", .string("1.2")), JSONMember("entries", .array(entries))]))
            ])
            try har.serialized().write(to: URL(fileURLWithPath: folder + "/live.har"))
        }

        func sample(_ name: String) -> String {
            String(
                decoding: FileManager.default.contents(atPath: folder + "/contracts/samples/" + name) ?? Data(),
                as: UTF8.self)
        }

        func text(_ path: String) -> String {
            String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
        }

        func run(_ command: String, _ arguments: [String] = [], environment: [String: String] = [:]) throws -> TetherRun
        {
            try TetherBinary.run(
                [command, manifest, "--mock", har, "--no-color"].filter { command == "verify" || $0 != "--no-color" }
                    + arguments, environment: environment)
        }

        func remove() { try? FileManager.default.removeItem(atPath: folder) }
    }

    static let manifest = """
        {
          "service": "API",
          "baseURL": "https://api.test",
          "headers": { "Authorization": "Bearer ${TOKEN:-none}" },
          "targets": [
            { "name": "user", "path": "/user", "sampleData": { "file": "samples/user.json" } },
            { "name": "holds", "path": "/holds", "sampleData": { "file": "samples/holds.json" } },
            { "name": "inline", "path": "/inline", "sampleData": { "json": { "id": 1, "tags": ["a"], "old": true } } },
            { "name": "first", "path": "/first", "sampleData": { "file": "samples/shared.json" } },
            { "name": "second", "path": "/second", "sampleData": { "file": "samples/shared.json" } },
            { "name": "offline", "path": "/offline",
              "sampleResponse": { "networkError": { "code": -1009, "description": "offline" } } }
          ]
        }
        """

    static let user = """
        {
            "login": "octocat",
            "id": 1.0e3,
            "url": "https://example.com/a/b",
            "company": "Acme",
            "plan": {
                "name": "free",
                "private_repos": 0
            },
            "score": 1
        }
        """

    static let holds = "{\"ok\": true, \"n\": 1.50}\n"
    static let shared = "{\n  \"value\": \"x\"\n}\n"

    /// The live answers: `user` drifts (company null, score a fraction, plan.private_repos gone, a new key),
    /// `inline` drifts (old gone, tags elements integers), `first` and `second` agree.
    static let live: [(path: String, status: Int, body: String)] = [
        (
            "/user", 200,
            #"{"login": "x", "id": 5, "url": "u", "company": null, "plan": {"name": "pro"}, "score": 2.5, "extra": 1}"#
        ),
        ("/holds", 200, #"{"ok": false, "n": 2, "more": "z"}"#),
        ("/inline", 200, #"{"id": 2, "tags": [1, 2]}"#),
        ("/first", 200, #"{"value": 1}"#),
        ("/second", 200, #"{"value": 2}"#),
    ]

    /// The manifest above with its three sample files, and the live answers.
    static func standard() throws -> Project {
        try Project(
            manifest: manifest, samples: ["user.json": user, "holds.json": holds, "shared.json": shared], live: live)
    }

    /// A stub its owner made read-only is left as it is and named (`update` replaces a file by a rename, which the
    /// folder allows whatever the file's mode); the other files are updated. As root, which may write anything, the
    /// run is made as `nobody` with setpriv(1), where there is one.
    @Test(
        .enabled(
            if: getuid() != 0 || FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
            "root writes any file: the run needs setpriv(1) to be another user"))
    func aReadOnlyStubIsNotRewritten() throws {
        let project = try Self.standard()
        defer { project.remove() }
        let user = project.folder + "/contracts/samples/user.json"
        for folder in [project.folder, project.folder + "/contracts", project.folder + "/contracts/samples"] {
            #expect(chmod(folder, 0o777) == 0)
        }
        for file in ["holds.json", "shared.json"] {
            #expect(chmod(project.folder + "/contracts/samples/" + file, 0o666) == 0)
        }
        #expect(chmod(project.manifest, 0o666) == 0)
        #expect(chmod(user, 0o444) == 0)
        let arguments = ["update", project.manifest, "--mock", project.har]
        let run =
            getuid() == 0
            ? try ChildProcess.run(
                "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", TetherBinary.path] + arguments)
            : try ChildProcess.run(TetherBinary.path, arguments)
        let output = run.stdoutText + run.stderrText
        #expect(output.contains("cannot update \(user): it is read-only (mode 444): make it writable"), "\(output)")
        #expect(project.sample("user.json") == Self.user)
        #expect(output.contains("updated \(project.manifest)"), "\(output)")
        #expect(project.sample("shared.json") != Self.shared, "the other files are updated")
    }

    @Test func driftedStubsAreRewrittenThenVerifyPasses() throws {
        let project = try Self.standard()
        defer { project.remove() }
        let userPath = project.folder + "/contracts/samples/user.json"
        #expect(chmod(userPath, 0o640) == 0)

        let before = try project.run("verify")
        #expect(before.exitCode == 1)

        // --dry-run: a structural diff per file, nothing written, exit 1.
        let dryRun = try project.run("update", ["--dry-run"])
        #expect(dryRun.exitCode == 1, "\(dryRun.stdout)\(dryRun.stderr)")
        #expect(dryRun.stdout.contains("--- \(project.folder)/contracts/samples/user.json"))
        // A live null is a nullable rule on the target, shown as the rules it would write; the stub keeps "Acme".
        #expect(!dryRun.stdout.contains(#""company": null"#), "\(dryRun.stdout)")
        #expect(
            dryRun.stdout.contains(
                "--- \(project.manifest) targets[0].rules  (API.user)\n  {\n+   \"nullable\": [\"$.company\"]\n  }\n"),
            "\(dryRun.stdout)")
        #expect(dryRun.stdout.contains("… (4 unchanged)"))
        #expect(dryRun.stdout.contains("(- stub, + live)"))
        #expect(dryRun.stdout.contains("3 files would change"))
        #expect(project.sample("user.json") == Self.user)
        #expect(project.text(project.manifest) == Self.manifest)

        let update = try project.run("update")
        #expect(update.exitCode == 0, "\(update.stdout)\(update.stderr)")
        #expect(update.stdout.contains("updated \(project.folder)/contracts/samples/user.json (API.user)"))
        #expect(update.stdout.contains("3 files updated"))
        // Only the drifted paths changed; the number spelling, the unescaped `/` and the indent stayed.
        #expect(
            project.sample("user.json") == """
                {
                    "login": "octocat",
                    "id": 1.0e3,
                    "url": "https://example.com/a/b",
                    "company": "Acme",
                    "plan": {
                        "name": "free"
                    },
                    "score": 2.5
                }
                """)
        #expect(project.sample("holds.json") == Self.holds)  // byte-identical: it held
        #expect(project.sample("shared.json") == "{\n  \"value\": 1\n}\n")  // both live bodies agree on integer
        #expect(
            project.text(project.manifest)
                == Self.manifest.replacingOccurrences(
                    of: #"{ "id": 1, "tags": ["a"], "old": true }"#, with: #"{ "id": 1, "tags": [1] }"#
                ).replacingOccurrences(
                    of: #""samples/user.json" } },"#,
                    with: #""samples/user.json" }, "rules": {"nullable": ["$.company"]} },"#))
        var status = stat()
        #expect(stat(userPath, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o640)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: project.folder + "/contracts/samples")
        #expect(leftovers.sorted() == ["holds.json", "shared.json", "user.json"])

        let after = try project.run("verify")
        #expect(after.exitCode == 0, "\(after.stdout)")
        let again = try project.run("update", ["--dry-run"])
        #expect(again.exitCode == 0, "\(again.stdout)")
        #expect(again.stdout.contains("0 files would change"))
    }

    /// A sample file that three targets share keeps one text that holds for all of them: a target whose live body
    /// has `null` where the stub has a value gains a `nullable` rule of its own (in an array too, at `[*]`), the
    /// file keeps the string and its type, and a target whose body has the value gains nothing.
    @Test func liveNullsBecomeEachTargetsNullableRulesAndTheSharedFileKeepsItsText() throws {
        let manifest = """
            {"service": "API", "baseURL": "https://api.test",
             "targets": [
              {"name": "first", "path": "/first", "sampleData": {"file": "samples/label.json"}},
              {"name": "second", "path": "/second", "sampleData": {"file": "samples/label.json"},
               "rules": {"optional": ["$.tags"]}},
              {"name": "third", "path": "/third", "sampleData": {"file": "samples/label.json"}}
             ]}
            """
        let label = "{\n  \"id\": 1,\n  \"description\": \"Something isn't working\",\n  \"tags\": [\"x\"]\n}\n"
        let project = try Project(
            manifest: manifest, samples: ["label.json": label],
            live: [
                ("/first", 200, #"{"id": 2, "description": null, "tags": ["a"]}"#),
                ("/second", 200, #"{"id": 3, "description": null, "tags": ["b", null]}"#),
                ("/third", 200, #"{"id": 4, "description": "text", "tags": []}"#),
            ])
        defer { project.remove() }
        let dryRun = try project.run("update", ["--dry-run"])
        #expect(dryRun.exitCode == 1, "\(dryRun.stdout)\(dryRun.stderr)")
        #expect(
            dryRun.stdout == """
                --- \(project.manifest) targets[0].rules  (API.first)
                  {
                +   "nullable": ["$.description"]
                  }
                --- \(project.manifest) targets[1].rules  (API.second)
                  {
                    … (1 unchanged)
                +   "nullable": ["$.description","$.tags[*]"]
                  }
                (- stub, + live)
                1 file would change (dry run: nothing written)

                """)
        #expect(project.text(project.manifest) == manifest)

        let update = try project.run("update")
        #expect(update.exitCode == 0, "\(update.stdout)\(update.stderr)")
        #expect(update.stdout.contains("updated \(project.manifest) (API.first, API.second)"), "\(update.stdout)")
        #expect(project.sample("label.json") == label)  // byte-identical: no target's null, the string type kept
        #expect(
            project.text(project.manifest)
                == manifest.replacingOccurrences(
                    of: #""samples/label.json"}},"#,
                    with: #""samples/label.json"}, "rules": {"nullable": ["$.description"]}},"#
                ).replacingOccurrences(
                    of: #""rules": {"optional": ["$.tags"]}},"#,
                    with: #""rules": {"optional": ["$.tags"], "nullable": ["$.description", "$.tags[*]"]}},"#))
        let verify = try project.run("verify")
        #expect(verify.exitCode == 0, "\(verify.stdout)")
        let again = try project.run("update", ["--dry-run"])
        #expect(again.exitCode == 0, "\(again.stdout)")
        #expect(again.stdout.contains("0 files would change"))
    }

    /// An inline stub in the manifest: its value and the target's new rule are one minimal edit of the target.
    @Test func anInlineStubAndItsNewRuleAreOneEdit() throws {
        let manifest = """
            {"service": "API", "baseURL": "https://api.test",
             "targets": [{"name": "me", "path": "/me", "sampleData": {"json": {"id": 1, "name": "a", "gone": true}}}]}
            """
        let project = try Project(
            manifest: manifest, samples: [:], live: [("/me", 200, #"{"id": 2.5, "name": null}"#)])
        defer { project.remove() }
        let update = try project.run("update")
        #expect(update.exitCode == 0, "\(update.stdout)\(update.stderr)")
        #expect(
            project.text(project.manifest)
                == manifest.replacingOccurrences(
                    of: #"{"json": {"id": 1, "name": "a", "gone": true}}}"#,
                    with: #"{"json": {"id": 2.5, "name": "a"}}, "rules": {"nullable": ["$.name"]}}"#))
        #expect(try project.run("verify").exitCode == 0)
    }

    /// A key a stub has twice is a drift at the place of its second in the sample file (JSONDecoder and
    /// JSONSerialization read different values); update keeps the first, the value the check read, drops the
    /// repeat and keeps the file's layout, and verify then passes.
    @Test func aKeyTwiceInAStubIsADriftThatUpdateMends() throws {
        let manifest = """
            {"service": "API", "baseURL": "https://api.test",
             "targets": [{"name": "me", "path": "/me", "sampleData": {"file": "samples/me.json"}}]}
            """
        let sample = "{\n  \"id\": 1,\n  \"name\": \"a\",\n  \"id\": \"x\"\n}\n"
        let project = try Project(
            manifest: manifest, samples: ["me.json": sample], live: [("/me", 200, #"{"id": 2, "name": "b"}"#)])
        defer { project.remove() }
        let verify = try project.run("verify")
        #expect(verify.exitCode == 1, "\(verify.stdout)\(verify.stderr)")
        #expect(
            verify.stdout.contains(
                "$.id: the stub has this key twice: JSONDecoder reads the first value, JSONSerialization the last; "
                    + "keep one (the check read the first) (the stub: "),
            "\(verify.stdout)")
        #expect(verify.stdout.contains("samples/me.json:4:9)"), "\(verify.stdout)")
        let update = try project.run("update")
        #expect(update.exitCode == 0, "\(update.stdout)\(update.stderr)")
        #expect(project.sample("me.json") == "{\n  \"id\": 1,\n  \"name\": \"a\"\n}\n")
        let again = try project.run("verify")
        #expect(again.exitCode == 0, "\(again.stdout)")
    }

    /// A stub that is a symbolic link (shared from another folder) is rewritten where it leads; the link stays.
    @Test func aLinkedStubIsWrittenThroughItsLink() throws {
        let project = try Self.standard()
        defer { project.remove() }
        let link = project.folder + "/contracts/samples/user.json"
        let shared = project.folder + "/shared/user.json"
        try FileManager.default.createDirectory(atPath: project.folder + "/shared", withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: link, toPath: shared)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "../../shared/user.json")
        let before = project.text(shared)
        let update = try project.run("update", ["--filter", "user"])
        #expect(update.exitCode == 0, "\(update.stdout)\(update.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "../../shared/user.json")
        #expect(project.text(shared) != before)
        #expect(try project.run("verify", ["--filter", "user"]).exitCode == 0)
    }

    @Test func strictAddsExtraKeysAndReplaceWritesTheLiveBody() throws {
        let project = try Self.standard()
        defer { project.remove() }
        let strict = try project.run("update", ["--strict", "--filter", "user", "--filter", "holds"])
        #expect(strict.exitCode == 0, "\(strict.stdout)")
        #expect(project.sample("user.json").hasSuffix("    \"score\": 2.5,\n    \"extra\": 1\n}"))
        #expect(project.sample("holds.json") == "{\"ok\": true, \"n\": 1.50, \"more\": \"z\"}\n")
        #expect(try project.run("verify", ["--strict", "--filter", "user", "--filter", "holds"]).exitCode == 0)

        let replace = try project.run("update", ["--replace", "--filter", "inline"])
        #expect(replace.exitCode == 0, "\(replace.stdout)")
        #expect(project.text(project.manifest).contains(#"{ "json": { "id": 2, "tags": [1, 2] } }"#))
    }

    @Test func aSharedFileIsLeftWhenLiveBodiesDisagree() throws {
        var live = Self.live
        live[4] = ("/second", 200, #"{"value": "text"}"#)
        let project = try Project(
            manifest: Self.manifest,
            samples: ["user.json": Self.user, "holds.json": Self.holds, "shared.json": "{\n  \"value\": true\n}\n"],
            live: live)
        defer { project.remove() }
        let update = try project.run("update", ["--filter", "first", "--filter", "second"])
        #expect(update.exitCode == 1)
        #expect(
            update.stdout.contains("shared by API.first, API.second, whose live bodies disagree"), "\(update.stdout)")
        #expect(project.sample("shared.json") == "{\n  \"value\": true\n}\n")
    }

    @Test func statusDriftsAreNotRewrittenAndSecretsAreRedacted() throws {
        let manifest = """
            {"service": "API", "baseURL": "https://api.test", "headers": {"Authorization": "Bearer ${TOKEN}"},
             "targets": [
              {"name": "gone", "path": "/gone", "sampleData": {"json": {"a": 1}}},
              {"name": "echo", "path": "/echo", "sampleData": {"json": {"token": 1}}},
              {"name": "statusOnly", "path": "/status"},
              {"name": "keys", "path": "/keys", "sampleData": {"json": {"keys": {}}}}
             ]}
            """
        let project = try Project(
            manifest: manifest, samples: [:],
            live: [
                ("/gone", 404, #"{"message": "Not Found"}"#), ("/echo", 200, #"{"token": "Bearer s3cr3t-value"}"#),
                ("/status", 500, #"{"error": "boom"}"#), ("/keys", 200, #"{"keys": {"s3cr3t-value": {"scope": 1}}}"#),
            ])
        defer { project.remove() }
        let update = try project.run("update", environment: ["TOKEN": "s3cr3t-value"])
        #expect(update.exitCode == 1)
        #expect(update.stdout.contains("not updated API.gone: status: expected 200, got 404"), "\(update.stdout)")
        #expect(update.stdout.contains("not updated API.statusOnly: status: expected 200, got 500"), "\(update.stdout)")
        let text = project.text(project.manifest)
        #expect(text.contains(#"{"json": {"a": 1}}"#))
        #expect(text.contains(#"{"name": "statusOnly", "path": "/status"}"#))
        #expect(text.contains(#"{"json": {"token": "<redacted>"}}"#), "\(text)")
        #expect(!text.contains("s3cr3t") && !update.stdout.contains("s3cr3t"))
        // A problem quotes a live key, which may be the token.
        let strict = try project.run(
            "update", ["--strict", "--dry-run", "--filter", "keys"], environment: ["TOKEN": "s3cr3t-value"])
        #expect(
            strict.stdout.contains(#"not updated API.keys: $.keys["<redacted>"]: key not in stub"#), "\(strict.stdout)")
        #expect(!strict.stdout.contains("s3cr3t"), "\(strict.stdout)")
    }

    @Test func redactJSONHidesPersonalDataInTheRewrittenStubAndKeepsItsType() throws {
        let manifest = """
            {"service": "API", "baseURL": "https://api.test",
             "targets": [{"name": "me", "path": "/me", "sampleData": {"json": {"id": 1, "name": 2, "age": 3}}}]}
            """
        let project = try Project(
            manifest: manifest, samples: [:],
            live: [("/me", 200, #"{"id": 1, "name": "Ann Example", "age": 41.5, "email": "ann@example.com"}"#)])
        defer { project.remove() }
        let update = try project.run(
            "update", ["--strict", "--redact-json", "$.name", "--redact-json", "$.email", "--redact-json", "$.age"])
        #expect(update.exitCode == 0, "\(update.stdout)")
        let text = project.text(project.manifest)
        #expect(!text.contains("Ann") && !text.contains("ann@example.com") && !update.stdout.contains("Ann"))
        #expect(text.contains(#""name": "<redacted>""#) && text.contains(#""age": 0.0"#), "\(text)")
        #expect(try project.run("verify", ["--strict"]).exitCode == 0)
        let pattern = try project.run("update", ["--redact-json", "$.a[x]"])
        #expect(pattern.exitCode == 2)
        #expect(pattern.stderr.contains("--redact-json: '$.a[x]' is not a JSON path (column 5"), "\(pattern.stderr)")
    }

    @Test func realWorldGitHubStubsAreUpdated() throws {
        let folder = NSTemporaryDirectory() + "tether-update-rw-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let manifest = folder + "/github.json"
        let original = try String(contentsOfFile: FixturePaths.realWorld("github.json"), encoding: .utf8)
        try Data(original.utf8).write(to: URL(fileURLWithPath: manifest))
        let har = FixturePaths.realWorld("github.har")

        let update = try TetherBinary.run(["update", manifest, "--mock", har])
        // Two drifts are statuses (403, 404): left, with a line each; exit 1.
        #expect(update.exitCode == 1)
        #expect(update.stdout.contains("not updated GitHub.searchCode: status: expected 200, got 403"))
        #expect(update.stdout.contains("not updated GitHub.branchProtection: status: expected 200, got 404"))
        #expect(
            update.stdout.contains("updated \(manifest) (GitHub.user, GitHub.userRepositories, GitHub.searchUsers)"))
        // Every other line of the manifest is byte-identical.
        let after = try String(contentsOfFile: manifest, encoding: .utf8)
        let changed = zip(original.components(separatedBy: "\n"), after.components(separatedBy: "\n"))
            .filter { $0 != $1 }
        #expect(changed.count == 3)
        // A live null is the target's nullable rule: the stubs keep "Acme" and "Swift", and their types.
        #expect(
            after.contains(#""company": "Acme", "hireable": true } }, "rules": {"nullable": ["$.company"]} },"#),
            "\(after)")
        #expect(after.contains(#""language": "Swift" }] }, "rules": {"nullable": ["$[*].language"]} },"#), "\(after)")
        #expect(original.components(separatedBy: "\n").count == after.components(separatedBy: "\n").count)

        let verify = try TetherBinary.run(["verify", manifest, "--mock", har, "--no-color"])
        #expect(verify.exitCode == 1)
        #expect(verify.stdout.contains("12 passed, 2 failed, 1 error"), "\(verify.stdout)")
        let bodyOnly = ["--filter", "user", "--filter", "userRepositories", "--filter", "searchUsers"]
        #expect(try TetherBinary.run(["verify", manifest, "--mock", har] + bodyOnly).exitCode == 0)
        #expect(try TetherBinary.run(["update", manifest, "--mock", har, "--dry-run"] + bodyOnly).exitCode == 0)
    }

    @Test func nothingIsWrittenWhenNothingCouldBeChecked() throws {
        let project = try Self.standard()
        defer { project.remove() }
        // Port 1 on loopback refuses: every target is an error, nothing is compared, nothing written.
        let run = try TetherBinary.run(["update", project.manifest, "--base-url", "http://127.0.0.1:1"])
        #expect(run.exitCode == 4, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("ERROR API.user  "))
        #expect(run.stdout.contains("0 files updated"))
        #expect(project.sample("user.json") == Self.user)
        #expect(project.text(project.manifest) == Self.manifest)
    }

    @Test func aBrokenManifestIsAContractErrorNamingTheFile() throws {
        let project = try Project(
            manifest: #"{"service": "API", "baseURL": "https://api.test", "targets": [{"name": "a", "path": 3}]}"#,
            samples: [:], live: [("/a", 200, "{}")])
        defer { project.remove() }
        let run = try project.run("update")
        #expect(run.exitCode == 2)
        #expect(run.stderr.contains("\(project.manifest):1:"), "\(run.stderr)")
        #expect(run.stderr.contains("nothing was sent"))
    }

    @Test func usageErrorsNameTheOption() throws {
        let run = try TetherBinary.run(["update", "--dry-rn"])
        #expect(run.exitCode == 2)
        #expect(run.stderr.contains("unknown option '--dry-rn' (did you mean '--dry-run'?)"), "\(run.stderr)")
        let junit = try TetherBinary.run(["update", "--junit", "x.xml"])
        #expect(junit.exitCode == 2)
        let help = try TetherBinary.run(["update", "--help"])
        #expect(help.exitCode == 0)
        #expect(help.stdout.contains("--dry-run") && help.stdout.contains("--mock FILE.har"))
    }
}
