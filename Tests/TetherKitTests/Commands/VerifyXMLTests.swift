import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// The built binary against a real server on 127.0.0.1 answering XML: a sample `.xml` file, a drift with its
/// XPath-like path in the console and the JUnit file, and a hostile body that is refused, not expanded.
@Suite(.serialized) struct VerifyXMLTests {
    static func server(drift: Bool = false) throws -> MockServer {
        try MockServer { request in
            let atom = [HTTPHeader("Content-Type", "application/atom+xml; charset=utf-8")]
            switch request.path {
            case "/feed":
                let second = drift ? "<entry><id>2</id></entry>" : "<entry><id>2</id><title>B</title></entry>"
                return MockResponse(
                    status: 200, headers: atom,
                    body: Data(
                        #"<feed xmlns="http://www.w3.org/2005/Atom" version="1"><entry><id>1</id><title>A</title></entry>\#(second)</feed>"#
                            .utf8))
            case "/xxe":
                return MockResponse(
                    status: 200, headers: [HTTPHeader("Content-Type", "text/xml")],
                    body: Data(#"<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r><a>&x;</a></r>"#.utf8))
            default:
                return MockResponse(status: 404, headers: [], body: Data())
            }
        }
    }

    static func folder(_ server: MockServer) throws -> ContractFolder {
        try ContractFolder([
            "feed.json": #"""
            {"service": "News", "baseURL": "\#(server.baseURL)", "targets": [
              {"name": "feed", "path": "/feed", "sampleData": {"file": "stubs/feed.xml"}},
              {"name": "xxe", "path": "/xxe", "sampleData": {"text": "<r><a>x</a></r>"},
               "sampleResponse": {"response": {"statusCode": 200, "headers": {"Content-Type": "text/xml"}}}}
            ]}
            """#,
            "stubs/feed.xml": """
            <?xml version="1.0" encoding="UTF-8"?>
            <feed xmlns="http://www.w3.org/2005/Atom" version="1">
              <entry><id>1</id><title>A</title></entry>
            </feed>
            """,
        ])
    }

    @Test func anXMLFeedHoldsAndADriftNamesItsPath() throws {
        let good = try Self.server()
        let goodFolder = try Self.folder(good)
        let pass = try TetherBinary.run(["verify", goodFolder.path, "--no-color", "--filter", "feed"])
        #expect(pass.exitCode == 0, "\(pass.stdout)\(pass.stderr)")
        #expect(pass.stdout.contains("PASS  News.feed"), "\(pass.stdout)")

        let drifting = try Self.server(drift: true)
        let folder = try Self.folder(drifting)
        let run = try TetherBinary.run(["verify", folder.path, "--no-color"])
        #expect(run.exitCode == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("DRIFT News.feed"), "\(run.stdout)")
        #expect(run.stdout.contains("/feed/entry[2]/title: missing element"), "\(run.stdout)")
        #expect(run.stdout.contains("DRIFT News.xxe"))
        #expect(run.stdout.contains("the XML body declares entities in its DTD: refused, not expanded"))
        #expect(!run.stdout.contains("root:x:") && !run.stderr.contains("root:x:"))
        let junit = try #require(run.junit)
        #expect(junit.contains("/feed/entry[2]/title"))
        #expect(!junit.contains("root:x:"))
    }

    /// A live body whose DTD declares a parameter entity naming a URL (`%remote;`, so `&xxe;` is undefined): a drift
    /// saying the DTD declares entities, not "expected an XML body", and the URL is never asked.
    @Test func aParameterEntityBodyIsADeclaredEntityDriftAndNothingIsFetched() throws {
        let log = RequestLog()
        let evil = try MockServer { request in
            log.record(request)
            return MockResponse(status: 200, headers: [], body: Data(#"<!ENTITY xxe "fetched">"#.utf8))
        }
        let body =
            #"<!DOCTYPE Note [ <!ENTITY % remote SYSTEM "\#(evil.baseURL)/evil.dtd"> %remote; ]>"#
            + "<Note><Body>&xxe;</Body></Note>"
        let server = try MockServer { _ in
            MockResponse(status: 200, headers: [HTTPHeader("Content-Type", "text/xml")], body: Data(body.utf8))
        }
        let folder = try ContractFolder([
            "note.json": #"""
            {"service": "Notes", "baseURL": "\#(server.baseURL)", "targets": [
              {"name": "note", "path": "/note", "sampleData": {"text": "<Note><Body>x</Body></Note>"},
               "sampleResponse": {"response": {"statusCode": 200, "headers": {"Content-Type": "text/xml"}}}}
            ]}
            """#
        ])
        let run = try TetherBinary.run(["verify", folder.path, "--no-color"])
        #expect(run.exitCode == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("DRIFT Notes.note"), "\(run.stdout)")
        #expect(
            run.stdout.contains(
                "body: the XML body declares entities in its DTD: refused, not expanded (no external DTDs, no entity "
                    + "expansion): make the service answer without <!ENTITY> declarations"), "\(run.stdout)")
        #expect(!run.stdout.contains("expected an XML body") && !run.stdout.contains("fetched"), "\(run.stdout)")
        #expect(log.all.isEmpty, "the DTD's URL was asked: \(log.all.map(\.path))")
    }

    @Test(arguments: [
        ("<feed>\n  <entry>\n</feed>\n", "stubs/feed.xml:3:", "not well-formed XML"),
        (
            #"<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>"# + "\n<r>&x;</r>\n", "stubs/feed.xml",
            "declares entities in its DTD"
        ),
    ])
    func aBrokenOrHostileXMLSampleFileStopsTheRunBeforeAnyRequest(stub: String, place: String, words: String) throws {
        let seen = SeenRequests()
        let server = try MockServer { request in
            seen.record(request)
            return MockResponse(status: 200, headers: [], body: Data("<feed/>".utf8))
        }
        let folder = try ContractFolder([
            "feed.json": #"""
            {"service": "News", "baseURL": "\#(server.baseURL)", "targets": [
              {"name": "feed", "path": "/feed", "sampleData": {"file": "stubs/feed.xml"}}]}
            """#,
            "stubs/feed.xml": stub,
        ])
        let run = try TetherBinary.run(["verify", folder.path, "--no-color"])
        #expect(run.exitCode == 2, "\(run.stdout)\(run.stderr)")
        #expect(run.stderr.contains(place) && run.stderr.contains("error: " + words), "\(run.stderr)")
        #expect(run.stderr.contains("(the sample file of targets[0].sampleData in "), "\(run.stderr)")
        #expect(!run.stderr.contains("root:x:") && !run.stdout.contains("root:x:"))
        #expect(seen.all.isEmpty)
    }
}
