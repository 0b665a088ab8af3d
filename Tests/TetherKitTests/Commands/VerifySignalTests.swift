import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// Ctrl-C (SIGINT) and SIGTERM stop a run cleanly: the report of what finished, the rest `interrupted`, 128 + signal.
@Suite struct VerifySignalTests {
    @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))])
    func aSignalMidRunWritesTheReportOfWhatFinished(signal: Int32, exitCode: Int32) throws {
        let fast = try MockServer { _ in .json(#"{"id": 1}"#) }
        let slow = try MisbehavingServer(mode: .hang)
        defer { slow.stop() }
        let folder = try fastThenSlow(fast: fast, slow: slow)
        let tether = try RunningTether([
            "verify", folder.file("fast.json"), folder.file("slow.json"), "--timeout", "60", "--no-color",
            "--json", folder.file("run.jsonl"),
        ])
        try #require(tether.waitForOutput("PASS  Fast.quick", within: 20), "stdout: \(tether.stdout)")
        #expect(eventually(within: 10) { slow.requests.count == 1 }, "the slow request never reached its server")
        kill(tether.process.processIdentifier, signal)
        let status = tether.waitForExit(within: 20)
        #expect(status == exitCode, "stdout: \(tether.stdout)\nstderr: \(tether.stderr)")
        let stdout = tether.stdout
        #expect(stdout.contains("ERROR Slow.late"), "\(stdout)")
        #expect(stdout.contains("  interrupted\n    GET \(slow.baseURL)/late"), "\(stdout)")
        #expect(stdout.contains("1 passed, 0 failed, 1 error, 0 skipped in "), "\(stdout)")
        #expect(stdout.contains("JUnit report: \(tether.junitPath)"))
        #expect(tether.stderr.contains(signal == SIGINT ? "SIGINT" : "SIGTERM"), "\(tether.stderr)")

        let junit = try #require(tether.junit, "no JUnit file at \(tether.junitPath)")
        #expect(junit.contains(#"<testcase classname="Fast" name="quick" time="#))
        #expect(junit.contains(#"<error message="interrupted" type="transport">"#), "\(junit)")
        #expect(junit.contains(#"<testsuite name="Slow" tests="1" failures="0" errors="1" skipped="0""#))
        #expect(junit.contains(#"<testsuite name="Fast" tests="1" failures="0" errors="0" skipped="0""#))
        let result = try JUnitValidator.validate(junit)
        #expect(result.isValid, "\(result)")
        // The JSON lines' summary gives the process's exit code, not the gate's.
        let lines = try String(contentsOfFile: folder.file("run.jsonl"), encoding: .utf8).split(separator: "\n")
        #expect(lines.last?.contains(#""exitCode":\#(exitCode)"#) == true, "\(lines.last ?? "")")
        // No temporary file of the atomic write is left beside the report.
        let folderOfReport = (tether.junitPath as NSString).deletingLastPathComponent
        #expect(try FileManager.default.contentsOfDirectory(atPath: folderOfReport) == ["junit.xml"])
    }

    /// A recording that a signal or --fail-fast cut short goes beside --out; the complete one there stays.
    @Test(arguments: [false, true])
    func aRecordingStoppedEarlyNeverReplacesTheCompleteOne(byFailFast: Bool) throws {
        let fast = try MockServer { _ in .json(byFailFast ? #"{"id": "one"}"# : #"{"id": 1}"#) }
        let slow = try MisbehavingServer(mode: .hang)
        defer { slow.stop() }
        let folder = try fastThenSlow(fast: fast, slow: slow)
        let complete = Data(#"{"log": {"version": "1.2", "entries": ["complete"]}}"#.utf8)
        try complete.write(to: URL(fileURLWithPath: folder.file("recorded.har")))
        let tether = try RunningTether(
            ["record", folder.file("fast.json"), folder.file("slow.json"), "--out", folder.file("recorded.har")]
                + ["--timeout", "60", "--no-color"] + (byFailFast ? ["--fail-fast"] : []))
        if !byFailFast {
            try #require(tether.waitForOutput("PASS  Fast.quick", within: 20), "stdout: \(tether.stdout)")
            #expect(eventually(within: 10) { slow.requests.count == 1 }, "the slow request never reached its server")
            kill(tether.process.processIdentifier, SIGTERM)
        }
        let status = tether.waitForExit(within: 20)
        #expect(status == (byFailFast ? 1 : 143), "stdout: \(tether.stdout)\nstderr: \(tether.stderr)")
        #expect(
            tether.stdout.contains(
                "HAR recording: \(folder.file("recorded.partial.har")) (1 response); the run stopped early, so "
                    + "\(folder.file("recorded.har")) was left as it was; not recorded, no response: Slow.late"),
            "\(tether.stdout)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.file("recorded.har"))) == complete)
        let partial = try Data(contentsOf: URL(fileURLWithPath: folder.file("recorded.partial.har")))
        let archive = try HARArchive.parse(partial, path: folder.file("recorded.partial.har"))
        #expect(archive.entries.map(\.url) == ["\(fast.baseURL)/quick"])
    }

    /// A recording into a stream (here the process's own output, `/dev/fd/1`) that --fail-fast cut short goes into
    /// the stream, said to be partial: there is no complete recording there to keep, and no `/dev/fd/1.partial.har`
    /// can be made.
    @Test func aRecordingStoppedEarlyIntoAStreamGoesIntoIt() throws {
        let fast = try MockServer { _ in .json(#"{"id": "one"}"#) }
        let slow = try MisbehavingServer(mode: .hang)
        defer { slow.stop() }
        let folder = try fastThenSlow(fast: fast, slow: slow)
        let tether = try RunningTether(
            ["record", folder.file("fast.json"), folder.file("slow.json"), "--out", "/dev/fd/1"]
                + ["--timeout", "60", "--no-color", "--fail-fast"])
        #expect(tether.waitForExit(within: 20) == 1, "stdout: \(tether.stdout)\nstderr: \(tether.stderr)")
        let stdout = tether.stdout
        #expect(
            stdout.contains(
                "HAR recording: /dev/fd/1 (1 response); the run stopped early, so it is partial; not recorded, no "
                    + "response: Slow.late"), "\(stdout)")
        let start = try #require(stdout.range(of: "{\n"), "\(stdout)")
        let end = try #require(stdout.range(of: "\n}\n", options: .backwards), "\(stdout)")
        let archive = try HARArchive.parse(Data(stdout[start.lowerBound..<end.upperBound].utf8), path: "stdout")
        #expect(archive.entries.map(\.url) == ["\(fast.baseURL)/quick"])
    }

    @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))])
    func tetherMockStopsOnASignal(signal: Int32, exitCode: Int32) throws {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { root.deleteLastPathComponent() }
        let tether = try RunningTether(["mock", root.appendingPathComponent("contracts/github.har").path])
        try #require(tether.waitForOutput("(Ctrl-C stops)\n", within: 20), "stdout: \(tether.stdout)")
        let match = try #require(tether.stdout.firstMatch(of: /on (http:\/\/127\.0\.0\.1:\d+)/))
        let zen = HTTPRequest(method: "GET", url: "\(match.1)/zen")
        #expect(try CurlTransport().send([zen], options: TransportOptions(timeout: 5))[0].get().statusCode == 200)
        kill(tether.process.processIdentifier, signal)
        #expect(tether.waitForExit(within: 20) == exitCode, "stderr: \(tether.stderr)")
        #expect(tether.stderr.contains("mock server stopped"), "\(tether.stderr)")
        // Nothing listens any more.
        let after = CurlTransport().send([zen], options: TransportOptions(timeout: 5, connectTimeout: 5))
        #expect(throws: TransportError.self) { try after[0].get() }
    }
}
