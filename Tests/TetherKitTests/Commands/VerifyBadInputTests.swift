import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

private func manifest(_ baseURL: String, _ targets: String) -> String {
    #"{"service": "Edge", "baseURL": "\#(baseURL)", "targets": [\#(targets)]}"#
}

/// Bad input gets a clear error and loses nothing: every case through the built binary.
@Suite(.serialized) struct VerifyBadInputTests {
    static func server() throws -> MockServer {
        try MockServer { request in
            switch request.path {
            case "/latin1":
                return MockResponse(
                    status: 200, headers: [HTTPHeader("Content-Type", "application/json")],
                    body: Data([0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xE9, 0x22, 0x7D]))
            case "/deep":
                return MockResponse(
                    status: 200,
                    body: Data((String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)).utf8))
            case "/html":
                return MockResponse(
                    status: 200, headers: [HTTPHeader("Content-Type", "text/html")],
                    body: Data("<html>\u{1B}[31m\u{0}\u{7} ]]> & oops</html>".utf8))
            case "/big": return MockResponse(status: 200, body: Data(count: 3_000_000))
            case "/huge":
                return .json(
                    "[" + Array(repeating: #"{"id": 1, "name": "x"}"#, count: 200_000).joined(separator: ",") + "]")
            default: return .json("{}", status: 404)
            }
        }
    }

    @Test func bodiesThatAreNotUTF8OrNotJSONOrTooDeepAreDriftsWithClearMessages() throws {
        let server = try Self.server()
        let folder = try ContractFolder([
            "edge.json": manifest(
                server.baseURL,
                """
                {"name": "latin1", "path": "/latin1", "sampleData": {"json": {"a": "x"}}},
                {"name": "deep", "path": "/deep", "sampleData": {"json": [[1]]}},
                {"name": "html", "path": "/html", "sampleData": {"json": {"a": "x"}}},
                {"name": "huge", "path": "/huge", "sampleData": {"json": [{"id": 1, "name": "x"}]}}
                """)
        ])
        let run = try TetherBinary.run(["verify", folder.path, "--no-color"])
        #expect(run.exitCode == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("DRIFT Edge.latin1"))
        #expect(
            run.stdout.contains("body: expected a JSON body, got bytes that are not UTF-8 (at byte 6)"), "\(run.stdout)"
        )
        #expect(run.stdout.contains("DRIFT Edge.deep"))
        #expect(run.stdout.contains("nested deeper than"), "\(run.stdout)")
        #expect(run.stdout.contains("DRIFT Edge.html"))
        #expect(run.stdout.contains("body: expected a JSON body, got text: <html>"), "\(run.stdout)")
        #expect(run.stdout.contains("PASS  Edge.huge"))
        // Control characters from the body never reach the terminal or the XML raw.
        #expect(!run.stdout.contains("\u{1B}["))
        let junit = try #require(run.junit)
        #expect(!junit.contains("\u{1B}"))
        #expect(!junit.contains("\u{0}"))
        let validation = try JUnitValidator.validate(junit)
        #expect(validation.isValid, "\(validation)")
    }

    @Test func aBodyOverMaxBodyIsAnErrorAndExitsFour() throws {
        let server = try Self.server()
        let folder = try ContractFolder([
            "edge.json": manifest(server.baseURL, #"{"name": "big", "path": "/big", "sampleData": {"text": "x"}}"#)
        ])
        let run = try TetherBinary.run(["verify", folder.path, "--max-body", "1M", "--no-color"])
        #expect(run.exitCode == 4)  // its only target could not be checked: nothing was checked
        #expect(run.stdout.contains("ERROR Edge.big"))
        #expect(run.stdout.contains("response body larger than 1048576 bytes"), "\(run.stdout)")
        let fits = try TetherBinary.run(["verify", folder.path, "--max-body", "4M", "--no-color"])
        #expect(fits.exitCode == 0, "\(fits.stdout)")
    }

    @Test func aHangingServerIsCutAtTimeoutAndTheRestStillRuns() throws {
        let hang = try MisbehavingServer(mode: .hang)
        defer { hang.stop() }
        let good = try Self.server()
        let folder = try ContractFolder([
            "hang.json":
                #"{"service": "Slow", "baseURL": "\#(hang.baseURL)", "targets": [{"name": "slow", "path": "/slow"}]}"#,
            "good.json": manifest(
                good.baseURL,
                #"{"name": "missing", "path": "/nothing", "sampleResponse": {"networkResponse": {"statusCode": 404}}}"#),
        ])
        let start = Date()
        let run = try TetherBinary.run(["verify", folder.path, "--timeout", "1", "--no-color"])
        #expect(Date().timeIntervalSince(start) < 10)
        #expect(run.exitCode == 3, "\(run.stdout)")
        #expect(run.stdout.contains("ERROR Slow.slow"))
        #expect(run.stdout.contains("timed out"), "\(run.stdout)")
        #expect(run.stdout.contains("PASS  Edge.missing"))
    }

    @Test func aResetConnectionIsAnErrorWithCurlsText() throws {
        let reset = try MisbehavingServer(mode: .reset)
        defer { reset.stop() }
        let folder = try ContractFolder(["edge.json": manifest(reset.baseURL, #"{"name": "reset", "path": "/r"}"#)])
        let run = try TetherBinary.run(["verify", folder.path, "--no-color"])
        #expect(run.exitCode == 4)  // its only target could not be checked: nothing was checked
        #expect(run.stdout.contains("ERROR Edge.reset"))
        #expect(run.stdout.contains("reset") || run.stdout.contains("Recv failure"), "\(run.stdout)")
        #expect(try #require(run.junit).contains(#"type="transport""#))
    }

    @Test func aMissingOrBrokenHARIsAUsageErrorNamingTheFile() throws {
        let folder = try ContractFolder([
            "edge.json": manifest("http://127.0.0.1:9", #"{"name": "a"}"#), "broken.har": #"{"log": {}}"#,
        ])
        let missing = try TetherBinary.run(["verify", folder.path, "--mock", folder.file("nowhere.har")])
        #expect(missing.exitCode == 2)
        #expect(missing.stderr.contains("nowhere.har"), "\(missing.stderr)")
        let broken = try TetherBinary.run(["verify", folder.path, "--mock", folder.file("broken.har")])
        #expect(broken.exitCode == 2)
        #expect(broken.stderr.contains("broken.har"), "\(broken.stderr)")
    }

    @Test func anUnwritableReportPathIsAnErrorNamingIt() throws {
        let server = try Self.server()
        let folder = try ContractFolder([
            "edge.json": manifest(
                server.baseURL,
                #"{"name": "a", "path": "/nothing", "sampleResponse": {"networkResponse": {"statusCode": 404}}}"#),
            "file": "x",
        ])
        let run = try TetherBinary.run(["verify", folder.file("edge.json"), "--junit", folder.file("file/junit.xml")])
        #expect(run.exitCode == 2)
        #expect(run.stderr.contains("file/junit.xml"), "\(run.stderr)")
        #expect(run.stdout.isEmpty)  // checked before anything is sent
    }
}
