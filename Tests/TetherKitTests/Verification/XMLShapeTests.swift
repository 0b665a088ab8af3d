import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

private func xmlContract(_ stub: String, contentType: String? = "application/atom+xml") -> Contract {
    Contract(
        service: "S", name: "feed", baseURL: "http://127.0.0.1",
        request: HTTPRequest(method: "GET", url: "http://127.0.0.1/feed"),
        sampleData: .text(Data(stub.utf8)),
        sampleResponse: .network(
            statusCode: 200, headers: contentType.map { [HTTPHeader("Content-Type", $0)] } ?? []),
        source: "test")
}

private func xmlFindings(
    stub: String, live: String, contentType: String? = "application/atom+xml", strict: Bool = false
)
    -> [Finding]
{
    ContractCheck.findings(
        contract: xmlContract(stub, contentType: contentType),
        response: HTTPResponse(
            statusCode: 200, headers: contentType.map { [HTTPHeader("Content-Type", $0)] } ?? [],
            body: Data(live.utf8), url: "http://127.0.0.1/feed"),
        isStrict: strict)
}

private let atomStub = """
    <?xml version="1.0"?>
    <feed xmlns="http://www.w3.org/2005/Atom" version="1">
      <title>News</title>
      <entry id="a"><title>One</title><link href="/1"/></entry>
      <entry id="b"><title>Two</title><updated>2026-01-01</updated></entry>
    </feed>
    """

/// XML bodies against libxml2-parsed stubs: structure, paths, namespaces, and hostile documents.
@Suite struct XMLShapeTests {
    @Test func aFeedWithTheStubsStructureHolds() {
        let live = """
            <feed xmlns="http://www.w3.org/2005/Atom" version="2">
              <title>Other</title>
              <entry id="x"><title>A</title><link href="/a"/><updated>t</updated></entry>
              <entry id="y"><title>B</title><link href="/b"/><updated>t</updated></entry>
            </feed>
            """
        #expect(xmlFindings(stub: atomStub, live: live).isEmpty)
    }

