import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// Requests a handler saw, shared with the server's threads.
final class SeenRequests: @unchecked Sendable {
    private let lock = NSLock()
    private var requests: [MockRequest] = []

    func record(_ request: MockRequest) { lock.withLock { requests.append(request) } }
    var all: [MockRequest] { lock.withLock { requests } }
}

private func manifest(baseURL: String, targets: String, headers: String = "{}") -> String {
    #"{"service": "Shop", "baseURL": "\#(baseURL)", "headers": \#(headers), "targets": [\#(targets)]}"#
}

/// The built binary against a real server on 127.0.0.1: exit codes, console lines, the JUnit file.
@Suite(.serialized) struct VerifyTests {
    /// A small shop API: /items (a list), /items/1, /broken (a 500), /text.
    static func shop(_ seen: SeenRequests = SeenRequests(), drift: Bool = false) throws -> MockServer {
        try MockServer { request in
            seen.record(request)
            switch request.path {
            case "/items":
                let price = drift ? #""12.50""# : "12.5"
                return .json(
                    #"[{"id": 1, "name": "Mug", "price": \#(price), "tags": ["kitchen"]}, {"id": 2, "name": "Pen", "price": 1.25, "tags": []}]"#
                )
            case "/items/1":
                return .json(#"{"id": 1, "name": "Mug", "price": 12.5, "discontinued": false, "extra": "x"}"#)
            case "/text":
                return MockResponse(
                    status: 200, headers: [HTTPHeader("Content-Type", "text/plain")], body: Data("hello".utf8))
            default: return .json(#"{"message": "not found"}"#, status: 404)
            }
        }
    }

    static let shopTargets = """
        {"name": "items", "path": "/items", "sampleData": {"json": [{"id": 1, "name": "Mug", "price": 12.5, "tags": ["kitchen"]}]}},
        {"name": "item", "path": "/items/1", "sampleData": {"json": {"id": 1, "name": "Mug", "price": 9.99, "discontinued": true}}},
        {"name": "text", "path": "/text", "sampleData": {"text": "hi"}},
        {"name": "offline", "path": "/x", "sampleResponse": {"networkError": {"code": -1009, "description": "offline"}}}
        """

    @Test func everyContractHoldsExitsZeroWithOneTestPerTarget() throws {
        let seen = SeenRequests()
        let server = try Self.shop(seen)
        let folder = try ContractFolder(["shop.json": manifest(baseURL: server.baseURL, targets: Self.shopTargets)])
        let run = try TetherBinary.run(["verify", folder.path, "--no-color"])
        #expect(run.exitCode == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("PASS  Shop.items"))
        #expect(run.stdout.contains("SKIP  Shop.offline"))
        #expect(run.stdout.contains("3 passed, 0 failed, 0 errors, 1 skipped"))
        #expect(!run.stdout.contains("\u{1B}["))
        #expect(seen.all.map(\.path).sorted() == ["/items", "/items/1", "/text"])
        #expect(seen.all.allSatisfy { $0.header("User-Agent") == CurlTransport.userAgent })
        let junit = try #require(run.junit)
        #expect(junit.contains(#"<testsuite name="Shop" tests="4" failures="0" errors="0" skipped="1""#))
        #expect(junit.components(separatedBy: "<testcase ").count == 5)
    }

    @Test func aDriftExitsOneAndNamesThePath() throws {
        let server = try Self.shop(drift: true)
        let folder = try ContractFolder(["shop.json": manifest(baseURL: server.baseURL, targets: Self.shopTargets)])
        let run = try TetherBinary.run(["verify", folder.path, "--strict"])
        #expect(run.exitCode == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("DRIFT Shop.items"))
        #expect(run.stdout.contains(#"$[0].price: expected number, got string "12.50""#), "\(run.stdout)")
        // --strict: a key the stub lacks is a drift.
        #expect(run.stdout.contains("DRIFT Shop.item"))
        #expect(run.stdout.contains("$.extra"))
        #expect(
            run.stdout.contains("2 passed, 2 failed, 0 errors, 1 skipped")
                || run.stdout.contains("1 passed, 2 failed, 0 errors, 1 skipped"))
        let junit = try #require(run.junit)
        #expect(junit.contains(#"type="drift""#))
        #expect(junit.contains("GET \(server.baseURL)/items"))
        let result = try JUnitValidator.validate(junit)
        #expect(result.isValid, "\(result)")
    }

    @Test func aStatusDriftAndAWrongContentTypeAreBothReported() throws {
        let server = try Self.shop()
        let targets = """
            {"name": "gone", "path": "/nope", "sampleData": {"json": {"id": 1}}},
            {"name": "typed", "path": "/text", "sampleData": {"text": "hi"}, "sampleResponse": {"response": {"statusCode": 200, "headers": {"Content-Type": "application/json"}}}}
            """
        let folder = try ContractFolder(["shop.json": manifest(baseURL: server.baseURL, targets: targets)])
        let run = try TetherBinary.run(["verify", folder.path])
        #expect(run.exitCode == 1)
        #expect(run.stdout.contains("status: expected 200, got 404: check the request's path and query"))
        // The request line under a status drift tells a wrong path from a real 404.
        #expect(
            run.stdout.contains(
                "got 404: check the request's path and query, or fix the stub's status code\n    GET \(server.baseURL)/nope\n"
            ), "\(run.stdout)")
        #expect(
            run.stdout.contains("drifted or not checked:\n  DRIFT Shop.gone  status: expected 200, got 404"))
        #expect(run.stdout.contains(#"header Content-Type: expected "application/json", got "text/plain""#))
    }

    @Test func aBrokenContractExitsTwoAndSendsNothing() throws {
        let seen = SeenRequests()
        let server = try Self.shop(seen)
        let targets =
            #"{"name": "items", "path": "/items"}, {"name": "typo", "path": "/items", "sampleDta": {"json": []}}"#
        let folder = try ContractFolder(["shop.json": manifest(baseURL: server.baseURL, targets: targets)])
        let run = try TetherBinary.run(["verify", folder.path])
        #expect(run.exitCode == 2)
        #expect(
            run.stderr.contains(
                "shop.json:1:157: error: targets[1].sampleDta: unknown key (did you mean 'sampleData'?)"),
            "\(run.stderr)")
        #expect(run.stderr.hasSuffix("tether: error: 1 contract error; nothing was sent\n"), "\(run.stderr)")
        #expect(seen.all.isEmpty)
        #expect(run.junit == nil)
    }

    @Test func anUnsetVariableExitsTwoNamingIt() throws {
        let folder = try ContractFolder([
            "shop.json": manifest(
                baseURL: "http://127.0.0.1:9", targets: #"{"name": "a", "headers": {"X-Key": "${SHOP_KEY}"}}"#)
        ])
        let run = try TetherBinary.run(["verify", folder.path])
        #expect(run.exitCode == 2)
        #expect(run.stderr.contains("environment variable SHOP_KEY is not set"))
        #expect(run.stderr.contains("shop.json"))
    }

    /// A `${VAR}` in the service's headers is one error however many targets use them: printed once, counted once.
    @Test func anUnsetVariableInTheServiceHeadersIsPrintedOnce() throws {
        let folder = try ContractFolder([
            "shop.json": """
            {
              "service": "Shop",
              "baseURL": "http://127.0.0.1:9",
              "headers": {"Authorization": "Bearer ${SHOP_TOKEN}"},
              "targets": [{"name": "a", "path": "/a"}, {"name": "b", "path": "/b"}, {"name": "c", "path": "/c"}]
            }
            """
        ])
        for command in ["verify", "update", "learn"] {
            let run = try TetherBinary.run([command, folder.path])
            #expect(run.exitCode == 2, "\(run.stdout)\(run.stderr)")
            #expect(
                run.stderr == "\(folder.path)/shop.json:4:32: error: headers.Authorization: environment variable "
                    + "SHOP_TOKEN is not set (export it, or write ${SHOP_TOKEN:-default})\n"
                    + "tether: error: 1 contract error; nothing was sent\n", "\(command): \(run.stderr)")
        }
    }

    @Test(arguments: [
        (["verify", "--jbos", "4"], "unknown option '--jbos' (did you mean '--jobs'?)"),
        (["verfy"], "unknown command 'verfy' (did you mean 'verify'?)"),
        (["verify", "--jobs", "zero"], "--jobs: 'zero' is not a whole number from 1 to 256"),
        (["verify", "--base-url", "not a url"], "--base-url: 'not a url' is not an http or https URL"),
        (["verify", "--timeout"], "--timeout needs a value"),
        (["verify", "--max-body", "lots"], "--max-body: 'lots' is not a size in bytes"),
    ])
    func usageErrorsExitTwoWithASuggestion(arguments: [String], message: String) throws {
        let run = try TetherBinary.run(arguments)
        #expect(run.exitCode == 2)
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }

    @Test func helpAndVersionTeach() throws {
        let help = try TetherBinary.run(["--help"])
        #expect(help.exitCode == 0)
        #expect(help.stdout.contains("EXIT CODES"))
        let verifyHelp = try TetherBinary.run(["verify", "--help"])
        #expect(verifyHelp.stdout.contains("--base-url SERVICE=URL"))
        #expect(verifyHelp.stdout.contains("sampleData"))
        let version = try TetherBinary.run(["--version"])
        #expect(version.stdout == "tether \(tetherVersion)\n")
        #expect(help.stdout.contains("4  nothing was checked"))
        for arguments in [["help", "verify"], ["--help", "verify"], ["verify", "-h"]] {
            let run = try TetherBinary.run(arguments)
            #expect(run.exitCode == 0 && run.stdout.contains("--base-url SERVICE=URL"), "\(arguments)")
        }
        for arguments in [["help", "mock"], ["mock", "--help"], ["help"], ["help", "help"]] {
            let run = try TetherBinary.run(arguments)
            #expect(run.exitCode == 0 && run.stdout.contains("tether mock FILE.har [--port N]"), "\(arguments)")
        }
    }

    @Test(arguments: [
        (
            ["help", "foo"],
            "tether: error: no help on 'foo': the commands are verify, record, update, learn, mock, serve, import and merge-reports; run 'tether --help'"
        ),
        (["help", "mok"], "no help on 'mok' (did you mean 'mock'?)"),
        (["--help", "verfy"], "no help on 'verfy' (did you mean 'verify'?)"),
        (["help", "verify", "now"], "tether help takes one command, got 'now' after 'verify'"),
        (["mock", "--port"], "--port needs a value; run 'tether mock --help'"),
        (["mock", "x.har", "--port", "http"], "--port: 'http' is not a whole number from 0 to 65535"),
        (["mock", "--prot", "1"], "unknown option '--prot' (did you mean '--port'?); run 'tether mock --help'"),
        (["verify", "--junit"], "--junit needs a value; run 'tether verify --help'"),
    ])
    func helpPathsAndUsageErrorsPointAtTheRightHelp(arguments: [String], message: String) throws {
        let run = try TetherBinary.run(arguments)
        #expect(run.exitCode == 2)
        #expect(run.stderr.contains(message), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    @Test func aRefusedConnectionBesideAPassExitsThreeWithCurlsText() throws {
        let server = try Self.shop()
        let folder = try ContractFolder([
            "down.json":
                #"{"service": "Down", "baseURL": "http://127.0.0.1:1", "targets": [{"name": "a", "path": "/a"}]}"#,
            "shop.json": manifest(baseURL: server.baseURL, targets: #"{"name": "text", "path": "/text"}"#),
        ])
        let run = try TetherBinary.run(["verify", folder.file("shop.json"), folder.file("down.json")])
        #expect(run.exitCode == 3, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("ERROR Down.a"))
        #expect(
            run.stdout.contains("Couldn't connect to server") || run.stdout.contains("Connection refused"),
            "\(run.stdout)")
        #expect(run.stdout.contains("1 passed, 0 failed, 1 error, 0 skipped in "))
        #expect(!run.stdout.contains("nothing was checked"))
        #expect(try #require(run.junit).contains(#"<error message="#))
    }

    @Test func aRunThatChecksNothingExitsFour() throws {
        let refused = try ContractFolder([
            "shop.json": manifest(baseURL: "http://127.0.0.1:1", targets: #"{"name": "a", "path": "/a"}"#)
        ])
        let run = try TetherBinary.run(["verify", refused.path])
        #expect(run.exitCode == 4, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("0 passed, 0 failed, 1 error, 0 skipped in "))
        #expect(run.stdout.contains("\nnothing was checked: every target was skipped or could not be checked\n"))
        #expect(run.junit != nil)

        let skipped = try ContractFolder([
            "shop.json": manifest(
                baseURL: "http://127.0.0.1:1",
                targets: #"{"name": "off", "sampleResponse": {"networkError": {"code": -1009}}}"#)
        ])
        let onlySkipped = try TetherBinary.run(["verify", skipped.path])
        #expect(onlySkipped.exitCode == 4, "\(onlySkipped.stdout)\(onlySkipped.stderr)")
        #expect(onlySkipped.stdout.contains("0 passed, 0 failed, 0 errors, 1 skipped in "))
        #expect(onlySkipped.stdout.contains("nothing was checked"))
    }

    @Test func aDriftBesideAnErrorStillExitsOne() throws {
        let server = try Self.shop()
        let folder = try ContractFolder([
            "down.json":
                #"{"service": "Down", "baseURL": "http://127.0.0.1:1", "targets": [{"name": "a", "path": "/a"}]}"#,
            "shop.json": manifest(
                baseURL: server.baseURL, targets: #"{"name": "gone", "path": "/nope", "sampleData": {"json": {}}}"#),
        ])
        let run = try TetherBinary.run(["verify", folder.path])
        #expect(run.exitCode == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("0 passed, 1 failed, 1 error, 0 skipped in "))
    }

    /// Paths that cannot take a file even for root: under /proc, under a regular file, a folder.
    @Test(arguments: ["/proc/tether-none/junit.xml", "FILE/junit.xml", "FOLDER"])
    func anUnwritableReportPathExitsTwoBeforeAnythingIsSent(kind: String) throws {
        let seen = SeenRequests()
        let server = try Self.shop(seen)
        let folder = try ContractFolder([
            "shop.json": manifest(baseURL: server.baseURL, targets: Self.shopTargets), "plain.txt": "a file",
        ])
        let path = kind.replacingOccurrences(of: "FILE", with: folder.file("plain.txt"))
            .replacingOccurrences(of: "FOLDER", with: folder.path)
        let run = try TetherBinary.run(["verify", folder.file("shop.json"), "--junit", path])
        #expect(run.exitCode == 2, "\(run.stdout)\(run.stderr)")
        #expect(run.stderr.contains("tether: error: --junit \(path): cannot write the file: "), "\(run.stderr)")
        #expect(run.stderr.contains("choose another path"))
        #expect(run.stderr.hasSuffix("; nothing was sent\n"), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(seen.all.isEmpty)
    }

    @Test func aReportPathWithMissingFoldersIsFine() throws {
        let server = try Self.shop()
        let folder = try ContractFolder([
            "shop.json": manifest(baseURL: server.baseURL, targets: #"{"name": "text", "path": "/text"}"#)
        ])
        let path = folder.file("out/deep/er/junit.xml")
        let run = try TetherBinary.run(["verify", folder.file("shop.json"), "--junit", path])
        #expect(run.exitCode == 0, "\(run.stdout)\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: path))
        // The probe file of the check is gone.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.file("out/deep/er")) == ["junit.xml"])
    }

    @Test func secretsFromTheEnvironmentAndCredentialsNeverReachAReport() throws {
        // The server echoes the request line and the credentials back, as some error pages do.
        let server = try MockServer { request in
            .json(#"{"error": "bad key \#(request.query) for \#(request.header("Authorization") ?? "")"}"#, status: 403)
        }
        let folder = try ContractFolder([
            "shop.json": manifest(
                baseURL: server.baseURL,
                targets:
                    #"{"name": "a", "path": "/a", "query": {"api_key": "${SHOP_KEY}"}, "sampleData": {"text": "x"}}"#,
                headers: #"{"Authorization": "Basic dXNlcjpwYXNz"}"#)
        ])
        let run = try TetherBinary.run(
            ["verify", folder.path, "--timeout", "5"], environment: ["SHOP_KEY": "sk_live_12345"])
        #expect(run.exitCode == 1)
        for text in [run.stdout, run.stderr, run.junit ?? ""] {
            #expect(!text.contains("sk_live_12345"))
            #expect(!text.contains("dXNlcjpwYXNz"))
        }
        #expect(run.stdout.contains("<redacted>") || run.junit?.contains("&lt;redacted&gt;") == true)
    }

    /// A password (or a token as the user name) written into a base URL is a credential: no console line, report or
    /// listing shows it, nor the `Authorization: Basic …` libcurl makes of it, echoed back by the service.
    @Test func credentialsInABaseURLNeverReachAnOutput() throws {
        let server = try MockServer { request in
            .json(#"{"id": "denied for \#(request.header("Authorization") ?? "nobody")"}"#)
        }
        let withPassword = server.baseURL.replacingOccurrences(of: "http://", with: "http://admin:P4ss%77ordXYZ@")
        let folder = try ContractFolder([
            "shop.json": manifest(
                baseURL: withPassword, targets: #"{"name": "a", "path": "/a", "sampleData": {"json": {"id": 1}}}"#)
        ])
        let html = folder.file("report.html")
        let run = try TetherBinary.run(["verify", folder.path, "--timeout", "5", "--html", html, "--no-color"])
        #expect(run.exitCode == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("denied for Basic <redacted>"), "the server saw the credentials: \(run.stdout)")
        let listed = try TetherBinary.run(["verify", folder.path, "--list"])
        #expect(listed.stdout.contains("GET http://<redacted>@127.0.0.1:"), "\(listed.stdout)")
        let overridden = try TetherBinary.run([
            "verify", folder.path, "--list", "--base-url", "https://ci-bot:ghp_TokenValue1@api.example.com",
        ])
        #expect(overridden.stdout.contains("GET https://<redacted>@api.example.com/a"), "\(overridden.stdout)")
        let basic = Data("admin:P4sswordXYZ".utf8).base64EncodedString()
        for text in [
            run.stdout, run.stderr, run.junit ?? "", try String(contentsOfFile: html, encoding: .utf8),
            listed.stdout, listed.stderr, overridden.stdout, overridden.stderr,
        ] {
            for secret in ["P4ss%77ordXYZ", "P4sswordXYZ", basic, "ghp_TokenValue1"] {
                #expect(!text.contains(secret), "\(secret) in \(text)")
            }
        }
    }

    @Test func theShippedExampleHoldsOfflineAgainstItsHAR() throws {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { root.deleteLastPathComponent() }
        let run = try TetherBinary.run([
            "verify", root.appendingPathComponent("contracts").path, "--mock",
            root.appendingPathComponent("contracts/github.har").path,
        ])
        #expect(run.exitCode == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("PASS  GitHub.userRepositories"))
        #expect(run.stdout.contains("PASS  GitHub.unauthorized"))
        #expect(run.stdout.contains("5 passed, 0 failed, 0 errors, 1 skipped"))
    }
}

@Suite struct FilterCommandTests {
    @Test func filterSelectsTargetsAndAnEmptySelectionIsAnError() throws {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { root.deleteLastPathComponent() }
        let contracts = root.appendingPathComponent("contracts").path
        let har = root.appendingPathComponent("contracts/github.har").path
        let run = try TetherBinary.run(["verify", contracts, "--mock", har, "--filter", "GitHub.user*", "--no-color"])
        #expect(run.exitCode == 0)
        #expect(run.stdout.contains("2 passed, 0 failed, 0 errors, 0 skipped"), "\(run.stdout)")
        #expect(!run.stdout.contains("GitHub.zen"))
        let none = try TetherBinary.run(["verify", contracts, "--mock", har, "--filter", "nothing*"])
        #expect(none.exitCode == 2)
        #expect(none.stderr.contains("--filter nothing* matches none of the 6 targets"), "\(none.stderr)")
    }
}

@Suite struct EncodedSecretTests {
    /// A key with `+`, `=` and `/` is percent-encoded in the query; the encoded form is hidden too.
    @Test func aSecretIsRedactedInTheFormTheQueryEncodesIt() throws {
        let folder = try ContractFolder([
            "s.json":
                #"{"service": "S", "baseURL": "http://127.0.0.1:1", "targets": [{"name": "a", "path": "/x/${API_KEY}", "query": {"key": "${API_KEY}"}}]}"#
        ])
        let run = try TetherBinary.run(
            ["verify", folder.path, "--no-color"], environment: ["API_KEY": "abc/def+ghi=:@;"])
        #expect(run.exitCode == 4)  // its only target could not be checked
        for text in [run.stdout, run.junit ?? ""] {
            #expect(!text.contains("abc/def"), "\(text)")
            #expect(!text.contains("def%2Bghi"), "\(text)")
            #expect(text.contains("key=<redacted>") || text.contains("key=&lt;redacted&gt;"), "\(text)")
        }
    }
}

@Suite struct ColorTests {
    @Test func noColorWinsEvenOverColor() throws {
        let folder = try ContractFolder([
            "s.json": #"{"service": "S", "baseURL": "http://127.0.0.1:1", "targets": [{"name": "a"}]}"#
        ])
        let forced = try TetherBinary.run(["verify", folder.path, "--color"])
        #expect(forced.stdout.contains("\u{1B}["))
        let refused = try TetherBinary.run(["verify", folder.path, "--color"], environment: ["NO_COLOR": "1"])
        #expect(!refused.stdout.contains("\u{1B}["))
        #expect(refused.stdout.contains("ERROR S.a"))
        // --color wins over TERM=dumb (the user asked for it); NO_COLOR wins over both.
        let dumb = try TetherBinary.run(["verify", folder.path, "--color"], environment: ["TERM": "dumb"])
        #expect(dumb.stdout.contains("\u{1B}["))
        let dumbNoColor = try TetherBinary.run(
            ["verify", folder.path, "--color"], environment: ["TERM": "dumb", "NO_COLOR": "1"])
        #expect(!dumbNoColor.stdout.contains("\u{1B}["))
    }
}
