import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// A body the test changes between runs, served on 127.0.0.1.
private final class ChangingBody: Sendable {
    private let body = Locked(#"{"id": 1, "name": "Ada"}"#)
    func set(_ text: String) { body.withLock { $0 = text } }
    var text: String { body.withLock { $0 } }
}

private func manifest(baseURL: String, targets: String) -> String {
    #"{"service": "Demo", "baseURL": "\#(baseURL)", "targets": [\#(targets)]}"#
}

private let userTarget = #"{"name": "user", "path": "/user", "sampleData": {"json": {"id": 1, "name": "Ada"}}}"#

/// The built binary's gate: the baseline's life cycle, pending targets, retries and flakiness, and the refusals of
/// bad values.
@Suite(.serialized) struct VerifyGateTests {
    private func read(_ path: String) -> String {
        String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
    }

    /// The baseline where `--update-baseline`'s own hint puts it, contracts/baseline.json, is not read as a manifest
    /// when the folder is verified (it lists targets too); named as a PATH, it is refused saying what it is.
    @Test func aBaselineInTheContractsFolderIsNotAManifest() throws {
        let server = try MockServer { _ in .json(#"{"id": "1", "name": "Ada"}"#) }
        let folder = try ContractFolder(["contracts/api.json": manifest(baseURL: server.baseURL, targets: userTarget)])
        let contracts = folder.file("contracts")
        let baseline = folder.file("contracts/baseline.json")
        let verify = ["verify", contracts, "--no-color", "--junit", folder.file("junit.xml"), "--baseline", baseline]
        let first = try TetherBinary.run(verify + ["--update-baseline"])
        #expect(first.exitCode == 0, "\(first.stdout)\(first.stderr)")
        #expect(read(baseline).contains(#""tetherBaseline": 2"#))
        let again = try TetherBinary.run(verify)
        #expect(again.exitCode == 0, "\(again.stdout)\(again.stderr)")
        #expect(again.stdout.contains("[known drift: in the baseline]"), "\(again.stdout)")
        let named = try TetherBinary.run(["verify", baseline, "--no-color"])
        #expect(named.exitCode == 2)
        #expect(
            named.stderr.contains(
                "\(baseline): error: a baseline file (give it with --baseline), not a contract manifest; drop it from PATH"
            ),
            "\(named.stderr)")
    }

    @Test func theBaselineLifeCycleNewKnownFixedPruned() throws {
        let body = ChangingBody()
        let server = try MockServer { _ in .json(body.text) }
        let folder = try ContractFolder(["api.json": manifest(baseURL: server.baseURL, targets: userTarget)])
        let baseline = folder.file("baseline.json")
        let verify = ["verify", folder.file("api.json"), "--no-color", "--baseline", baseline]

        // No file yet: refused, and the message says how to write one.
        let missing = try TetherBinary.run(verify)
        #expect(missing.exitCode == 2)
        #expect(missing.stderr.contains("\(baseline): no baseline file here (run once with --update-baseline"))

        // New: the first update records the drift (the target is new, so this run does not fail).
        body.set(#"{"id": "1", "name": "Ada"}"#)
        let first = try TetherBinary.run(verify + ["--update-baseline"])
        #expect(first.exitCode == 0, "\(first.stdout)\(first.stderr)")
        #expect(first.stdout.contains("DRIFT Demo.user  "))
        #expect(first.stdout.contains("pending: does not fail the gate until it has passed once"))
        #expect(first.stdout.contains("wrote baseline \(baseline): 1 target, 1 known drift (1 new, 0 pruned)"))
        #expect(
            read(baseline) == """
                {
                  "tetherBaseline": 2,
                  "targets": [
                    {
                      "service": "Demo",
                      "target": "user",
                      "hasPassed": false,
                      "drifts": [
                        { "path": "$.id", "rule": "expected integer" }
                      ]
                    }
                  ]
                }

                """)

        // Known: the same drift with another live value passes the gate, and says so.
        body.set(#"{"id": "2", "name": "Ada"}"#)
        let known = try TetherBinary.run(verify)
        #expect(known.exitCode == 0, "\(known.stdout)\(known.stderr)")
        #expect(known.stdout.contains("[known drift: in the baseline]"))
        #expect(known.stdout.contains("known: $.id: expected integer"))
        #expect(known.stdout.contains("(1 known drift)"))
        #expect(known.junit?.contains(#"<property name="tether.knownDrift" value="user"/>"#) == true)

        // New drift beside the known one: the gate fails.
        body.set(#"{"id": "2"}"#)
        let new = try TetherBinary.run(verify)
        #expect(new.exitCode == 1, "\(new.stdout)\(new.stderr)")
        #expect(new.stdout.contains("1 of 2 drifts known, the others are new"))

        // Fixed: reported, and the file is left alone without --update-baseline.
        body.set(#"{"id": 1, "name": "Ada"}"#)
        let before = read(baseline)
        let fixed = try TetherBinary.run(verify)
        #expect(fixed.exitCode == 0, "\(fixed.stdout)\(fixed.stderr)")
        #expect(
            fixed.stdout.contains(
                "fixed since the baseline (--update-baseline prunes them):\n  FIXED Demo.user $.id: expected integer"))
        #expect(fixed.junit?.contains("fixed since the baseline: Demo.user $.id: expected integer") == true)
        #expect(
            fixed.junit?.contains(#"<property name="tether.fixed" value="Demo.user $.id: expected integer"/>"#) == true)
        let knownJUnit = try #require(known.junit)
        let result = try JUnitValidator.validate(knownJUnit)
        #expect(result.isValid, "\(result)")
        #expect(read(baseline) == before)

        // Pruned: the update drops the entry's drift and remembers the pass.
        let pruned = try TetherBinary.run(verify + ["--update-baseline"])
        #expect(pruned.exitCode == 0)
        #expect(pruned.stdout.contains("(0 new, 1 pruned)"))
        #expect(read(baseline).contains(#""hasPassed": true,"#))
        #expect(read(baseline).contains(#""drifts": []"#))

        // From now on the same drift is new again, and fails.
        body.set(#"{"id": "1", "name": "Ada"}"#)
        #expect(try TetherBinary.run(verify).exitCode == 1)
    }

    /// The merge job is the gate of a sharded run: a known drift and a pending target do not fail it there either.
    @Test func mergedShardsGateAsEachShardDid() throws {
        let server = try MockServer { _ in .json(#"{"id": "1", "name": "Ada"}"#) }
        let targets = [
            #"{"name": "a", "path": "/a", "sampleData": {"json": {"id": 1, "name": "Ada"}}}"#,
            #"{"name": "b", "path": "/b", "sampleData": {"json": {"id": 1, "name": "Ada"}}}"#,
            #"{"name": "c", "path": "/c", "pending": true, "sampleData": {"json": {"id": 1, "name": "Ada"}}}"#,
        ]
        let folder = try ContractFolder([
            "api.json": manifest(baseURL: server.baseURL, targets: targets.joined(separator: ", ")),
            "baseline.json": """
            {"tetherBaseline": 1, "targets": [
              {"service": "Demo", "target": "a", "hasPassed": true, "drifts": [{"path": "$.id", "rule": "expected integer"}]},
              {"service": "Demo", "target": "b", "hasPassed": true, "drifts": [{"path": "$.id", "rule": "expected integer"}]},
              {"service": "Demo", "target": "c", "hasPassed": false, "drifts": []}
            ]}
            """,
        ])
        func mergedExitCode(baseline: [String]) throws -> Int32 {
            var parts: [String] = []
            for shard in ["1/2", "2/2"] {
                let part = folder.file("junit-\(shard.prefix(1))-\(baseline.count).xml")
                let run = try TetherBinary.run(
                    ["verify", folder.file("api.json"), "--shard", shard, "--junit", part] + baseline)
                #expect(run.exitCode == (baseline.isEmpty ? 1 : 0), "\(run.stdout)\(run.stderr)")
                parts.append(part)
            }
            return try TetherBinary.run(["merge-reports"] + parts + ["-o", folder.file("all.xml")]).exitCode
        }
        #expect(try mergedExitCode(baseline: ["--baseline", folder.file("baseline.json")]) == 0)
        // The control: without the baseline, a and b are new drifts in the merged run too.
        #expect(try mergedExitCode(baseline: []) == 1)
    }

    /// `--fail-fast` stops at the first drift that fails the gate, not at a known one.
    @Test func failFastPassesAKnownDrift() throws {
        let server = try MockServer { _ in .json(#"{"id": "1", "name": "Ada"}"#) }
        let targets = [
            #"{"name": "a", "path": "/a", "sampleData": {"json": {"id": 1, "name": "Ada"}}}"#,
            #"{"name": "b", "path": "/b", "sampleData": {"json": {"id": 1, "name": "Ada"}}}"#,
            #"{"name": "c", "path": "/c", "sampleData": {"json": {"id": 1, "name": "Ada"}}}"#,
        ]
        let folder = try ContractFolder([
            "api.json": manifest(baseURL: server.baseURL, targets: targets.joined(separator: ", ")),
            "baseline.json": """
            {"tetherBaseline": 1, "targets": [
              {"service": "Demo", "target": "a", "hasPassed": true, "drifts": [{"path": "$.id", "rule": "expected integer"}]},
              {"service": "Demo", "target": "b", "hasPassed": true, "drifts": []},
              {"service": "Demo", "target": "c", "hasPassed": true, "drifts": []}
            ]}
            """,
        ])
        let run = try TetherBinary.run([
            "verify", folder.file("api.json"), "--no-color", "--jobs", "1", "--fail-fast", "--baseline",
            folder.file("baseline.json"),
        ])
        #expect(run.exitCode == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("DRIFT Demo.a  "), "\(run.stdout)")
        #expect(run.stdout.contains("DRIFT Demo.b  "), "\(run.stdout)")
        #expect(run.stdout.contains("--fail-fast stopped the run at the first drift (Demo.b)"), "\(run.stdout)")
    }

    @Test func aPendingTargetDoesNotFailUntilItHasPassedOnce() throws {
        let body = ChangingBody()
        body.set(#"{"id": "1", "name": "Ada"}"#)
        let server = try MockServer { _ in .json(body.text) }
        let pending =
            #"{"name": "user", "path": "/user", "pending": true, "sampleData": {"json": {"id": 1, "name": "Ada"}}}"#
        let folder = try ContractFolder(["api.json": manifest(baseURL: server.baseURL, targets: pending)])
        let baseline = folder.file("baseline.json")
        let verify = ["verify", folder.file("api.json"), "--no-color", "--baseline", baseline]

        let drifting = try TetherBinary.run(["verify", folder.file("api.json"), "--no-color"])
        #expect(drifting.exitCode == 0, "\(drifting.stdout)\(drifting.stderr)")
        #expect(drifting.stdout.contains("(1 pending)"))
        #expect(drifting.junit?.contains(#"<property name="tether.pending" value="user"/>"#) == true)

        body.set(#"{"id": 1, "name": "Ada"}"#)
        let passing = try TetherBinary.run(verify + ["--update-baseline"])
        #expect(passing.exitCode == 0)
        #expect(passing.stdout.contains("pending: passed (--update-baseline remembers it)"))
        #expect(read(baseline).contains(#""hasPassed": true"#))

        body.set(#"{"id": "1", "name": "Ada"}"#)
        let again = try TetherBinary.run(verify)
        #expect(again.exitCode == 1, "\(again.stdout)\(again.stderr)")
        #expect(!again.stdout.contains("pending"))
    }

    @Test func aTargetThatPassedOnlyAfterRetriesIsFlaky() throws {
        let server = try FlakyServer.failingTwice()
        let target = #"{"name": "user", "path": "/user", "sampleData": {"json": {"id": 1}}}"#
        let folder = try ContractFolder(["api.json": manifest(baseURL: server.baseURL, targets: target)])
        let html = folder.file("report.html")
        let json = folder.file("results.jsonl")
        let run = try TetherBinary.run([
            "verify", folder.file("api.json"), "--no-color", "--retries", "2", "--html", html, "--json", json,
        ])
        #expect(run.exitCode == 0, "\(run.stdout)\(run.stderr)")
        #expect(server.requestCount == 3)
        // The attempts and the flaky mark reach the JSON lines and the HTML page too.
        let lines = try String(contentsOfFile: json, encoding: .utf8).split(separator: "\n")
        let result = try JSONValue.parse(Data(lines[0].utf8))
        #expect(result["attempts"] == .integer(3) && result["flaky"] == .bool(true))
        #expect(try JSONValue.parse(Data(lines[1].utf8))["flaky"] == .integer(1))
        #expect(try String(contentsOfFile: html, encoding: .utf8).contains("flaky: passed on attempt 3"))
        #expect(run.stdout.contains("PASS  Demo.user  "))
        #expect(run.stdout.contains("[flaky: passed on attempt 3 of 3]"))
        #expect(run.stdout.contains("(1 flaky)"))
        let junit = run.junit ?? ""
        #expect(junit.contains(#"<property name="tether.flaky" value="user"/>"#))
        #expect(junit.contains("Demo.user: flaky: passed on attempt 3 of 3"))
        let validation = try JUnitValidator.validate(junit)
        #expect(validation.isValid, "\(validation)")

        let strict = try FlakyServer.failingTwice()
        try Data(manifest(baseURL: strict.baseURL, targets: target).utf8).write(
            to: URL(fileURLWithPath: folder.file("api.json")))
        let failing = try TetherBinary.run([
            "verify", folder.file("api.json"), "--no-color", "--retries", "2", "--fail-on-flaky",
        ])
        #expect(failing.exitCode == 3, "\(failing.stdout)\(failing.stderr)")
        #expect(strict.requestCount == 3)
    }

    @Test func aDriftIsNeverRetriedAndABusyServerIsRetriedAsItSays() throws {
        let drift = try FlakyServer.always(.json(#"{"id": "seven"}"#))
        let busy = try FlakyServer.alwaysBusy(retryAfter: 1)
        let targets = #"{"name": "user", "path": "/user", "sampleData": {"json": {"id": 1}}}"#
        let folder = try ContractFolder([
            "drift.json": manifest(baseURL: drift.baseURL, targets: targets),
            "busy.json": #"{"service": "Busy", "baseURL": "\#(busy.baseURL)", "targets": [\#(targets)]}"#,
        ])
        let run = try TetherBinary.run(["verify", folder.path, "--no-color", "--retries", "2"])
        #expect(run.exitCode == 1)
        #expect(drift.requestCount == 1)
        #expect(busy.requestCount == 3)
        let waits = zip(busy.arrivalTimes.dropFirst(), busy.arrivalTimes).map { $0.timeIntervalSince($1) }
        #expect(waits.allSatisfy { $0 >= 0.95 }, "\(waits)")
        #expect(run.stdout.contains("DRIFT Busy.user  "))
        #expect(run.stdout.contains("[3 attempts]"))
        #expect(run.junit?.contains(#"<property name="tether.retried" value="user"/>"#) == true)
    }

    @Test(arguments: [
        (["--retries", "-1"], "--retries: '-1' is not a whole number from 0 to 10"),
        (["--retries", "11"], "--retries: '11' is not a whole number from 0 to 10"),
        (["--rate", "0/s"], "--rate: '0/s' is not a rate such as 10/s or 0.5/s"),
        (["--rate", "fast"], "--rate: 'fast' is not a rate such as 10/s"),
        (["--jobs-per-host", "0"], "--jobs-per-host: '0' is not a whole number from 1 to 256"),
        (["--update-baseline"], "--update-baseline writes the file of --baseline FILE"),
    ])
    func badValuesAreRefused(arguments: [String], message: String) throws {
        let folder = try ContractFolder(["api.json": manifest(baseURL: "http://127.0.0.1:9", targets: userTarget)])
        let run = try TetherBinary.run(["verify", folder.path] + arguments)
        #expect(run.exitCode == 2)
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }

    @Test func aMalformedBaselineIsRefusedWithLineAndColumnBeforeAnythingIsSent() throws {
        let seen = SeenRequests()
        let server = try MockServer { request in
            seen.record(request)
            return .json(#"{"id": 1, "name": "Ada"}"#)
        }
        let folder = try ContractFolder([
            "api.json": manifest(baseURL: server.baseURL, targets: userTarget),
            "baseline.json":
                "{\"tetherBaseline\": 1,\n  \"targets\": [\n    {\"service\": \"Demo\", \"target\": \"user\", \"hasPased\": true}\n  ]\n}\n",
            "broken.json": "{\"tetherBaseline\": 1, \"targets\": [\n",
        ])
        let typo = try TetherBinary.run([
            "verify", folder.file("api.json"), "--baseline", folder.file("baseline.json"),
        ])
        #expect(typo.exitCode == 2)
        #expect(typo.stderr.contains("--baseline \(folder.file("baseline.json")):3:"), "\(typo.stderr)")
        #expect(typo.stderr.contains("did you mean 'hasPassed'?"))
        #expect(typo.stderr.contains("nothing was sent"))
        let broken = try TetherBinary.run([
            "verify", folder.file("api.json"), "--baseline", folder.file("broken.json"), "--update-baseline",
        ])
        #expect(broken.exitCode == 2)
        #expect(broken.stderr.contains("\(folder.file("broken.json")):2:"), "\(broken.stderr)")
        #expect(seen.all.isEmpty)
    }

    @Test func aPendingValueThatIsNotABooleanIsAContractError() throws {
        let target = #"{"name": "user", "path": "/user", "pending": "yes"}"#
        let folder = try ContractFolder(["api.json": manifest(baseURL: "http://127.0.0.1:9", targets: target)])
        let run = try TetherBinary.run(["verify", folder.file("api.json")])
        #expect(run.exitCode == 2)
        #expect(run.stderr.contains("api.json:1:"), "\(run.stderr)")
        #expect(run.stderr.contains("targets[0].pending: expected true or false, got string"))

        let typo = #"{"name": "user", "path": "/user", "pendng": true}"#
        try Data(manifest(baseURL: "http://127.0.0.1:9", targets: typo).utf8).write(
            to: URL(fileURLWithPath: folder.file("api.json")))
        let misspelt = try TetherBinary.run(["verify", folder.file("api.json")])
        #expect(misspelt.exitCode == 2)
        #expect(misspelt.stderr.contains("did you mean 'pending'?"), "\(misspelt.stderr)")
    }
}

/// Ctrl-C during a back-off: the wait ends at once, nothing is sent again, and the target is `interrupted`.
@Suite struct RetrySignalTests {
    @Test func aSignalDuringABackOffStopsTheRunWithoutAnotherAttempt() throws {
        let busy = try FlakyServer.alwaysBusy(retryAfter: 20)
        let targets = #"{"name": "user", "path": "/user", "sampleData": {"json": {"id": 1}}}"#
        let folder = try ContractFolder([
            "api.json": #"{"service": "Busy", "baseURL": "\#(busy.baseURL)", "targets": [\#(targets)]}"#
        ])
        let tether = try RunningTether(["verify", folder.file("api.json"), "--retries", "3", "--no-color"])
        #expect(eventually(within: 20) { busy.requestCount == 1 }, "the first attempt never came")
        usleep(200_000)  // inside the 20 s wait that Retry-After asked for
        kill(tether.process.processIdentifier, SIGINT)
        let status = tether.waitForExit(within: 10)
        #expect(status == 130, "stdout: \(tether.stdout)\nstderr: \(tether.stderr)")
        #expect(tether.stdout.contains("ERROR Busy.user"), "\(tether.stdout)")
        #expect(tether.stdout.contains("  interrupted\n"), "\(tether.stdout)")
        usleep(200_000)
        #expect(busy.requestCount == 1)
    }
}
