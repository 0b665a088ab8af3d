import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

@Suite struct HARReplayTests {
    static func small() throws -> HARArchive {
        try HARArchive.load(contentsOf: FixturePaths.fixture("har/small.har"))
    }

    static func text(_ response: MockResponse) -> String {
        String(decoding: response.body, as: UTF8.self)
    }

    // MARK: Matching, without a server

    @Test func queryIsAMultisetOfDecodedPairs() throws {
        let replay = HARReplay(try Self.small())
        let recorded = #"{"total":2,"items":[1,2]}"#
        for query in [
            "q=sesame%20street&page=2&tag=a&tag=b",
            "tag=b&page=2&q=sesame+street&tag=a",
            "page=%32&tag=a&q=sesame%20street&tag=b",
        ] {
            let response = replay.response(for: MockRequest(method: "GET", path: "/search", query: query))
            #expect(response.status == 200, "\(query)")
            #expect(Self.text(response) == recorded, "\(query)")
        }
        for query in [
            "q=sesame%20street&page=2&tag=a", "q=sesame%20street&page=2&tag=a&tag=a", "q=sesame&page=2&tag=a&tag=b", "",
        ] {
            #expect(
                replay.response(for: MockRequest(method: "GET", path: "/search", query: query)).status == 404,
                "\(query)")
        }
    }

    @Test func methodIsCaseInsensitiveAndHostIsIgnored() throws {
        let replay = HARReplay(try Self.small())
        // Recorded as `get` on api.example.com, then again (500, "second") on another host: the first wins.
        let response = replay.response(for: MockRequest(method: "GET", path: "/users/caf%C3%A9"))
        #expect(response.status == 200)
        #expect(Self.text(response) == "first")
        #expect(Self.text(replay.response(for: MockRequest(method: "GET", path: "/users/café"))) == "first")
        #expect(replay.response(for: MockRequest(method: "POST", path: "/users/caf%C3%A9")).status == 404)
    }

    @Test func headFallsBackToGet() throws {
        let replay = HARReplay(try Self.small())
        #expect(replay.response(for: MockRequest(method: "HEAD", path: "/users/caf%C3%A9")).status == 200)
        #expect(replay.response(for: MockRequest(method: "HEAD", path: "/upload")).status == 404)
    }

    @Test func wireOnlyHeadersAreDroppedOthersKept() throws {
        let replay = HARReplay(try Self.small())
        let response = replay.response(
            for: MockRequest(method: "GET", path: "/search", query: "q=sesame%20street&page=2&tag=a&tag=b"))
        #expect(response.headers.map(\.name) == [":status", "Content-Type", "Link"])
        #expect(response.headers.contains(HTTPHeader("Link", "<https://api.example.com/search?page=3>; rel=\"next\"")))
    }

    @Test func entriesWithoutARealStatusAreNotReplayed() throws {
        let replay = HARReplay(try Self.small())
        #expect(replay.count == 4)  // 6 entries: one duplicate (first wins), one aborted (status 0)
        #expect(replay.response(for: MockRequest(method: "GET", path: "/aborted")).status == 404)
    }

    static let hint = "; record it in the HAR file, or check the target's method, path and query"

    @Test func unmatchedRequestGets404NamingItAndTheFileMarkedAsTheMocksOwn() throws {
        let replay = HARReplay(try Self.small(), file: "fixtures/small.har")
        let response = replay.response(for: MockRequest(method: "GET", path: "/users/x", query: "page=2"))
        #expect(response.status == 404)
        #expect(
            response.headers == [
                HTTPHeader("Content-Type", "application/json"), HTTPHeader("X-Tether-Mock", "not-recorded"),
            ])
        #expect(
            Self.text(response)
                == #"{"error":"not recorded in fixtures/small.har: GET /users/x?page=2\#(Self.hint)","#
                + #""har":"fixtures/small.har","method":"GET","path":"/users/x","query":"page=2"}"#)
        let quoted = replay.response(for: MockRequest(method: "PUT", path: "/a\"b\\c"))
        #expect(
            Self.text(quoted)
                == #"{"error":"not recorded in fixtures/small.har: PUT /a\"b\\c\#(Self.hint)","#
                + #""har":"fixtures/small.har","method":"PUT","path":"/a\"b\\c","query":""}"#)
        #expect((try? JSONSerialization.jsonObject(with: quoted.body)) != nil)
        #expect(HARReplay(try Self.small()).file == "the HAR file")
    }

    /// Only a miss carries the marker: a recording made through Tether's mock must not turn a replayed answer into one.
    @Test func aRecordedMarkerHeaderIsNotReplayed() throws {
        let archive = HARArchive(entries: [
            HAREntry(
                method: "GET", url: "https://x.test/a", status: 404,
                headers: [HTTPHeader("x-tether-mock", "not-recorded"), HTTPHeader("Content-Type", "text/plain")],
                body: Data("gone".utf8))
        ])
        let response = HARReplay(archive).response(for: MockRequest(method: "GET", path: "/a"))
        #expect(response.status == 404)
        #expect(response.headers == [HTTPHeader("Content-Type", "text/plain")])
    }

    // MARK: Served over HTTP

    @Test func smallFixtureOverHTTP() async throws {
        let server = try MockServer(replaying: try Self.small())
        let search = try await exchange(server.baseURL + "/search?tag=b&tag=a&page=2&q=sesame+street", compressed: true)
        #expect(search.exitCode == 0)
        #expect(search.status == 200)
        #expect(String(decoding: search.body, as: UTF8.self) == #"{"total":2,"items":[1,2]}"#)
        #expect(search.values("Content-Encoding").isEmpty)
        #expect(search.values("Content-Length") == ["25"])
        #expect(search.values("Keep-Alive").isEmpty)
        #expect(search.values(":status").isEmpty)
        #expect(search.values("Content-Type") == ["application/json; charset=utf-8"])

        let upload = try await exchange(server.baseURL + "/upload", method: "POST", body: Data("anything".utf8))
        #expect(upload.status == 201)
        #expect(upload.body == Data([0, 1, 2, 255]))
        #expect(upload.values("Location") == ["/upload/1"])

        let deleted = try await exchange(server.baseURL + "/items/1", method: "DELETE")
        #expect(deleted.status == 204)
        #expect(deleted.body.isEmpty)

        let missing = try await exchange(server.baseURL + "/users/x?page=2")
        #expect(missing.status == 404)
        #expect(missing.values("X-Tether-Mock") == ["not-recorded"])
        #expect(
            String(decoding: missing.body, as: UTF8.self)
                == #"{"error":"not recorded in the HAR file: GET /users/x?page=2\#(Self.hint)","#
                + #""har":"the HAR file","method":"GET","path":"/users/x","query":"page=2"}"#)
    }

    /// Every entry of github.har, requested with its recorded method, path and query, comes back with its recorded
    /// status and a byte-identical body, framed by MHD (Content-Length of the decoded body, no Content-Encoding).
    @Test func githubHARIsServedAsRecorded() async throws {
        let archive = try HARArchive.load(contentsOf: FixturePaths.realWorld("github.har"))
        let server = try MockServer(replaying: archive)
        for (index, entry) in archive.entries.enumerated() {
            let target = entry.query.isEmpty ? entry.path : "\(entry.path)?\(entry.query)"
            let result = try await exchange(server.baseURL + target, method: entry.method, compressed: true)
            #expect(result.exitCode == 0, "entry \(index): curl \(result.exitCode) \(result.errorText)")
            #expect(result.status == entry.status, "entry \(index) \(entry.method) \(target)")
            let sameBody = result.body == entry.body
            #expect(
                sameBody, "entry \(index) \(target): \(result.body.count) bytes served, \(entry.body.count) recorded")
            #expect(result.values("Content-Encoding").isEmpty, "entry \(index)")
            #expect(result.values("Transfer-Encoding").isEmpty, "entry \(index)")
            if entry.status != 204 {
                #expect(result.values("Content-Length") == [String(entry.body.count)], "entry \(index)")
            }
            // Kept: what the recording says about the body's type.
            if let type = entry.headers.first(where: { $0.name.lowercased() == "content-type" }) {
                #expect(result.values("Content-Type") == [type.value], "entry \(index)")
            }
        }
    }

    /// The gzip'd recordings (#1 zen, #2 users/jacquev6, #7 search/code in SOURCES.md) come back as plain bodies
    /// without Content-Encoding, even to a client that does not ask for gzip and decodes nothing.
    @Test func gzipRecordingsComeBackPlain() async throws {
        let server = try MockServer(replaying: try HARArchive.load(contentsOf: FixturePaths.realWorld("github.har")))
        let zen = try await exchange(server.baseURL + "/zen")
        #expect(zen.status == 200)
        #expect(String(decoding: zen.body, as: UTF8.self) == "Non-blocking is better than blocking.")
        #expect(zen.values("Content-Encoding").isEmpty)
        #expect(zen.values("Content-Length") == ["37"])

        let user = try await exchange(server.baseURL + "/users/jacquev6")
        #expect(user.status == 200)
        #expect(user.values("Content-Encoding").isEmpty)
        let login = (try? JSONSerialization.jsonObject(with: user.body) as? [String: Any])?["login"] as? String
        #expect(login == "jacquev6")

        let code = try await exchange(server.baseURL + "/search/code?q=jacquev6")
        #expect(code.status == 403)
        #expect(code.values("Content-Encoding").isEmpty)
        #expect(code.values("Retry-After") == ["60"])
        #expect((try? JSONSerialization.jsonObject(with: code.body)) != nil)

        // octokit counted UTF-16 units (4850); the body has 4856 bytes and that is what is framed.
        let issues = try await exchange(
            server.baseURL + "/search/issues?q=sesame+repo:octokit-fixture-org/search-issues")
        #expect(issues.status == 200)
        #expect(issues.values("Content-Length") == ["4856"])
        #expect(issues.body.count == 4856)
    }

    /// github-quirks.har must give exactly what github.har gives, for every request (and 404 for the same others).
    @Test func githubQuirksServesWhatGithubServes() async throws {
        let plain = try HARArchive.load(contentsOf: FixturePaths.realWorld("github.har"))
        let quirks = try HARArchive.load(contentsOf: FixturePaths.realWorld("github-quirks.har"))
        let plainServer = try MockServer(replaying: plain)
        let quirksServer = try MockServer(replaying: quirks)
        var targets = plain.entries.map {
            (method: $0.method, target: $0.query.isEmpty ? $0.path : "\($0.path)?\($0.query)")
        }
        targets.append((method: "GET", target: "/not/recorded?x=1"))
        for (method, target) in targets {
            let expected = try await exchange(plainServer.baseURL + target, method: method)
            let actual = try await exchange(quirksServer.baseURL + target, method: method)
            #expect(actual.exitCode == 0 && expected.exitCode == 0)
            #expect(actual.status == expected.status, "\(method) \(target)")
            let sameBody = actual.body == expected.body
            #expect(sameBody, "\(method) \(target): \(actual.body.count) vs \(expected.body.count) bytes")
        }
        // The 204 recorded without content.text (Chrome) serves an empty body.
        let deleted = try await exchange(
            quirksServer.baseURL + "/repos/octokit-fixture-org/labels/labels/test-label-updated", method: "DELETE")
        #expect(deleted.status == 204)
        #expect(deleted.body.isEmpty)
        #expect(deleted.values("Connection").isEmpty)  // recorded `connection: close` is not replayed
        // The base64-stored search answers the same bytes, query in any order.
        let search = try await exchange(
            quirksServer.baseURL + "/search/users?per_page=1&order=desc&q=vincent&sort=followers")
        #expect(search.status == 200)
        #expect(search.body.count == 27634)
        #expect(search.values("Link").count == 1)
    }
}
