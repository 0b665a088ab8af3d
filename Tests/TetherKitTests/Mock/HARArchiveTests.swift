import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

@Suite struct HARArchiveTests {
    @Test func githubHARHasEveryRecordedExchange() throws {
        let archive = try HARArchive.load(contentsOf: FixturePaths.realWorld("github.har"))
        #expect(archive.entries.count == 17)
        #expect(
            archive.entries.map(\.status) == [
                200, 401, 404, 200, 200, 200, 200, 200, 204, 201, 200, 200, 200, 404, 200, 403, 200,
            ])
        #expect(
            archive.entries.map(\.method) == Array(repeating: "GET", count: 8) + ["DELETE", "POST", "POST"]
                + Array(repeating: "GET", count: 6))
        #expect(
            archive.entries.map { $0.body.count } == [
                12615, 29, 23, 37, 27634, 6960, 1699, 1977, 0, 2395, 583, 7042, 7024, 123, 4856, 185, 1252,
            ])

        let zen = archive.entries[3]
        #expect(zen.path == "/zen")
        #expect(zen.query == "")
        #expect(String(decoding: zen.body, as: UTF8.self) == "Non-blocking is better than blocking.")
        // Recorded as sent on the wire; the replay, not the parser, drops them.
        #expect(zen.headers.contains(HTTPHeader("content-encoding", "gzip")))

        let search = archive.entries[14]
        #expect(
            search.url == "https://api.github.com/search/issues?q=sesame%20repo%3Aoctokit-fixture-org%2Fsearch-issues")
        #expect(search.path == "/search/issues")
        #expect(search.query == "q=sesame%20repo%3Aoctokit-fixture-org%2Fsearch-issues")
        #expect(search.headers.contains(HTTPHeader("content-length", "4850")))
        // Byte for byte: the body still parses as the JSON the file holds.
        let object = try JSONSerialization.jsonObject(with: search.body) as? [String: Any]
        #expect(object?["total_count"] as? Int == 2)
    }

    @Test func githubQuirksHARDecodesToTheSameBodies() throws {
        let plain = try HARArchive.load(contentsOf: FixturePaths.realWorld("github.har"))
        let quirks = try HARArchive.load(contentsOf: FixturePaths.realWorld("github-quirks.har"))
        #expect(quirks.entries.count == 18)
        // The first 17 are github.har's, whatever the encoding: base64 (#6 of SOURCES.md) and no content.text (204).
        for (index, entry) in plain.entries.enumerated() {
            let other = quirks.entries[index]
            #expect(
                other.method == entry.method && other.url == entry.url && other.status == entry.status, "entry \(index)"
            )
            let sameBody = other.body == entry.body
            #expect(sameBody, "entry \(index): \(other.body.count) bytes vs \(entry.body.count)")
        }
        #expect(quirks.entries[8].status == 204 && quirks.entries[8].body.isEmpty)
        // The duplicate capture of GET /users/jacquev6.
        #expect(quirks.entries[17].url == quirks.entries[16].url)
    }

    @Test func smallFixtureKeepsTheQuirksOfRealExports() throws {
        let archive = try HARArchive.load(contentsOf: FixturePaths.fixture("har/small.har"))
        #expect(archive.entries.count == 6)
        let search = archive.entries[0]
        // queryString says something else: the URL counts.
        #expect(search.query == "q=sesame%20street&page=2&tag=a&tag=b")
        #expect(search.path == "/search")
        #expect(String(decoding: search.body, as: UTF8.self) == #"{"total":2,"items":[1,2]}"#)
        #expect(archive.entries[1].method == "get")
        #expect(archive.entries[2].path == "/users/caf%C3%A9")
        // Base64 with a line break inside.
        #expect(archive.entries[3].body == Data([0, 1, 2, 255]))
        #expect(archive.entries[4].status == 204 && archive.entries[4].body.isEmpty)
        #expect(archive.entries[5].status == 0)
    }

    /// The one split of HAR matching, for recorded URLs and for the request targets the mock server receives.
    @Test(arguments: [
        ("https://h.test/a/b?x=1#frag", "/a/b", "x=1"),
        ("HTTP://h.test:80", "/", ""),
        ("svn+ssh://h.test/repo", "/repo", ""),
        ("/go?to=https://h.test/x", "/go", "to=https://h.test/x"),
        ("/a/http://b.test/c", "/a/http://b.test/c", ""),
        ("/users/a%20b?q=sesame%20repo%3Ax&x=1+2", "/users/a%20b", "q=sesame%20repo%3Ax&x=1+2"),
        ("/a?x=1#y", "/a", "x=1"),
        ("/a#b?c", "/a", ""),
        ("?x", "/", "x"),
        ("", "/", ""),
    ])
    func targetSplitsPathAndQuery(url: String, path: String, query: String) {
        #expect(HAREntry.target(of: url) == (path, query))
    }

    @Test func targetOfURLsWithAndWithoutHost() {
        #expect(HAREntry.target(of: "https://h.test:8443/a/b?x=1#frag") == ("/a/b", "x=1"))
        #expect(HAREntry.target(of: "https://h.test") == ("/", ""))
        #expect(HAREntry.target(of: "https://h.test?x=1") == ("/", "x=1"))
        #expect(HAREntry.target(of: "/relative?y") == ("/relative", "y"))
    }

    @Test(arguments: [
        ("no-entries.har", "1:9: not a HAR 1.2 file: missing log.entries; export it as HAR from the browser or proxy"),
        (
            "wrong-type.har",
            "2:83: not a HAR 1.2 file: log.entries[0].response.status: expected a number, got string \"200\"; export it "
                + "as HAR from the browser or proxy"
        ),
        // The entry's request, and the text that is not base64.
        ("entry-without-url.har", "3:15: log.entries[1]: request has no url; fix or remove this entry"),
        (
            "bad-base64.har",
            "3:160: log.entries[1].response.content.text: invalid base64 (content.encoding is \"base64\"); fix the text or drop the encoding"
        ),
    ])
    func brokenFilesNameTheFileAndTheProblem(name: String, message: String) {
        let path = FixturePaths.fixture("har/\(name)")
        #expect {
            _ = try HARArchive.load(contentsOf: path)
        } throws: { error in
            let text = String(describing: error)
            return text == "\(path): \(message)" || text == "\(path):\(message)"  // a place: `file:2:73: …`
        }
    }

    /// HAR files are read by the same JSON reader as manifests: strict, with the line and column of the problem.
    @Test(arguments: [
        (
            #"{"log": {"version": "1.2", "entries": [\#n  {"request": {"method": "GET", "url": "https://a.test/"}\#n"#,
            "3:1: not valid JSON: the input ends inside an object (missing '}')"
        ),
        (
            #"{"log": {"version": "1.2", "entries": [],}}"#,
            "1:41: not valid JSON: a comma before '}' (remove the trailing comma)"
        ),
    ])
    func syntaxErrorsNameLineAndColumn(text: String, located: String) throws {
        let folder = try ContractFolder(["x.har": text])
        #expect {
            _ = try HARArchive.load(contentsOf: folder.file("x.har"))
        } throws: { error in
            String(describing: error) == "\(folder.file("x.har")):\(located); export the HAR file again"
        }
    }

    @Test func aByteOrderMarkIsSkipped() throws {
        let folder = try ContractFolder(["samples/keep": ""])
        let har =
            #"{"log": {"version": "1.2", "entries": [{"request": {"method": "GET", "url": "https://a.test/x"}, "response": {"status": 200, "headers": [], "content": {"text": "{}"}}}]}}"#
        try (Data([0xEF, 0xBB, 0xBF]) + Data(har.utf8)).write(to: URL(fileURLWithPath: folder.file("a.har")))
        #expect(try HARArchive.load(contentsOf: folder.file("a.har")).entries.count == 1)
    }

    @Test func errorCasesAreTyped() {
        let path = FixturePaths.fixture("har/entry-without-url.har")
        #expect(throws: HARError.invalidEntry(path: path, index: 1, detail: "request has no url", line: 3, column: 15))
        {
            _ = try HARArchive.load(contentsOf: path)
        }
        let base64 = FixturePaths.fixture("har/bad-base64.har")
        #expect(throws: HARError.invalidBase64(path: base64, index: 1, line: 3, column: 160)) {
            _ = try HARArchive.load(contentsOf: base64)
        }
        #expect(throws: HARError.notHAR(path: "x.har", line: 1, column: 1, detail: "missing log")) {
            _ = try HARArchive.parse(Data(#"{"version":"1.2"}"#.utf8), path: "x.har")
        }
        #expect(
            throws: HARError.notHAR(
                path: "x.har", line: 1, column: 1, detail: "the top level: expected an object, got array")
        ) {
            _ = try HARArchive.parse(Data("[1,2]".utf8), path: "x.har")
        }
    }

    @Test func aHARWithNothingToReplayIsAnErrorNamingTheFile() {
        let empty = FixturePaths.fixture("har/empty.har")
        #expect(throws: HARError.noEntries(path: empty)) { _ = try HARArchive.load(contentsOf: empty) }
        #expect(
            String(describing: HARError.noEntries(path: empty))
                == "\(empty) has no entries: nothing to replay; record the requests and export the HAR file again")
        let aborted =
            #"{"log": {"entries": [{"request": {"method": "GET", "url": "https://x.test/a"}, "response": {}}]}}"#
        #expect(throws: HARError.nothingToReplay(path: "Aborted.har", count: 1)) {
            _ = try HARArchive.parse(Data(aborted.utf8), path: "Aborted.har")
        }
        #expect(
            String(describing: HARError.nothingToReplay(path: "Aborted.har", count: 1)).hasPrefix(
                "Aborted.har: none of its 1 entries has a response status (the requests were aborted): nothing to replay"
            ))
    }

    @Test func aFolderIsNotAHARFile() throws {
        let folder = try ContractFolder(["Recordings/x.har": "{}"])
        let path = folder.file("Recordings")
        #expect(throws: HARError.isFolder(path: path)) { _ = try HARArchive.load(contentsOf: path) }
        #expect(
            String(describing: HARError.isFolder(path: path))
                == "\(path) is a folder, not a HAR file; pass the .har file itself")
    }

    /// A library's sentence loses only its capital first letter: what it quotes keeps its case.
    @Test(arguments: [
        ("Unexpected character 'X' around line 1, column 2.", "unexpected character 'X' around line 1, column 2"),
        ("The file “Small.har” couldn’t be opened.", "the file “Small.har” couldn’t be opened"),
        ("A Name", "a Name"),
        ("JSON text did not start with array or object", "JSON text did not start with array or object"),
        ("'X' is not allowed", "'X' is not allowed"),
        ("already lower", "already lower"),
    ])
    func quotedTextKeepsItsCase(library: String, expected: String) {
        #expect(HARError.sentence(library) == expected)
        #expect(
            String(describing: HARError.notJSON(path: "Rec/A.har", line: 2, column: 5, detail: library))
                == "Rec/A.har:2:5: \(expected); export the HAR file again")
    }

    @Test func missingFileIsUnreadable() {
        #expect(throws: HARError.unreadable(path: "/nonexistent/x.har", reason: "no such file")) {
            _ = try HARArchive.load(contentsOf: "/nonexistent/x.har")
        }
        #expect(
            String(describing: HARError.unreadable(path: "/nonexistent/x.har", reason: "no such file"))
                == "/nonexistent/x.har: cannot read the HAR file (no such file); check the path")
    }
}
