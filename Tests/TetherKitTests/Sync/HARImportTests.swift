import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// One entry of a HAR file written for a test: only what the import reads.
private struct Recorded {
    var method = "GET"
    var url: String
    var requestHeaders: [(String, String)] = []
    /// `nil` writes an entry without `response`.
    var status: Int? = 200
    var responseHeaders: [(String, String)] = []
    var text: String?
    var isBase64 = false

    var json: String {
        func headers(_ list: [(String, String)]) -> String {
            "[" + list.map { #"{"name": \#(quoted($0.0)), "value": \#(quoted($0.1))}"# }.joined(separator: ",") + "]"
        }
        let request = #"{"method": "\#(method)", "url": \#(quoted(url)), "headers": \#(headers(requestHeaders))}"#
        guard let status else { return #"{"request": \#(request)}"# }
        var content = #"{"mimeType": "application/octet-stream""#
        if let text { content += #", "text": \#(quoted(text))"# }
        if isBase64 { content += #", "encoding": "base64""# }
        content += "}"
        return
            #"{"request": \#(request), "response": {"status": \#(status), "headers": \#(headers(responseHeaders)), "content": \#(content)}}"#
    }
}

private func quoted(_ text: String) -> String {
    String(decoding: JSONValue.string(text).serialized(), as: UTF8.self)
}

/// A HAR file with no `pages`, as Proxyman and Charles export them.
private func archive(_ entries: [Recorded]) throws -> HARArchive {
    let text = #"{"log": {"version": "1.2", "entries": ["# + entries.map(\.json).joined(separator: ",") + "]}}"
    return try HARArchive.parse(Data(text.utf8), path: "traffic.har")
}

private func importing(_ entries: [Recorded], host: String? = nil) throws -> HARImport {
    try HARImport(archive: archive(entries), file: "traffic.har", service: "Shop", host: host)
}

/// Writes the import into a fresh folder and loads it back as `tether verify` does: the files written (by path in
/// the folder) and the contracts loaded; the folder is removed.
private func writtenAndLoaded(_ imported: HARImport) throws -> (files: [String: Data], contracts: [Contract]) {
    let folder = NSTemporaryDirectory() + "tether-import-" + UUID().uuidString
    defer { try? FileManager.default.removeItem(atPath: folder) }
    try imported.manifest.write(to: folder)
    var files: [String: Data] = [:]
    for path in try FileManager.default.subpathsOfDirectory(atPath: folder) {
        files[path] = FileManager.default.contents(atPath: folder + "/" + path)
    }
    return (files, try ManifestLoader(environment: [:]).load(paths: [folder]))
}

/// What the replay of `--mock` answers a contract's request with.
private func replayed(_ contract: Contract, from archive: HARArchive) -> MockResponse {
    let (path, query) = HAREntry.target(of: contract.request.url)
    return HARReplay(archive).response(for: MockRequest(method: contract.request.method, path: path, query: query))
}

@Suite struct HARImportTests {
    @Test(arguments: [
        ("GET", "/users/octocat/repos", "usersOctocatRepos"),
        ("GET", "/", "root"),
        ("GET", "", "root"),
        ("POST", "/repos/octocat/hello/issues", "postReposOctocatHelloIssues"),
        ("DELETE", "/labels/test-label_updated", "deleteLabelsTestLabelUpdated"),
        ("GET", "/2fa/verify", "get2faVerify"),
        ("GET", "/Users/ThisUser/café", "usersThisUserCaf"),
        ("GET", "/images/logo.png", "imagesLogoPng"),
    ])
    func namesComeFromThePath(method: String, path: String, name: String) {
        #expect(HARImport.name(method: method, path: path) == name)
    }

    @Test func namesAreUniqueAndOneTargetPerMethodAndPath() throws {
        let imported = try importing([
            Recorded(url: "https://shop.test/a-b", text: "{}"),
            Recorded(url: "https://shop.test/a_b", text: "{}"),
            Recorded(url: "https://shop.test/A/B", text: "{}"),
            Recorded(method: "POST", url: "https://shop.test/a-b", status: 201, text: "{}"),
            Recorded(url: "https://shop.test/a-b?page=2", text: "[]"),
        ])
        #expect(imported.targetNames == ["aB", "aB2", "aB3", "postAB"])
        #expect(
            imported.messages == [
                "traffic.har: log.entries[4] (GET /a-b?page=2): the same method and path as log.entries[0], with "
                    + "another query: target 'aB' keeps log.entries[0], the first recorded answer, which "
                    + "'tether verify --mock' replays too; not imported"
            ])
        let (_, contracts) = try writtenAndLoaded(imported)
        #expect(contracts.map(\.name) == ["aB", "aB2", "aB3", "postAB"])
        #expect(contracts.map(\.sampleResponse) == [200, 200, 200, 201].map { .network(statusCode: $0, headers: []) })
    }

    @Test func theQueryIsKeptWithAnEmptyNameAndANameWithoutEquals() throws {
        let recorded = [
            Recorded(url: "https://shop.test/search?=", text: "[]"),
            Recorded(url: "https://shop.test/flags?flag&x=a+b%2Bc&x=2&&y=%zz", text: "[]"),
        ]
        let imported = try importing(recorded)
        let (files, contracts) = try writtenAndLoaded(imported)
        let manifest = String(decoding: try #require(files["shop.json"]), as: UTF8.self)
        #expect(manifest.contains(#""query": {"#))
        #expect(
            contracts.map(\.request.url) == [
                "https://shop.test/search?=", "https://shop.test/flags?flag=&x=a%20b%2Bc&x=2&y=%25zz",
            ])
        // What the replay matches: every target's request gets its own recorded answer, not the mock's 404.
        let har = try archive(recorded)
        for contract in contracts {
            #expect(replayed(contract, from: har).status == 200, "\(contract.name): \(contract.request.url)")
        }
    }

    @Test func aQueryValueNamedAsACredentialIsNeverPrintedAndItsTargetIsFlagged() throws {
        let imported = try importing([
            Recorded(url: "https://shop.test/search?q=shoes&api_key=abc123def", text: "[]"),
            Recorded(url: "https://shop.test/me?access_token=tok987654", status: 0),
            Recorded(url: "https://shop.test/redacted?api_key=%3Credacted%3E", text: "[]"),
        ])
        #expect(imported.targetNames == ["search", "redacted"])
        #expect(
            imported.messages == [
                "traffic.har: log.entries[0] (GET /search?q=shoes&api_key=<redacted>): query parameter 'api_key' looks "
                    + "like a credential, and the manifest holds its recorded value: write it as ${API_KEY} (and set "
                    + "API_KEY) before you commit the manifest",
                "traffic.har: log.entries[1] GET https://shop.test/me?access_token=<redacted>: no response was recorded "
                    + "(status 0: the request was aborted, blocked or failed): skipped",
            ])
    }

    @Test func entriesWithoutAResponseOrAPathNoTargetSendsAreSkippedByName() throws {
        let imported = try importing([
            Recorded(url: "https://shop.test/pending", status: nil),
            Recorded(url: "https://shop.test/aborted", status: 0),
            Recorded(url: "https://shop.test/socket", status: 101),
            Recorded(url: "https://shop.test/old", status: 301, responseHeaders: [("Location", "/new")]),
            Recorded(url: "https://shop.test/files/a%2fb.txt", text: "{}"),
            Recorded(url: "https://shop.test/new", text: "{\"ok\": true}"),
        ])
        #expect(imported.targetNames == ["new"])
        #expect(
            imported.messages == [
                "traffic.har: log.entries[0] GET https://shop.test/pending: no response was recorded (the request was "
                    + "still open when the file was exported): skipped",
                "traffic.har: log.entries[1] GET https://shop.test/aborted: no response was recorded (status 0: the "
                    + "request was aborted, blocked or failed): skipped",
                "traffic.har: log.entries[2] (GET /socket): status 101 is not a final response: skipped",
                "traffic.har: log.entries[3] (GET /old): status 301 is a redirect ('tether verify' follows redirects, "
                    + "so it would check the answer it leads to); import that entry instead: skipped",
                "traffic.har: log.entries[4] (GET /files/a%2fb.txt): its path holds an encoded '/' (%2F), which a "
                    + "target's path cannot send (Moya appends the path with appendingPathComponent, which encodes "
                    + "'%'); check it with a Swift target's endpointClosure: skipped",
            ])
    }

    @Test func nothingToImportIsAnErrorThatKeepsTheMessages() throws {
        #expect {
            try importing([
                Recorded(url: "https://shop.test/a", status: 0),
                Recorded(url: "https://shop.test/b", status: 302, responseHeaders: [("Location", "/a")]),
            ])
        } throws: { error in
            guard let error = error as? HARImportError, case .nothingToImport = error else { return false }
            return error.messages.count == 2 && error.messages[0].contains("log.entries[0]")
                && error.messages[1].contains("log.entries[1]")
                && error.description.hasPrefix("traffic.har: no entry for https://shop.test can be imported")
        }
    }

