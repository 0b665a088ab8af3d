import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// `tether mock FILE.har` serves a HAR on 127.0.0.1 until it is stopped.
@Suite struct MockTests {
    @Test func servesTheRecordedResponsesAndNamesWhatIsNotRecorded() throws {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { root.deleteLastPathComponent() }
        let mock = try RunningTether(["mock", root.appendingPathComponent("contracts/github.har").path])
        try #require(mock.waitForOutput("\n", within: 10), "tether mock printed nothing within 10 s")
        let banner = mock.stdout
        let match = try #require(banner.firstMatch(of: /on (http:\/\/127\.0\.0\.1:\d+)/), "banner: \(banner)")
        #expect(banner.hasPrefix("serving 5 recorded responses from"))
        let baseURL = String(match.1)
        let results = CurlTransport().send(
            [
                HTTPRequest(method: "GET", url: "\(baseURL)/users/octocat/repos?per_page=2"),
                HTTPRequest(method: "GET", url: "\(baseURL)/users/nobody"),
            ], options: TransportOptions(timeout: 5))
        let recorded = try results[0].get()
        #expect(recorded.statusCode == 200)
        #expect(recorded.header("Link")?.contains("rel=\"next\"") == true)
        let missing = try results[1].get()
        #expect(missing.statusCode == 404)
        #expect(missing.header("X-Tether-Mock") == "not-recorded")
        #expect(
            String(decoding: missing.body, as: UTF8.self).contains(
                "not recorded in \(root.appendingPathComponent("contracts/github.har").path): GET /users/nobody"))
    }

    /// The entries the replay skips are said before the banner, as `verify --mock` says them, and are not counted
    /// among the responses served: one without a response, one whose status is no HTTP status.
    @Test func entriesThatCannotBeReplayedAreSaidAndNotCounted() throws {
        let folder = try ContractFolder([
            "a.har": """
            {"log": {"version": "1.2", "entries": [
              {"request": {"method": "GET", "url": "https://s.test/odd", "headers": []},
               "response": {"status": 99, "headers": [], "content": {"text": "{}"}}},
              {"request": {"method": "GET", "url": "https://s.test/ok", "headers": []},
               "response": {"status": 200, "headers": [], "content": {"text": "{}"}}},
              {"request": {"method": "GET", "url": "https://s.test/aborted", "headers": []},
               "response": {"status": 0, "headers": [], "content": {"text": ""}}}]}}
            """
        ])
        let har = folder.file("a.har")
        let mock = try RunningTether(["mock", har])
        try #require(mock.waitForOutput("Ctrl-C stops", within: 10), "tether mock printed: \(mock.stdout)")
        let lines = mock.stdout.split(separator: "\n").map(String.init)
        #expect(
            Array(lines.prefix(2)) == [
                "note: \(har): entries[0] (GET /odd) has status 99, which is no HTTP status (100 to 599): skipped",
                "note: \(har): entries[2] (GET /aborted) has no response: skipped",
            ], "\(mock.stdout)")
        #expect(
            lines.count > 2 && lines[2].hasPrefix("serving 1 recorded response from \(har) on http://127.0.0.1:"),
            "\(mock.stdout)")
    }
}
