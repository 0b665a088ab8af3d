import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// The built `tether` against a service with one slow endpoint (issue 6 §1): the slow target is an error that says
/// which option raises the limit; every target beside it keeps its own verdict and duration, and a drift among
/// them still fails the run (exit 1), not "could not check" (exit 3).
@Suite struct VerifyFaultIsolationTests {
    static let fastCount = 12

    /// A manifest: the slow target first, then the fast ones; `drifted` names a fast target whose stub is wrong.
    private func manifest(baseURL: String, drifted: Int? = nil) -> String {
        var targets = [#"{"name": "slow", "path": "/delay/8/slow", "sampleData": {"json": {"ok": true}}}"#]
        for index in 0..<Self.fastCount {
            let stub = index == drifted ? #"{"ok": "yes"}"# : #"{"ok": true}"#
            targets.append(#"{"name": "fast\#(index)", "path": "/fast/\#(index)", "sampleData": {"json": \#(stub)}}"#)
        }
        return #"{"service": "Fault", "baseURL": "\#(baseURL)", "targets": [\#(targets.joined(separator: ", "))]}"#
    }

    /// `(name, seconds)` of each console line that starts with `word` (PASS, DRIFT, ERROR).
    private func lines(_ word: String, in stdout: String) -> [(name: String, seconds: Double)] {
        stdout.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 3, fields[0] == word, fields[2].hasSuffix("s"),
                let seconds = Double(fields[2].dropLast())
            else { return nil }
            return (String(fields[1]), seconds)
        }
    }

    @Test(arguments: NginxServer.Mode.allCases)
    func fastTargetsPassBesideASlowOne(mode: NginxServer.Mode) async throws {
        let (upstream, nginx) = try await offPool {
            let upstream = try SlowServer()
            return (upstream, try NginxServer(mode: mode, upstream: upstream))
        }
        defer { upstream.stop() }
        let folder = try ContractFolder(["fault.json": manifest(baseURL: nginx.baseURL)])
        var arguments = ["verify", folder.path, "--timeout", "2", "--jobs", "8", "--no-color"]
        if mode.isTLS { arguments += ["--cacert", nginx.caCertificate] }

        let command = arguments
        let run = try await offPool { try TetherBinary.run(command) }

        #expect(run.exitCode == 3, "\(run.stdout)\(run.stderr)")  // the slow one could not be checked; no drift
        let errors = lines("ERROR", in: run.stdout)
        #expect(errors.map(\.name) == ["Fault.slow"], "\(run.stdout)")
        let slowSeconds = errors.first?.seconds ?? 0
        #expect(slowSeconds >= 1.99, "\(run.stdout)")
        #expect(run.stdout.contains("(raise --timeout to wait longer)"), "\(run.stdout)")
        let passed = lines("PASS", in: run.stdout)
        #expect(passed.map(\.name) == (0..<Self.fastCount).map { "Fault.fast\($0)" }, "\(run.stdout)")
        for target in passed {
            #expect(target.seconds < slowSeconds / 2, "\(target.name) took \(target.seconds) s: \(run.stdout)")
        }
        let junit = try #require(run.junit)
        #expect(junit.components(separatedBy: "<error").count - 1 == 1, "\(junit)")
    }

    /// The README's CI gate: a real drift beside a slow endpoint is exit 1, never hidden behind exit 3.
    @Test func aDriftBesideASlowTargetFailsTheRun() async throws {
        let server = try await offPool { try SlowServer() }
        let folder = try ContractFolder(["fault.json": manifest(baseURL: server.baseURL, drifted: 3)])

        let path = folder.path
        let run = try await offPool {
            try TetherBinary.run(["verify", path, "--timeout", "2", "--jobs", "8", "--no-color"])
        }

        #expect(run.exitCode == 1, "\(run.stdout)\(run.stderr)")
        #expect(lines("DRIFT", in: run.stdout).map(\.name) == ["Fault.fast3"], "\(run.stdout)")
        #expect(lines("ERROR", in: run.stdout).map(\.name) == ["Fault.slow"], "\(run.stdout)")
        #expect(lines("PASS", in: run.stdout).count == Self.fastCount - 1, "\(run.stdout)")
    }
}