    @Test func base64BodiesAreWrittenByteForByte() throws {
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0xFF, 0xFE])
        let json = Data(#"{"b":1, "a":[1.50,2]}"#.utf8)
        let imported = try importing([
            Recorded(
                url: "https://shop.test/logo.png", responseHeaders: [("Content-Type", "image/png")],
                text: png.base64EncodedString(), isBase64: true),
            Recorded(url: "https://shop.test/cart", text: json.base64EncodedString(), isBase64: true),
            Recorded(
                url: "https://shop.test/page", responseHeaders: [("Content-Type", "text/html")], text: "<p>hi</p>"),
        ])
        #expect(
            imported.manifest.samples.map(\.path) == [
                "samples/shop/logoPng.png", "samples/shop/cart.json", "samples/shop/page.html",
            ])
        #expect(imported.manifest.samples.map(\.data) == [png, json, Data("<p>hi</p>".utf8)])
        let (files, contracts) = try writtenAndLoaded(imported)
        #expect(files["samples/shop/logoPng.png"] == png)
        #expect(
            contracts.map(\.sampleData) == [
                .text(png), .json(try JSONValue.parse(json)), .text(Data("<p>hi</p>".utf8)),
            ])
    }

    @Test func aRepeatedRequestKeepsTheEntryTheReplayAnswersWith() throws {
        let recorded = [
            Recorded(url: "https://shop.test/cart", status: 0),
            Recorded(url: "https://shop.test/cart", text: #"{"first": true}"#),
            Recorded(url: "https://shop.test/cart", status: 500, text: #"{"second": true}"#),
        ]
        let imported = try importing(recorded)
        #expect(imported.manifest.samples.map(\.data) == [Data(#"{"first": true}"#.utf8)])
        #expect(
            imported.messages.last
                == "traffic.har: log.entries[2] (GET /cart): a repeat of log.entries[1]: target 'cart' keeps "
                + "log.entries[1], the first recorded answer, which 'tether verify --mock' replays too; not imported")
        let (_, contracts) = try writtenAndLoaded(imported)
        let answer = replayed(try #require(contracts.first), from: try archive(recorded))
        #expect(answer.status == 200 && answer.body == Data(#"{"first": true}"#.utf8))
    }

    @Test func theMostCommonHostIsTheServiceAndOtherHostsAreNamed() throws {
        let recorded = [
            Recorded(url: "https://cdn.test/font.woff", text: "x"),
            Recorded(url: "https://api.shop.test/cart", text: "{}"),
            Recorded(url: "https://API.shop.test/items", text: "[]"),
        ]
        let imported = try importing(recorded)
        #expect(imported.baseURL == "https://api.shop.test")
        #expect(imported.targetNames == ["cart", "items"])
        #expect(
            imported.messages == [
                "traffic.har: 1 entry for https://cdn.test (log.entries[0]): another host than the service's "
                    + "(https://api.shop.test): skipped; import them as a service of their own with "
                    + "'tether import traffic.har --service NAME --host cdn.test'"
            ])
        let cdn = try importing(recorded, host: "cdn.test")
        #expect(cdn.baseURL == "https://cdn.test" && cdn.targetNames == ["fontWoff"])
        #expect {
            try importing(recorded, host: "nowhere.test")
        } throws: { error in
            (error as? HARImportError)?.description
                == "traffic.har has no entry for the host 'nowhere.test'; its hosts are: cdn.test (1), api.shop.test (2)"
        }
    }

    /// An entry without a response is named as such, with its URL, whatever its host; the other-host hint is given
    /// only for a host that has entries `--host` could import, and lists only those: following it never fails.
    @Test func entriesWithoutAResponseOnAnotherHostAreNamedAndGetNoHint() throws {
        let recorded = [
            Recorded(url: "https://shop.test/cart", text: "{}"),
            Recorded(url: "https://expired.badssl.com/style.css", status: 0),
            Recorded(url: "https://cdn.test/font.woff", text: "x"),
            Recorded(url: "https://cdn.test/pending.woff", status: nil),
            Recorded(url: "https://cdn.test/old", status: 301, responseHeaders: [("Location", "/new")]),
            Recorded(url: "https://shop.test/items", text: "[]"),
            Recorded(url: "https://blocked.test/ad.js", status: 0),
            Recorded(url: "https://blocked.test/ad2.js", status: 0),
        ]
        let imported = try importing(recorded)
        #expect(imported.baseURL == "https://shop.test" && imported.targetNames == ["cart", "items"])
        #expect(
            imported.messages == [
                "traffic.har: log.entries[1] GET https://expired.badssl.com/style.css: no response was recorded "
                    + "(status 0: the request was aborted, blocked or failed): skipped",
                "traffic.har: log.entries[3] GET https://cdn.test/pending.woff: no response was recorded (the request "
                    + "was still open when the file was exported): skipped",
                "traffic.har: log.entries[4] GET https://cdn.test/old: status 301 is a redirect ('tether verify' "
                    + "follows redirects, so it would check the answer it leads to); import that entry instead: skipped",
                "traffic.har: log.entries[6] GET https://blocked.test/ad.js: no response was recorded (status 0: the "
                    + "request was aborted, blocked or failed): skipped",
                "traffic.har: log.entries[7] GET https://blocked.test/ad2.js: no response was recorded (status 0: the "
                    + "request was aborted, blocked or failed): skipped",
                "traffic.har: 1 entry for https://cdn.test (log.entries[2]): another host than the service's "
                    + "(https://shop.test): skipped; import them as a service of their own with "
                    + "'tether import traffic.har --service NAME --host cdn.test'",
            ])
        // The one hint given holds: that host imports.
        #expect(try importing(recorded, host: "cdn.test").targetNames == ["fontWoff"])
        // A host whose entries all failed has nothing to import (no hint pointed there).
        #expect(throws: HARImportError.self) { try importing(recorded, host: "blocked.test") }
    }

    @Test func urlsThatAreNotHTTPAreSkippedInOneMessage() throws {
        let imported = try importing([
            Recorded(url: "wss://shop.test/socket", status: 101),
            Recorded(url: "data:image/png;base64,iVBORw0KGgo=", text: "x"),
            Recorded(url: "wss://shop.test/socket2", status: 200),
            Recorded(url: "https://shop.test/cart", text: "{}"),
        ])
        #expect(imported.baseURL == "https://shop.test" && imported.targetNames == ["cart"])
        #expect(
            imported.messages == [
                "traffic.har: 3 entries (log.entries[0], log.entries[1], log.entries[2]): not an http or https URL "
                    + "(data:, blob:, ws:, …): skipped"
            ])
    }

    @Test func anotherHostsEarlierAnswerToTheSameRequestIsNamed() throws {
        // The replay ignores hosts: it would answer GET /cart with the CDN's entry, so the target could not be checked.
        let imported = try importing([
            Recorded(url: "https://cdn.test/cart", text: "cdn"),
            Recorded(url: "https://shop.test/cart", text: "{}"),
            Recorded(url: "https://shop.test/items", text: "[]"),
            Recorded(url: "https://shop.test/other", text: "[]"),
        ])
        #expect(imported.targetNames == ["items", "other"])
        #expect(
            imported.messages[0].hasPrefix(
                "traffic.har: log.entries[1] (GET /cart): skipped: the mock replays log.entries[0] (https://cdn.test)"))
    }

    @Test func credentialsAndPseudoHeadersNeverReachTheFiles() throws {
        let token = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
        let imported = try importing([
            Recorded(
                url: "https://shop.test/session",
                requestHeaders: [
                    (":authority", "shop.test"), (":method", "GET"), ("Authorization", "Bearer \(token)"),
                    ("Cookie", "sid=cookie-secret-value"), ("accept", "application/json"),
                    ("If-None-Match", "W/\"1\""), ("X-Api-Key", "key-in-a-header"),
                ],
                responseHeaders: [("Set-Cookie", "sid=set-cookie-secret; Path=/")],
                text: #"{"token": "\#(token)", "sid": "set-cookie-secret", "user": "ann"}"#),
            Recorded(
                url: "https://shop.test/binary", text: Data([0xFF, 0xFE] + Array(token.utf8)).base64EncodedString(),
                isBase64: true),
        ])
        let (files, contracts) = try writtenAndLoaded(imported)
        let manifest = String(decoding: try #require(files["shop.json"]), as: UTF8.self)
        let sample = String(decoding: try #require(files["samples/shop/session.json"]), as: UTF8.self)
        for secret in [token, "cookie-secret-value", "set-cookie-secret", "key-in-a-header"] {
            #expect(!manifest.contains(secret) && !sample.contains(secret), "\(secret)")
            #expect(!imported.messages.joined().contains(secret))
        }
        for name in [":authority", ":method", "Authorization", "Cookie", "If-None-Match", "X-Api-Key"] {
            #expect(!manifest.lowercased().contains("\"\(name.lowercased())\""), "\(name)")
        }
        #expect(contracts[0].request.headers == [HTTPHeader("accept", "application/json")])
        #expect(sample == #"{"token": "<redacted>", "sid": "<redacted>", "user": "ann"}"#)
        // The binary body holds the token and cannot be redacted as text: not copied, the status is still checked.
        #expect(contracts[1].sampleData == .none)
        #expect(imported.manifest.samples.count == 1)
        #expect(
            imported.messages.contains {
                $0.hasPrefix("traffic.har: log.entries[0] (GET /session): its body holds a credential")
            })
        #expect(
            imported.messages.contains {
                $0.hasPrefix("traffic.har: log.entries[1] (GET /binary): its body holds a credential")
            })
    }

    @Test func anExistingManifestIsNotOverwritten() throws {
        let folder = NSTemporaryDirectory() + "tether-import-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let har = folder + "/traffic.har"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let text = #"{"log": {"entries": [\#(Recorded(url: "https://shop.test/a", text: "{}").json)]}}"#
        try Data(text.utf8).write(to: URL(fileURLWithPath: har))
        let (_, path) = try HARImport.run(harPath: har, service: "Shop", host: nil, folder: folder)
        #expect(path == folder + "/shop.json")
        #expect {
            try HARImport.run(harPath: har, service: "Shop", host: nil, folder: folder)
        } throws: { error in
            (error as? HARImportError)?.description
                == "\(folder)/shop.json exists already: nothing was written; remove it, or import into another --out folder"
        }
        // Nor is a sample file a team keeps there: the import is refused, and writes none of its files.
        try FileManager.default.removeItem(atPath: path)
        let sample = try #require(
            try FileManager.default.subpathsOfDirectory(atPath: folder).first {
                $0.hasPrefix("samples/") && $0.hasSuffix(".json")
            })
        try Data(#"{"curated": true}"#.utf8).write(to: URL(fileURLWithPath: folder + "/" + sample))
        #expect {
            try HARImport.run(harPath: har, service: "Shop", host: nil, folder: folder)
        } throws: { error in
            (error as? HARImportError)?.description.hasPrefix("\(folder)/\(sample) exists already: nothing was written")
                == true
        }
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(try String(contentsOfFile: folder + "/" + sample, encoding: .utf8) == #"{"curated": true}"#)
    }
}
