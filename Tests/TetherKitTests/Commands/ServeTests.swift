import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// `tether serve` through the built binary: answered by curl and by `tether verify --base-url`.
@Suite struct ServeTests {
    static let manifest = """
        { "service": "API", "baseURL": "https://api.test/v1",
          "targets": [
            { "name": "profile", "path": "/users/octocat", "sampleData": {"file": "samples/profile.json"} },
            { "name": "slow", "path": "/slow", "sampleData": {"json": {"ok": true}},
              "stubBehavior": {"delayed": 1} },
            { "name": "offline", "path": "/offline",
              "sampleResponse": {"networkError": {"code": -1009, "description": "offline"}} },
            { "name": "timeout", "path": "/timeout",
              "sampleResponse": {"networkError": {"code": -1001, "description": "timed out"}} }
          ] }
        """
    static let profile = "{ \"login\":\"octocat\",\n\t\"id\" : 1 }\n"

    /// A running `tether serve` and the URL it printed as its first line.
    /// Whether a TCP connection to 127.0.0.1:`port` is established (Linux's `/proc/net/tcp`; elsewhere, after a
    /// second, assumed).
    static func isConnected(toPort port: Int) -> Bool {
        #if os(Linux)
            guard let table = try? String(contentsOfFile: "/proc/net/tcp", encoding: .utf8) else { return true }
            let local = String(format: ":%04X", port)
            return table.split(separator: "\n").dropFirst().contains { line in
                let fields = line.split(separator: " ")
                return fields.count > 3 && fields[1].hasSuffix(local) && fields[3] == "01"
            }
        #else
            Thread.sleep(forTimeInterval: 1)
            return true
        #endif
    }

    static func start(_ arguments: [String]) throws -> (RunningTether, String) {
        let tether = try RunningTether(["serve"] + arguments)
        try #require(tether.waitForOutput("\n", within: 20), "stdout: \(tether.stdout) stderr: \(tether.stderr)")
        let first = String(tether.stdout.prefix { $0 != "\n" })
        try #require(first.wholeMatch(of: /http:\/\/127\.0\.0\.1:\d+/) != nil, "first line: \(first)")
        return (tether, first)
    }