    @Test func repeatedElementsAreMergedAndPathsAreXPathLike() {
        let live = """
            <feed xmlns="http://www.w3.org/2005/Atom">
              <title>Other</title>
              <entry id="x"><title>A</title><link href="/a"/><updated>t</updated></entry>
              <entry id="y"><title>B</title><link href="/b"/><updated>t</updated></entry>
              <entry id="z"><link href="/c"/><updated>t</updated></entry>
            </feed>
            """
        let drifts = xmlFindings(stub: atomStub, live: live).filter(\.isDrift)
        #expect(
            drifts.map(\.path) == ["/feed/@version", "/feed/entry[3]/title"], "\(drifts)")
        #expect(
            drifts.last?.message.hasPrefix(
                "missing element (the stub has <title> (namespace http://www.w3.org/2005/Atom))") == true)
        #expect(
            drifts.first?.message
                == "missing attribute (the stub has it): make the app tolerate its absence, or fix the stub")
    }

    @Test func aMissingMergedElementIsCountedAcrossRepeats() {
        // `<title>` is in every stub entry, so every live entry must have it; `<updated>` and `<link>` are in one
        // stub entry each, so (as a key that only some elements of a JSON array have) they may be absent.
        let live = """
            <feed xmlns="http://www.w3.org/2005/Atom" version="1"><title>t</title>
              <entry id="1"><link href="/a"/></entry>
              <entry id="2"><updated>2026-02-02</updated></entry>
            </feed>
            """
        let drifts = xmlFindings(stub: atomStub, live: live).filter(\.isDrift)
        #expect(drifts.count == 1)
        #expect(drifts.first?.path == "/feed/entry[1]/title")
        #expect(drifts.first?.message.contains("… and in 1 more element") == true, "\(drifts)")
    }

    @Test func aStubWithRepeatedElementsOfDifferentShapesHoldsAgainstItself() {
        // Found by the XML fuzzer: the union of the entries' children and attributes was required of every entry.
        #expect(xmlFindings(stub: atomStub, live: atomStub).filter(\.isDrift).isEmpty)
        let partial = """
            <feed xmlns="http://www.w3.org/2005/Atom" version="1"><title>t</title>
              <entry><title>A</title></entry>
            </feed>
            """
        // Found by the fuzzer too: stub copies of one element that hold text in one place and elements in another
        // accept both, as a JSON array whose elements differ in type.
        let mixed = "<r><e><c/></e><e>text</e></r>"
        #expect(xmlFindings(stub: mixed, live: mixed).filter(\.isDrift).isEmpty)
        #expect(xmlFindings(stub: mixed, live: "<r><e>other</e><e><c/></e></r>").filter(\.isDrift).isEmpty)
        // `id` is on every stub entry: required; nothing else an entry lacks here is.
        let drifts = xmlFindings(stub: atomStub, live: partial).filter(\.isDrift)
        #expect(drifts.map(\.path) == ["/feed/entry/@id"], "\(drifts)")
    }

    @Test func repeatedStubElementsWhoseChildrenDifferInNamespaceHoldAgainstThemselves() {
        // Found by the XML fuzzer: the stub's two <r>s hold <s> in different namespaces (the prefix `q` is bound
        // anew in each), so each <s> is a child only some <r>s have; the other one's <s> was taken for a namespace
        // mismatch.
        let stub = """
            <a><p:r xmlns:p="urn:a" xmlns:q="urn:b"><q:s/></p:r><p:r xmlns:p="urn:a" xmlns:q="urn:c"><q:s/></p:r></a>
            """
        #expect(xmlFindings(stub: stub, live: stub).filter(\.isDrift).isEmpty)
        #expect(xmlFindings(stub: stub, live: stub, strict: true).filter(\.isDrift).isEmpty)
        // An <s> in neither namespace is still a mismatch, reported once for each stub <s> it does not fit.
        let live = #"<a><r xmlns="urn:a"><s xmlns="urn:d"/></r></a>"#
        let drifts = xmlFindings(stub: stub, live: live).filter(\.isDrift)
        #expect(drifts.count == 2, "\(drifts)")
        #expect(drifts.allSatisfy { $0.message.contains("got <s> (namespace urn:d)") }, "\(drifts)")
    }

    @Test func textVersusElementContent() {
        let live = """
            <feed xmlns="http://www.w3.org/2005/Atom" version="1"><title><b>x</b></title>
              <entry id="1">just text</entry></feed>
            """
        let drifts = xmlFindings(stub: atomStub, live: live).filter(\.isDrift)
        #expect(drifts.map(\.path) == ["/feed/title", "/feed/entry"], "\(drifts)")
        #expect(drifts.first?.message.hasPrefix("expected text, got child elements <b>") == true)
        #expect(
            drifts.last?.message.hasPrefix(#"expected child elements <title>, <link>, <updated>, got text "just text""#)
                == true)
    }

    @Test func namespacesCompareByURINotPrefix() {
        let stub = #"<a:list xmlns:a="urn:x"><a:item/></a:list>"#
        #expect(xmlFindings(stub: stub, live: #"<b:list xmlns:b="urn:x"><b:item/></b:list>"#).isEmpty)
        #expect(xmlFindings(stub: stub, live: #"<list xmlns="urn:x"><item/></list>"#).isEmpty)
        let other = xmlFindings(stub: stub, live: #"<list xmlns="urn:x"><item xmlns="urn:y"/></list>"#)
        #expect(other.map(\.path) == ["/a:list/a:item"], "\(other)")
        #expect(
            other.first?.message.hasPrefix("expected <item> (namespace urn:x), got <item> (namespace urn:y)") == true)
        let root = xmlFindings(stub: stub, live: #"<list><item/></list>"#)
        #expect(
            root.first?.message.hasPrefix("expected root element <list> (namespace urn:x), got <list> (no namespace)")
                == true)
    }

    @Test func extrasAreNotesOrDriftsWhenStrict() {
        let stub = "<r><a/></r>"
        let live = #"<r extra="1"><a/><b/></r>"#
        let loose = xmlFindings(stub: stub, live: live, contentType: "text/xml")
        #expect(loose.map(\.kind) == [.note, .note] && loose.map(\.path) == ["/r/@extra", "/r/b"], "\(loose)")
        let strict = xmlFindings(stub: stub, live: live, contentType: "text/xml", strict: true)
        #expect(strict.filter(\.isDrift).count == 2)
    }

    @Test func aLiveBodyThatIsNotXMLIsADrift() {
        let findings = xmlFindings(stub: "<r/>", live: #"{"r": 1}"#, contentType: "application/xml")
        #expect(findings.count == 1)
        #expect(
            findings.first?.message.hasPrefix(#"expected an XML body, got {"r": 1} (line 1, column 1"#) == true,
            "\(findings)")
        #expect(
            xmlFindings(stub: "<r/>", live: "", contentType: "application/xml").first?.message.hasPrefix(
                "expected an XML body, got an empty body") == true)
    }

    @Test func dispatchFollowsContentTypeOrAParsingSampleFile() {
        // Inline text that merely looks like markup, with no XML type on either side: the text check (any body).
        var inline = xmlContract("<r><a/></r>", contentType: nil)
        inline.stubSource = StubSource(
            file: "m.json", location: "targets[0].sampleData.text", manifest: "m.json",
            manifestLocation: "targets[0].sampleData", line: 1, column: 1)
        let asText = ContractCheck.findings(
            contract: inline,
            response: HTTPResponse(statusCode: 200, headers: [], body: Data("<x/>".utf8), url: "http://127.0.0.1/feed"))
        #expect(asText.isEmpty)
        // The live Content-Type says XML: compared as XML.
        let byLive = ContractCheck.findings(
            contract: xmlContract("<r><a/></r>", contentType: nil),
            response: HTTPResponse(
                statusCode: 200, headers: [HTTPHeader("Content-Type", "text/xml; charset=utf-8")],
                body: Data("<r/>".utf8), url: "http://127.0.0.1/feed"))
        #expect(byLive.map(\.path) == ["/r/a"])
        // A sample file whose bytes parse as XML: compared as XML, whatever the types say.
        var file = xmlContract("<r><a/></r>", contentType: nil)
        file.stubSource = StubSource(
            file: "/tmp/feed.txt", location: "", manifest: "m.json", manifestLocation: "targets[0].sampleData", line: 1,
            column: 1)
        let byFile = ContractCheck.findings(
            contract: file,
            response: HTTPResponse(statusCode: 200, headers: [], body: Data("<r/>".utf8), url: "http://127.0.0.1/feed"))
        #expect(byFile.map(\.path) == ["/r/a"])
        // A stub declared XML that does not parse: one drift naming where.
        let broken = xmlFindings(stub: "<r><a></r>", live: "<r/>", contentType: "application/xml")
        #expect(broken.count == 1)
        #expect(
            broken.first?.message.hasPrefix("the stub is declared XML but is not well-formed at the stub:1:") == true,
            "\(broken)")
    }

    // MARK: - Hostile XML

    static let billionLaughs = """
        <?xml version="1.0"?>
        <!DOCTYPE lolz [
         <!ENTITY lol "lol">
         <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
         <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
         <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
         <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
         <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
         <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
         <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
         <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
         <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
        ]>
        <lolz><a>&lol9;</a></lolz>
        """

    @Test func aBillionLaughsBodyIsRefusedNotExpanded() throws {
        let started = Date()
        let findings = xmlFindings(stub: "<lolz><a>x</a></lolz>", live: Self.billionLaughs, contentType: "text/xml")
        #expect(Date().timeIntervalSince(started) < 30)
        #expect(findings.count == 1)
        let finding = try #require(findings.first)
        #expect(finding.isDrift && finding.path == "body")
        #expect(finding.message.contains("lollollol") == false)
        // libxml2 reads the declarations without substituting them; the reader then refuses the document.
        #expect(finding.message.hasPrefix("the XML body declares entities in its DTD: refused"), "\(finding)")
        // As a stub: refused with the same words, not expanded.
        let asStub = xmlFindings(stub: Self.billionLaughs, live: "<lolz><a>x</a></lolz>", contentType: "text/xml")
        #expect(asStub.count == 1 && asStub[0].message.hasPrefix("the stub is declared XML but"), "\(asStub)")
        #expect(!asStub[0].message.contains("lollollol"))
    }

    @Test func anExternalEntityIsNeitherLoadedNorExpanded() throws {
        // A file of our own with a marker, plus /etc/passwd: neither's content may reach a finding.
        let secret = NSTemporaryDirectory() + "tether-xxe-" + UUID().uuidString
        try Data("TETHER-XXE-MARKER".utf8).write(to: URL(fileURLWithPath: secret))
        defer { try? FileManager.default.removeItem(atPath: secret) }
        for target in ["file:///etc/passwd", "file://" + secret, secret] {
            let xxe = """
                <?xml version="1.0"?>
                <!DOCTYPE r [<!ENTITY xxe SYSTEM "\(target)">]>
                <r><a>&xxe;</a></r>
                """
            let findings = xmlFindings(stub: "<r><a>x</a></r>", live: xxe, contentType: "application/xml")
            #expect(findings.count == 1, "\(findings)")
            #expect(
                findings.first?.message.hasPrefix("the XML body declares entities in its DTD: refused, not expanded")
                    == true)
            #expect(!findings.contains { $0.message.contains("root:") || $0.message.contains("TETHER-XXE-MARKER") })
            let asStub = xmlFindings(stub: xxe, live: "<r><a>x</a></r>", contentType: "application/xml")
            #expect(asStub.count == 1 && asStub[0].message.contains("declares entities"), "\(asStub)")
            #expect(!asStub[0].message.contains("root:") && !asStub[0].message.contains("TETHER-XXE-MARKER"))
            #expect(throws: XMLElementNode.ReadError.declaresEntities) {
                try XMLElementNode.read(Data(xxe.utf8), name: "xxe.xml")
            }
        }
        // An external DTD is never loaded either: the document reads as its own elements only.
        let external = #"<?xml version="1.0"?><!DOCTYPE r SYSTEM "file://\#(secret)"><r><a>x</a></r>"#
        let root = try XMLElementNode.read(Data(external.utf8), name: "dtd.xml")
        #expect(root.name == "r" && root.elements.map(\.name) == ["a"] && root.elements[0].text == "x")
        // An external parameter entity inside the internal subset: refused at once, as a declared entity.
        let parameter = #"<!DOCTYPE r [<!ENTITY % p SYSTEM "file://\#(secret)"> %p;]><r/>"#
        #expect(throws: XMLElementNode.ReadError.declaresEntities) {
            try XMLElementNode.read(Data(parameter.utf8), name: "p.xml")
        }
    }

    /// A DTD whose declarations leave the rest of the document unreadable (a parameter entity that is never loaded,
    /// so `&xxe;` is undefined; a general entity before a broken tag) is still a DTD that declares entities: the
    /// finding says so, not "expected an XML body", and nothing is fetched from the URL the DTD names.
    @Test func aDTDThatDeclaresEntitiesIsSaidSoEvenWhenTheRestDoesNotParse() async throws {
        let log = RequestLog()
        let server = try MockServer { request in
            log.record(request)
            return MockResponse(
                status: 200, headers: [HTTPHeader("Content-Type", "application/xml-dtd")],
                body: Data(#"<!ENTITY xxe "TETHER-FETCHED">"#.utf8))
        }
        let url = server.baseURL + "/evil.dtd"
        let bodies = [
            #"<!DOCTYPE Note [ <!ENTITY % remote SYSTEM "\#(url)"> %remote; ]><Note><Body>&xxe;</Body></Note>"#,
            #"<!DOCTYPE Note [ <!ENTITY % remote SYSTEM "\#(url)"> ]><Note><Body>&xxe;</Body></Note>"#,
            #"<!DOCTYPE Note [ <!ENTITY xxe SYSTEM "\#(url)"> ]><Note><Body>&xxe;</Bod></Note>"#,
            #"<!DOCTYPE Note [ <!ENTITY xxe "x"> ]><Note><Body>&xxe;</Body><Other>&undeclared;</Other></Note>"#,
        ]
        for body in bodies {
            let findings = xmlFindings(stub: "<Note><Body>x</Body></Note>", live: body, contentType: "text/xml")
            #expect(findings.count == 1, "\(findings)")
            #expect(
                findings.first?.message.hasPrefix("the XML body declares entities in its DTD: refused, not expanded")
                    == true, "\(body): \(findings)")
            #expect(!findings.contains { $0.message.contains("expected an XML body") }, "\(findings)")
            #expect(!findings.contains { $0.message.contains("TETHER-FETCHED") })
            #expect(throws: XMLElementNode.ReadError.declaresEntities) {
                try XMLElementNode.read(Data(body.utf8), name: "note.xml")
            }
            let asStub = xmlFindings(stub: body, live: "<Note><Body>x</Body></Note>", contentType: "text/xml")
            #expect(asStub.count == 1 && asStub[0].message.contains("declares entities"), "\(asStub)")
        }
        // The server named by the DTD works (this test can see a fetch), and it was never asked.
        let reachable = try await exchange(url)
        #expect(String(decoding: reachable.body, as: UTF8.self).contains("TETHER-FETCHED"))
        #expect(log.all.map(\.path) == ["/evil.dtd"], "only the test's own request: \(log.all.map(\.path))")
        // A document that is only broken, with no DTD, stays "not XML".
        let broken = xmlFindings(stub: "<Note/>", live: "<Note><Body>&xxe;</Body></Note>", contentType: "text/xml")
        #expect(broken.first?.message.hasPrefix("expected an XML body, got") == true, "\(broken)")
    }
}
