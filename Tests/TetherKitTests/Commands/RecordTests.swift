import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// `tether record` through the built binary against a live Python service on 127.0.0.1 that echoes the credentials
/// it is sent in every encoding (Fixtures/record/live.py), then the recording replayed by `verify --mock`.
@Suite(.serialized) struct RecordTests {
    static let token = "tok/en+sec=ret42"
    static let apiKey = "key-123456"
    static let manifest = FixturePaths.fixture("record/live.json")

    /// Every form the test service's echoes put the secrets in; none may be in the recording.
    static let leakedForms: [String] = [
        token, apiKey, "tok\\/en", "sec=ret42", "tok%2Fen", "sec%3Dret42", "key-123456",
        Data(token.utf8).base64EncodedString(), "octocat@example.com", "o@example.com",
    ]

    final class LiveService: PythonServer, @unchecked Sendable {
        init() throws {
            let script = try String(contentsOfFile: FixturePaths.fixture("record/live.py"), encoding: .utf8)
            try super.init(script: script, name: "live test service")
        }
    }

    struct Recorded {
        var run: TetherRun
        var har: Data
        var harPath: String
        var folder: String
    }

    static func record(extra: [String] = [], manifests: [String] = [manifest], live: LiveService) throws -> Recorded {
        let folder = NSTemporaryDirectory() + "tether-record-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let harPath = folder + "/recordings/live.har"
        let run = try TetherBinary.run(
            ["record"] + manifests + ["--out", harPath, "--junit", folder + "/junit.xml", "--no-color"] + extra,
            environment: ["LIVE_URL": live.baseURL, "TOKEN": token, "API_KEY": apiKey])
        let har = (try? Data(contentsOf: URL(fileURLWithPath: harPath))) ?? Data()
        return Recorded(run: run, har: har, harPath: harPath, folder: folder)
    }

    /// `PASS  Live.user`, `DRIFT Live.gone`, …: each target's verdict line, without its time (not the summary's).
    static func verdicts(_ stdout: String) -> [String] {
        stdout.split(separator: "\n").filter { $0.first != " " }.compactMap { line in
            let words = line.split(separator: " ", omittingEmptySubsequences: true)
            guard words.count >= 2, ["PASS", "DRIFT", "ERROR", "SKIP"].contains(String(words[0])) else { return nil }
            return "\(words[0]) \(words[1])"
        }
    }

    @Test func theRecordingIsStrictHARWithoutSecretsAndReplaysWithTheLiveVerdicts() throws {
        let live = try LiveService()
        defer { live.stop() }
        let recorded = try Self.record(
            extra: ["--redact-json", "$.email", "--redact-json", "$.items[*].owner.email"], live: live)
        defer { try? FileManager.default.removeItem(atPath: recorded.folder) }
        // Verifies as it goes: same console and exit code as verify (two drifts: a type and a status).
        #expect(recorded.run.exitCode == 1, "\(recorded.run.stdout)\(recorded.run.stderr)")
        #expect(
            Self.verdicts(recorded.run.stdout) == [
                "PASS Live.user", "PASS Live.searchRepositories", "PASS Live.avatar", "DRIFT Live.repository",
                "DRIFT Live.gone", "SKIP Live.offline",
            ])
        #expect(recorded.run.stdout.contains("HAR recording: \(recorded.harPath) (5 responses)"))