    @Test func servesTheStubsAndLogsOneLinePerRequest() async throws {
        let folder = try ContractFolder(["api.json": Self.manifest, "samples/profile.json": Self.profile])
        let (tether, url) = try Self.start([folder.path, "--port", "0"])
        let profile = try await exchange("\(url)/users/octocat")
        #expect(profile.status == 200)
        #expect(profile.body == Data(Self.profile.utf8))  // byte for byte
        #expect(profile.values("Content-Type") == ["application/json"])
        #expect(tether.waitForOutput("GET /users/octocat  API.profile  200  ", within: 10), "\(tether.stdout)")

        let missing = try await exchange("\(url)/users/octocats")
        #expect(missing.status == 404)
        #expect(String(decoding: missing.body, as: UTF8.self).contains(#""route": "GET /users/octocat""#))
        let wrongMethod = try await exchange("\(url)/users/octocat", method: "POST", body: Data("{}".utf8))
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.values("Allow") == ["GET, HEAD"])
        #expect(tether.waitForOutput("POST /users/octocat  -  405  ", within: 10), "\(tether.stdout)")
    }

    @Test func aDelayedStubAnswersAfterItsDelay() async throws {
        let folder = try ContractFolder(["api.json": Self.manifest, "samples/profile.json": Self.profile])
        let (tether, url) = try Self.start([folder.path])
        let timed = try await runCurl(["-s", "-o", "/dev/null", "-w", "%{http_code} %{time_total}", "\(url)/slow"])
        let parts = timed.outputText.split(separator: " ")
        #expect(parts.first == "200", "\(timed.outputText)")
        let seconds = try #require(parts.last.flatMap { Double($0) })
        #expect(seconds >= 1, "answered after \(seconds) s")
        #expect(tether.waitForOutput("GET /slow  API.slow  200  1.", within: 10), "\(tether.stdout)")
    }

    @Test func aNetworkErrorClosesTheConnectionAndTheTimeoutCodeHoldsIt() async throws {
        let folder = try ContractFolder(["api.json": Self.manifest, "samples/profile.json": Self.profile])
        let (tether, url) = try Self.start([folder.path])
        let closed = try await runCurl(["-s", "--max-time", "10", "\(url)/offline"])
        #expect(closed.exitCode == 52, "curl: \(closed.exitCode) \(closed.errorText)")  // empty reply
        let held = try await runCurl(["-s", "--max-time", "2", "\(url)/timeout"])
        #expect(held.exitCode == 28, "curl: \(held.exitCode)")  // curl gave up: nothing came within 2 s
        #expect(tether.waitForOutput("GET /offline  API.offline  closed (networkError)", within: 10))
        #expect(
            tether.waitForOutput(
                "GET /timeout  API.timeout  held until the client left (networkError -1001)", within: 10),
            "\(tether.stdout)")
    }

    @Test func theRoundTripVerifiesEveryCheckableTarget() throws {
        let contracts = FixturePaths.packageRoot.appendingPathComponent("contracts").path
        let (tether, url) = try Self.start([contracts])
        let run = try TetherBinary.run(["verify", contracts, "--base-url", url, "--no-color"])
        #expect(run.exitCode == 0, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stdout.contains("5 passed, 0 failed, 0 errors, 1 skipped"), "\(run.stdout)")
        #expect(tether.waitForOutput("GET /users/octocat/repos?per_page=2  GitHub.userRepositories  200", within: 10))
    }

    @Test func noRequestPathReachesAFileThatIsNotAStub() async throws {
        let outer = try ContractFolder([
            "secret.txt": "TOP-SECRET", "contracts/api.json": Self.manifest,
            "contracts/samples/profile.json": Self.profile,
        ])
        let (tether, url) = try Self.start([outer.file("contracts")])
        defer { withExtendedLifetime(tether) {} }
        for path in [
            "/../secret.txt", "/..%2fsecret.txt", "/%2e%2e/secret.txt", "/%2e%2e%2fsecret.txt", "/..%5csecret.txt",
            "/samples/profile.json", "/api.json", "/users/octocat/../../secret.txt", "/users%2foctocat",
        ] {
            let result = try await runCurl(["-s", "--path-as-is", "-w", "\n%{http_code}", url + path])
            #expect(result.outputText.hasSuffix("\n404"), "\(path): \(result.outputText)")
            #expect(!result.outputText.contains("TOP-SECRET"), "\(path)")
            #expect(!result.outputText.contains("\"login\":\"octocat\""), "\(path) served a sample file by its name")
        }
    }

    @Test func aSampleFileOutsideTheNamedFolderIsRefusedWithExitCode2() throws {
        let outer = try ContractFolder([
            "secret.json": #"{"secret": true}"#,
            "contracts/api.json": #"""
            {"service": "A", "baseURL": "https://a.test", "targets": [
              {"name": "t", "sampleData": {"file": "../secret.json"}}]}
            """#,
        ])
        let run = try TetherBinary.run(["serve", outer.file("contracts")], deadline: 30)
        #expect(run.exitCode == 2, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stdout.isEmpty, "nothing is served: \(run.stdout)")
        #expect(run.stderr.contains("\(outer.file("contracts/api.json")):2:"), "\(run.stderr)")
        #expect(run.stderr.contains("targets[0].sampleData.file: sample file '"), "\(run.stderr)")
        #expect(run.stderr.contains("../secret.json' is outside '\(outer.file("contracts"))'"), "\(run.stderr)")
        #expect(run.stderr.contains("tether: error: 1 contract error; nothing is served"), "\(run.stderr)")
    }

    @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))])
    func aSignalStopsItWhileAConnectionIsHeld(signal: Int32, exitCode: Int32) async throws {
        let folder = try ContractFolder(["api.json": Self.manifest, "samples/profile.json": Self.profile])
        let (tether, url) = try Self.start([folder.path])
        // curl starts here, not in an `async let` (which waits for a free thread of the cooperative pool).
        let held = try StartedCurl(["-s", "--max-time", "30", "\(url)/timeout"], deadline: 40)
        // The request must be held when the signal comes: wait (bounded) until curl's connection is established, then
        // give the server a moment to read the request. A fixed sleep lost this race on a loaded machine; so did this
        // wait on the pool (`Task.sleep`), which a busy machine let run 20 s, past curl's own deadline.
        let port = Int(url.split(separator: ":").last ?? "") ?? 0
        let pid = tether.process.processIdentifier
        try await offPool {
            for _ in 0..<100 where !Self.isConnected(toPort: port) { usleep(100_000) }
            usleep(500_000)
            kill(pid, signal)
        }
        #expect(tether.waitForExit(within: 10) == exitCode, "stderr: \(tether.stderr)")
        #expect(tether.stderr.contains("\(signal == SIGINT ? "SIGINT" : "SIGTERM"): stopped serving"))
        let result = try await held.result()
        #expect(!result.wasKilled, "the held connection outlived the server")
        #expect(
            tether.stdout.contains("GET /timeout  API.timeout  not answered: the server stopped"), "\(tether.stdout)")
        #expect(result.exitCode != 0)
        let after = try await runCurl(["-s", "--max-time", "5", "\(url)/users/octocat"])
        #expect(after.exitCode == 7, "something still listens at \(url)")  // connection refused
    }

    @Test func servesAHARFileAndNotesEntriesWithoutAResponse() async throws {
        let folder = try ContractFolder([
            "a.har": """
            {"log": {"entries": [
              {"request": {"method": "GET", "url": "https://a.test/pending"}},
              {"request": {"method": "GET", "url": "https://a.test/zen"},
               "response": {"status": 200, "headers": [{"name": "Content-Type", "value": "text/plain"}],
                            "content": {"text": "recorded"}}}]}}
            """
        ])
        let (tether, url) = try Self.start(["--har", folder.file("a.har"), "--host", "127.0.0.1"])
        let zen = try await exchange("\(url)/zen")
        #expect(zen.status == 200)
        #expect(zen.body == Data("recorded".utf8))
        #expect(try await exchange("\(url)/pending?token=abcdef").status == 404)
        #expect(tether.waitForOutput("GET /zen  recorded  200  ", within: 10), "\(tether.stdout)")
        #expect(tether.waitForOutput("GET /pending?…  not recorded  404  ", within: 10), "\(tether.stdout)")
        #expect(!tether.stdout.contains("abcdef"))
        #expect(
            eventually(within: 10) {
                tether.stderr.contains(
                    "note: \(folder.file("a.har")): entries[0] (GET /pending) has no response: skipped")
            }, "\(tether.stderr)")

        // verify --mock says the same.
        let manifest =
            #"{"service": "A", "baseURL": "https://a.test", "targets": [{"name": "zen", "path": "/zen", "sampleData": {"text": "x"}}]}"#
        try Data(manifest.utf8).write(to: URL(fileURLWithPath: folder.file("a.json")))
        let run = try TetherBinary.run(["verify", folder.file("a.json"), "--mock", folder.file("a.har"), "--no-color"])
        #expect(run.exitCode == 0, "\(run.stdout)\n\(run.stderr)")
        #expect(
            run.stdout.contains("note: \(folder.file("a.har")): entries[0] (GET /pending) has no response: skipped"))
    }

    @Test(arguments: [
        (["--host", "example.com"], "--host: 'example.com' is not an IPv4 address"),
        (["--port", "70000"], "--port: '70000' is not a whole number from 0 to 65535"),
        (["contracts", "--har", "x.har"], "not both"),
    ])
    func badArgumentsAreUsageErrors(arguments: [String], message: String) throws {
        let run = try TetherBinary.run(["serve"] + arguments, deadline: 30)
        #expect(run.exitCode == 2)
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }
}
