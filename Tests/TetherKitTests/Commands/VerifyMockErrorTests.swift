import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// What the built binary says when a HAR cannot answer: a request it does not hold is an error (exit 3), not a drift;
/// a HAR with nothing to replay, or a folder, stops the run at start-up (exit 2) naming the file.
@Suite struct VerifyMockErrorTests {
    static let small = FixturePaths.fixture("har/small.har")
    static let empty = FixturePaths.fixture("har/empty.har")

    /// One target small.har holds (`DELETE /items/1`, 204) and one it does not (`GET /nothere`).
    static func shop() throws -> ContractFolder {
        try ContractFolder([
            "shop.json": #"""
            {"service": "Shop", "baseURL": "https://shop.invalid", "targets": [
              {"name": "deleted", "method": "DELETE", "path": "/items/1",
               "sampleResponse": {"networkResponse": {"statusCode": 204}}},
              {"name": "nothere", "path": "/nothere", "sampleData": {"json": {"id": 1}}}
            ]}
            """#
        ])
    }

    static func line(_ prefix: String, in output: String) -> String? {
        output.split(separator: "\n").first { $0.hasPrefix(prefix) }.map(String.init)
    }

    @Test func aRequestTheHARDoesNotHoldIsAnErrorNotADrift() throws {
        let folder = try Self.shop()
        let run = try TetherBinary.run(["verify", folder.path, "--mock", Self.small, "--no-color"])
        #expect(run.exitCode == 3, "\(run.stdout)\(run.stderr)")
        #expect(Self.line("PASS  Shop.deleted", in: run.stdout) != nil, "\(run.stdout)")
        let error = try #require(Self.line("ERROR Shop.nothere", in: run.stdout), "\(run.stdout)")
        #expect(error.contains("not recorded in \(Self.small): GET /nothere"), "\(error)")
        #expect(!run.stdout.contains("DRIFT"))
        #expect(!run.stdout.contains("expected 200, got 404"))
        #expect(run.stdout.contains("1 passed, 0 failed, 1 error, 0 skipped"), "\(run.stdout)")

        let junit = try #require(run.junit)
        #expect(junit.contains(#"failures="0" errors="1""#), "\(junit)")
        let errorElement = try #require(junit.firstMatch(of: /<error message="([^"]*)"/), "\(junit)")
        #expect(String(errorElement.1).hasPrefix("not recorded in \(Self.small): GET /nothere"), "\(junit)")
        #expect(!junit.contains("<failure"))
        let validation = try JUnitValidator.validate(junit)
        #expect(validation.isValid, "\(validation)")
    }

    /// The mock names the request it does not hold, query included: a secret in it is still redacted everywhere.
    @Test func aSecretInTheUnrecordedRequestIsRedacted() throws {
        let folder = try ContractFolder([
            "shop.json": #"""
            {"service": "Shop", "baseURL": "https://shop.invalid", "targets": [
              {"name": "nothere", "path": "/nothere", "query": {"token": "${SHOP_TOKEN}"}, "sampleData": {"json": {}}}]}
            """#
        ])
        let run = try TetherBinary.run(
            ["verify", folder.path, "--mock", Self.small, "--no-color"], environment: ["SHOP_TOKEN": "s3cr3t-t0ken"])
        #expect(run.exitCode == 4, "\(run.stdout)\(run.stderr)")  // its only target could not be checked
        #expect(run.stdout.contains("GET /nothere?token=<redacted>"), "\(run.stdout)")
        let junit = try #require(run.junit)
        for output in [run.stdout, run.stderr, junit] { #expect(!output.contains("s3cr3t-t0ken")) }
    }

    /// The credentials a HAR file recorded (a request's `Authorization` and `Cookie`, a password in its URL) are
    /// secrets of every run that replays it, whatever their length, though no contract knows them: an answer that
    /// echoes them reaches no console line, report, stub rewritten by `update` or line of `learn`.
    @Test func credentialsTheHARRecordedNeverReachAnOutput() throws {
        let har = #"""
            {"log": {"version": "1.2", "entries": [{
              "request": {"method": "GET", "url": "https://dave:NOTEPW_1234@shop.test/me",
                "headers": [{"name": "Authorization", "value": "Bearer sk_live_HARSECRET_424242"},
                            {"name": "Cookie", "value": "s=COOKIEHAR_7777"},
                            {"name": "Proxy-Authorization", "value": "Bearer k3y9z"}]},
              "response": {"status": 200, "headers": [{"name": "Content-Type", "value": "application/json"}],
                "content": {"text": "{\"token\": \"Bearer sk_live_HARSECRET_424242\", \"sess\": \"COOKIEHAR_7777\", \"who\": \"dave:NOTEPW_1234\", \"short\": \"k3y9z\"}"}}
            }]}}
            """#
        let folder = try ContractFolder([
            "shop.json": #"""
            {"service": "Shop", "baseURL": "https://shop.invalid", "targets": [
              {"name": "me", "path": "/me", "sampleData": {"json": {"token": 1, "sess": 2, "who": 3, "short": 4}}}]}
            """#,
            "shop.har": har,
        ])
        let mock = folder.file("shop.har")
        let verify = try TetherBinary.run(["verify", folder.file("shop.json"), "--mock", mock, "--no-color", "-v"])
        #expect(verify.exitCode == 1, "\(verify.stdout)\(verify.stderr)")
        #expect(verify.stdout.contains(#"$.token: expected integer, got string "<redacted>""#), "\(verify.stdout)")
        let dryRun = try TetherBinary.run(["update", folder.file("shop.json"), "--mock", mock, "--dry-run"])
        let learned = try TetherBinary.run(["learn", folder.file("shop.json"), "--har", mock])
        let update = try TetherBinary.run(["update", folder.file("shop.json"), "--mock", mock])
        #expect(update.exitCode == 0, "\(update.stdout)\(update.stderr)")
        let rewritten = try String(contentsOfFile: folder.file("shop.json"), encoding: .utf8)
        #expect(rewritten.contains("<redacted>"), "\(rewritten)")
        for output in [
            verify.stdout, verify.stderr, verify.junit ?? "", dryRun.stdout, dryRun.stderr, learned.stdout,
            learned.stderr, update.stdout, update.stderr, rewritten,
        ] {
            // A recorded credential is hidden whatever its length: `k3y9z` is shorter than a value from the
            // environment must be to be hidden.
            for secret in ["sk_live_HARSECRET_424242", "COOKIEHAR_7777", "NOTEPW_1234", "k3y9z"] {
                #expect(!output.contains(secret), "\(secret) in \(output)")
            }
        }
    }

    /// `tether mock` in one process, `tether verify --base-url` in another: the same verdict as `--mock`.
    @Test func aStandaloneMocksMissIsAnErrorToo() throws {
        let mock = try RunningTether(["mock", Self.small])
        try #require(mock.waitForOutput("\n", within: 10), "tether mock printed nothing within 10 s")
        let banner = mock.stdout
        let match = try #require(banner.firstMatch(of: /on (http:\/\/127\.0\.0\.1:\d+)/), "banner: \(banner)")
        let folder = try Self.shop()
        let run = try TetherBinary.run(["verify", folder.path, "--base-url", String(match.1), "--no-color"])
        #expect(run.exitCode == 3, "\(run.stdout)\(run.stderr)")
        let error = try #require(Self.line("ERROR Shop.nothere", in: run.stdout), "\(run.stdout)")
        #expect(error.contains("not recorded in \(Self.small): GET /nothere"), "\(error)")
    }

    @Test(arguments: [["verify", "--mock"], ["mock"]])
    func aHARWithNoEntriesStopsAtStartUp(command: [String]) throws {
        let folder = try Self.shop()
        let arguments =
            command.first == "verify" ? ["verify", folder.path, "--mock", Self.empty] : ["mock", Self.empty]
        let run = try TetherBinary.run(arguments, deadline: 20)
        #expect(run.exitCode == 2, "\(run.stdout)\(run.stderr)")
        #expect(run.stderr.contains("\(Self.empty) has no entries: nothing to replay"), "\(run.stderr)")
        #expect(run.stdout.isEmpty, "\(run.stdout)")
        #expect(run.junit == nil)
    }

    @Test(arguments: [["verify", "--mock"], ["mock"]])
    func aFolderIsNotAHARFile(command: [String]) throws {
        let folder = try Self.shop()
        let recordings = FixturePaths.fixture("har")
        let arguments =
            command.first == "verify" ? ["verify", folder.path, "--mock", recordings] : ["mock", recordings]
        let run = try TetherBinary.run(arguments, deadline: 20)
        #expect(run.exitCode == 2, "\(run.stdout)\(run.stderr)")
        #expect(run.stderr.contains("\(recordings) is a folder, not a HAR file"), "\(run.stderr)")
        #expect(run.junit == nil)
    }
}