        // A third party's HAR 1.2 schema (ahmadnassri/har-schema), formats checked, accepts it.
        let schema = try Python.run(
            [FixturePaths.fixture("har-schema/validate.py"), recorded.harPath])
        #expect(
            schema.status == 0,
            """
            \(schema.output)(run by \(PythonServer.python), which needs jsonschema: scripts/setup installs it on Debian; \
            elsewhere pip install jsonschema and point TETHER_TEST_PYTHON at that python3)
            """)

        // No secret in any encoding, and no personal data the patterns name.
        let text = String(decoding: recorded.har, as: UTF8.self)
        for form in Self.leakedForms {
            #expect(!text.contains(form), "the recording holds '\(form)'")
        }
        let archive = try HARArchive.parse(recorded.har, path: recorded.harPath)
        #expect(archive.entries.count == 5)
        for entry in archive.entries {
            #expect(entry.body.range(of: Data(Self.token.utf8)) == nil)
        }
        let root = try JSONValue.parse(recorded.har)
        guard case .array(let entries)? = root["log"]?["entries"] else {
            Issue.record("no log.entries")
            return
        }
        for entry in entries {
            // content.size is the stored body's length; timings are never -1; times are ISO 8601 UTC.
            let content = entry["response"]?["content"]
            guard case .string(let stored)? = content?["text"], case .integer(let size)? = content?["size"] else {
                Issue.record("content without text or size: \(entry)")
                continue
            }
            let bytes =
                content?["encoding"] == .string("base64") ? Data(base64Encoded: stored) ?? Data() : Data(stored.utf8)
            #expect(Int(size) == bytes.count)
            for phase in ["send", "wait", "receive"] {
                guard case .double(let value)? = entry["timings"]?[phase] else {
                    Issue.record("timings.\(phase) missing")
                    continue
                }
                #expect(value >= 0)
            }
            guard case .string(let started)? = entry["startedDateTime"] else { continue }
            #expect(started.hasSuffix("Z") && started.contains("T") && started.contains("."))
        }
        // The gzip body is stored decoded; the user's login is kept, the email redacted with its type kept.
        let user = archive.entries[0]
        let body = try JSONValue.parse(user.body)
        #expect(body["login"] == .string("octocat"))
        #expect(body["email"] == .string(Redactor.marker))
        #expect(body["plan"]?["private_repos"] == .integer(9999))
        #expect(
            user.headers.contains { $0.isNamed("Set-Cookie") && $0.value == "session=<redacted>; Path=/; HttpOnly" })
        #expect(user.requestHeaders.contains { $0.isNamed("Authorization") && $0.value == Redactor.marker })
        // Bytes that are not UTF-8 are stored as base64, the echoed token inside them redacted.
        let avatar = archive.entries[2]
        #expect(avatar.body.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        #expect(avatar.body.range(of: Data(Redactor.marker.utf8)) != nil)
        #expect(text.contains("\"statusText\": \"Not Found\""))

        // The replay gives the live verdicts, with other credentials: a recorded <redacted> query value matches.
        let replay = try TetherBinary.run(
            ["verify", Self.manifest, "--mock", recorded.harPath, "--no-color"],
            environment: ["LIVE_URL": "http://127.0.0.1:9", "TOKEN": "a-different-token", "API_KEY": "another-key-987"])
        #expect(replay.exitCode == recorded.run.exitCode, "\(replay.stdout)\(replay.stderr)")
        #expect(Self.verdicts(replay.stdout) == Self.verdicts(recorded.run.stdout))
    }

    @Test func aTargetWithoutAResponseIsNamedAndTheOthersAreRecorded() throws {
        let live = try LiveService()
        defer { live.stop() }
        let folder = NSTemporaryDirectory() + "tether-record-down-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let down = folder + "/down.json"
        try Data(
            #"{"service": "Down", "baseURL": "http://127.0.0.1:9", "targets": [{"name": "status", "path": "/status"}]}"#
                .utf8
        ).write(to: URL(fileURLWithPath: down))
        let recorded = try Self.record(manifests: [down, Self.manifest], live: live)
        defer { try? FileManager.default.removeItem(atPath: recorded.folder) }
        #expect(recorded.run.exitCode == 1, "drift wins over the transport error: \(recorded.run.stdout)")
        #expect(recorded.run.stdout.contains("(5 responses); not recorded, no response: Down.status"))
        let archive = try HARArchive.parse(recorded.har, path: recorded.harPath)
        #expect(archive.entries.count == 5)
    }

    @Test func recordIsNeverImplicitAndRefusesWhatCannotWork() throws {
        let noOut = try TetherBinary.run(["record", Self.manifest])
        #expect(noOut.exitCode == 2)
        #expect(noOut.stderr.contains("tether record needs --out FILE.har (nothing is recorded unless asked)"))

        let mock = try TetherBinary.run(["record", Self.manifest, "--out", "/tmp/x.har", "--mock", "a.har"])
        #expect(mock.exitCode == 2)
        #expect(mock.stderr.contains("unknown option '--mock'"))

        let pattern = try TetherBinary.run(["record", Self.manifest, "--out", "/tmp/x.har", "--redact-json", "email"])
        #expect(pattern.exitCode == 2)
        #expect(
            pattern.stderr.contains(
                "--redact-json: 'email' is not a JSON path (column 1: expected '$' (the root) first"))

        // An unwritable --out stops the run before anything is sent.
        let live = try LiveService()
        defer { live.stop() }
        let run = try TetherBinary.run(
            ["record", Self.manifest, "--out", "/proc/tether/x.har", "--no-color"],
            environment: ["LIVE_URL": live.baseURL, "TOKEN": Self.token, "API_KEY": Self.apiKey])
        #expect(run.exitCode == 2)
        #expect(run.stderr.contains("--out") && run.stderr.contains("nothing was sent"), "\(run.stderr)")
        #expect(!run.stdout.contains("PASS"))
    }
}

/// Runs the tests' python3 (`PythonServer.python`: Debian's, with python3-jsonschema from scripts/setup, or
/// `TETHER_TEST_PYTHON`) on a script.
enum Python {
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let run = try ChildProcess.run(PythonServer.python, arguments)
        return (run.status, run.stdoutText + run.stderrText)
    }
}
