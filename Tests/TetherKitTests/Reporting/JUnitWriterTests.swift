import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

@Suite struct JUnitWriterTests {
    // MARK: Helpers

    /// The report as a string, failing the test if it is not UTF-8.
    func xmlString(_ report: RunReport) throws -> String {
        let data = try JUnitWriter.xml(for: report)
        return try #require(String(data: data, encoding: .utf8))
    }

    /// The report read back by the product's own strict reader (libxml2, no recovery), for `nodes` and `strings`.
    func parsed(_ report: RunReport) throws -> XMLElementNode {
        try XMLElementNode.read(JUnitWriter.xml(for: report), name: "junit.xml")
    }

    func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tether-junit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A report whose free text holds everything hostile at once.
    static var hostile: RunReport {
        let invalidUTF8 = String(decoding: [0x62, 0x6F, 0x64, 0x79, 0xFF, 0xED, 0xA0, 0x80, 0xC3], as: UTF8.self)
        return ReportFixtures.drift(
            message: "nul \u{0} esc \u{1B}[31m nonchar \u{FFFE}\u{FFFF} bell \u{7} c1 \u{9B} cdata ]]> lt < amp & "
                + "quote \" apos ' excerpt \(invalidUTF8)",
            at: .header("a\u{1}b"))
    }

    // MARK: Golden and validity

    @Test func matchesGoldenFile() throws {
        expectGolden(try xmlString(ReportFixtures.everyOutcome), named: "junit-every-outcome.xml")
    }

    @Test func validatesAgainstBothSchemasAndItsCountsHold() throws {
        for (name, report) in [("every outcome", ReportFixtures.everyOutcome), ("hostile text", Self.hostile)] {
            let result = try JUnitValidator.validate(JUnitWriter.xml(for: report))
            #expect(result.isValid, "the \(name) report:\n\(result)")
        }
    }

    // MARK: Structure

    @Test func countsAndAttributesParseBack() throws {
        let document = try parsed(ReportFixtures.everyOutcome)
        #expect(document.nodes("/testsuites/testsuite").count == 2)
        #expect(document.nodes("//testcase").count == 5)
        #expect(document.nodes("//testcase/failure[@type='drift']").count == 1)
        #expect(document.nodes("//testcase/error[@type='transport']").count == 1)
        #expect(document.nodes("//testcase/skipped").count == 1)
        #expect(document.strings("/testsuites/testsuite/@name") == ["GitHub", "Petstore"])
        #expect(document.strings("/testsuites/testsuite/@package") == ["GitHub", "Petstore"])
        #expect(document.strings("/testsuites/testsuite/@id") == ["0", "1"])
        #expect(document.strings("/testsuites/testsuite/@tests") == ["3", "2"])
        #expect(document.strings("/testsuites/testsuite/@failures") == ["1", "0"])
        #expect(document.strings("/testsuites/testsuite/@errors") == ["1", "0"])
        #expect(document.strings("/testsuites/testsuite/@skipped") == ["0", "1"])
        #expect(document.strings("/testsuites/testsuite/@time") == ["1.425", "2.000"])
        #expect(document.strings("//testsuite/@timestamp") == ["2026-05-04T03:02:01", "2026-05-04T03:02:01"])
        #expect(document.strings("//testsuite/@hostname") == ["ci-host", "ci-host"])
        #expect(document.strings("//testcase/@time") == ["0.120", "0.302", "1.003", "0.000", "2.000"])
        #expect(
            document.strings("//testcase/@classname") == ["GitHub", "GitHub", "GitHub", "Petstore", "Petstore"])
        #expect(document.strings("//testcase/@name") == ["user", "repos", "search", "upload", "pet"])
        #expect(
            document.strings("//testsuite[1]/properties/property/@name") == [
                "baseURL", "source", "tether.version", "tether.coverage",
            ])
        #expect(
            document.strings("//testsuite[1]/properties/property[@name='tether.version']/@value") == [
                tetherVersion
            ])
        // Suite children in the Ant schema's order; system-out and system-err always present.
        let children = document.nodes("//testsuite[1]/*").map(\.name)
        #expect(children == ["properties", "testcase", "testcase", "testcase", "system-out", "system-err"])
        // The root carries no attributes: the Ant schema allows none.
        #expect(document.strings("/testsuites/@*").isEmpty)
    }

    @Test func failureHoldsEveryFindingRequestLineAndLiveStatus() throws {
        let document = try parsed(ReportFixtures.everyOutcome)
        let message = document.strings("//failure/@message")
        #expect(message == ["2 drifts, first: status: expected 200, got 404"])
        let text = try #require(document.strings("//failure").first)
        #expect(
            text == """
                status: expected 200, got 404
                $.items[0].id: expected number, got string "7"
                note: header Content-Type: text/html instead of application/json
                GET http://127.0.0.1:8080/repos?key=<redacted>
                live status: 404
                """)
        #expect(document.strings("//error/@message") == ["couldn't connect to server"])
        #expect(
            document.strings("//error") == ["couldn't connect to server\nGET http://127.0.0.1:9/search?q=swift"])
        #expect(
            document.strings("//skipped/@message") == ["networkError stub: cannot be checked against a service"])
        // The pass's note has no place in an Ant test case: it is in the suite's system-out.
        #expect(
            document.strings("//testsuite[1]/system-out")
                == ["1 passed, 1 failed, 1 error, 0 skipped\nGitHub.user: note: $.plan: key not in the stub"])
    }

    // MARK: Hostile text

    @Test func strictCheckRejectsWhatLibxml2WouldOtherwiseWrite() throws {
        #expect(try XMLElementNode.read(Data("<a>x</a>".utf8), name: "a.xml").text == "x")
        for bad in ["<a>\u{1}</a>", "<a b=\"\u{1B}\"/>", "<a>&</a>"] {
            #expect(throws: XMLElementNode.ReadError.self) { try XMLElementNode.read(Data(bad.utf8), name: "a.xml") }
        }
        #expect(throws: XMLElementNode.ReadError.self) {
            try XMLElementNode.read(Data([0x3C, 0x61, 0x3E, 0xFF, 0x3C, 0x2F, 0x61, 0x3E]), name: "a.xml")
        }
    }

    @Test func controlCharactersAreEscapedVisibly() throws {
        let data = try JUnitWriter.xml(for: Self.hostile)
        let document = try XMLElementNode.read(data, name: "junit.xml")  // strict: no recovery
        #expect(!data.contains(0x00))
        #expect(!data.contains(0x1B))
        #expect(!data.contains(0x07))
        #expect(data.firstRange(of: Data([0xEF, 0xBF, 0xBE])) == nil)  // U+FFFE
        #expect(data.firstRange(of: Data([0xEF, 0xBF, 0xBF])) == nil)  // U+FFFF
        #expect(data.firstRange(of: Data([0xC2, 0x9B])) == nil)  // U+009B, a terminal's CSI
        let text = try #require(document.strings("//failure").first)
        #expect(text.contains(#"nul \u{0} esc \u{1B}[31m nonchar \u{FFFE}\u{FFFF} bell \u{7} c1 \u{9B}"#))
        #expect(text.hasPrefix(#"header a\u{1}b: "#))
    }

    @Test func invalidUTF8AndLoneSurrogatesCannotReachTheDocument() throws {
        // A body excerpt decoded from broken bytes already holds U+FFFD; a lone surrogate cannot be a String at all.
        let fromBytes = String(decoding: [0x61, 0xFF, 0xED, 0xA0, 0x80, 0x62], as: UTF8.self)
        #expect(fromBytes.unicodeScalars.contains("\u{FFFD}"))
        #expect(String(decoding: [0xD800] as [UInt16], as: UTF16.self) == "\u{FFFD}")

        let data = try JUnitWriter.xml(for: ReportFixtures.drift(message: "excerpt: " + fromBytes))
        #expect(String(data: data, encoding: .utf8) != nil)
        let document = try XMLElementNode.read(data, name: "junit.xml")  // strict: no recovery
        // No UTF-8 encoded surrogate (ED A0..BF xx) anywhere.
        let bytes = [UInt8](data)
        #expect(!zip(bytes, bytes.dropFirst()).contains { $0 == 0xED && (0xA0...0xBF).contains($1) })
        #expect(document.strings("//failure").first?.hasPrefix("body: excerpt: a\u{FFFD}") == true)
    }

    @Test func markupInMessagesIsEscapedWithoutCDATA() throws {
        let message = "got <html> & ]]> \"quoted\""
        let raw = try xmlString(ReportFixtures.drift(message: message))
        #expect(!raw.contains("CDATA"))
        #expect(!raw.contains("]]>"))
        #expect(raw.contains("got &lt;html&gt; &amp; ]]&gt;"))
        let document = try parsed(ReportFixtures.drift(message: message))
        #expect(document.strings("//failure/@message") == ["1 drift: body: \(message)"])
        #expect(document.strings("//failure").first?.hasPrefix("body: \(message)\n") == true)
    }

    @Test func hugeTextIsTruncated() throws {
        let huge = String(repeating: "é0123456789", count: 100_000)  // 1.2 MB
        let data = try JUnitWriter.xml(for: ReportFixtures.drift(message: huge))
        #expect(data.count < 12_000)
        let document = try XMLElementNode.read(data, name: "junit.xml")  // strict: no recovery
        let text = try #require(document.strings("//failure").first)
        let findingLine = try #require(text.split(separator: "\n").first)
        #expect(findingLine.utf8.count <= ReportText.maxFreeTextBytes)
        #expect(findingLine.utf8.count > ReportText.maxFreeTextBytes - 16)
        #expect(findingLine.hasSuffix("… [truncated; \(("body: " + huge).utf8.count) bytes in all]"))
    }

    @Test func multiLineFindingGivesAOneLineFailureMessage() throws {
        let document = try parsed(ReportFixtures.drift(message: "shape differs:\n- stub\n+ live"))
        #expect(document.strings("//failure/@message") == ["1 drift: body: shape differs: …"])
    }

    @Test func blankNamesAndHostGetStandIns() throws {
        var report = ReportFixtures.drift(message: "x")
        report.hostname = ""
        report.results[0].contract.service = " "
        report.results[0].contract.name = ""
        let document = try parsed(report)
        #expect(document.strings("//testsuite/@name") == ["unnamed"])
        #expect(document.strings("//testsuite/@hostname") == ["localhost"])
        #expect(document.strings("//testcase/@name") == ["unnamed"])
    }

    @Test func emptyRunIsAValidEmptyDocument() throws {
        let report = RunReport(results: [], startedAt: ReportFixtures.startedAt, duration: 0, hostname: "h")
        let document = try parsed(report)
        #expect(document.nodes("/testsuites").count == 1)
        #expect(document.nodes("//testsuite").isEmpty)
    }

    // MARK: Redaction

    @Test func secretsAreRedactedInMessagesRequestLinesAndProperties() throws {
        let token = ReportFixtures.token
        let report = ReportFixtures.drift(
            message: "echoed Authorization: Bearer \(token) and key=apikey-123456",
            url: "http://127.0.0.1:8080/x?key=apikey-123456&t=\(token)", secrets: ["apikey-123456"],
            headers: [HTTPHeader("authorization", "Bearer \(token)")])
        let raw = try xmlString(report)
        #expect(!raw.contains(token))
        #expect(!raw.contains("apikey-123456"))
        let document = try parsed(report)
        let text = try #require(document.strings("//failure").first)
        #expect(text.hasPrefix("body: echoed Authorization: <redacted> and key=<redacted>\n"))
        #expect(text.contains("GET http://127.0.0.1:8080/x?key=<redacted>&t=<redacted>\n"))
    }

    @Test func shortRunSecretNeverTouchesTimestampsOrText() throws {
        // "202" is what a ${STATUS} variable put in the request: under 6 characters, so it is not a secret.
        let report = ReportFixtures.drift(message: "expected 202, got 500", secrets: ["202"])
        let document = try parsed(report)
        #expect(document.strings("//testsuite/@timestamp") == ["2026-05-04T03:02:01"])
        #expect(document.strings("//failure/@message") == ["1 drift: body: expected 202, got 500"])
        #expect(!(try xmlString(report)).contains("redacted"))
    }

    @Test func shortSensitiveHeaderValueIsRedactedInTextButNotInComputedValues() throws {
        let report = ReportFixtures.drift(
            message: "cookie 202 echoed", secrets: [], headers: [HTTPHeader("Cookie", "202")])
        let document = try parsed(report)
        #expect(document.strings("//failure/@message") == ["1 drift: body: cookie <redacted> echoed"])
        #expect(document.strings("//testsuite/@timestamp") == ["2026-05-04T03:02:01"])
    }

    // MARK: Writing files

    @Test func writeCreatesParentFoldersAndLeavesNoTemporaryFile() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("a/b/junit.xml").path
        try JUnitWriter.write(ReportFixtures.everyOutcome, to: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == JUnitWriter.xml(for: ReportFixtures.everyOutcome))
        // Overwrites in place.
        try JUnitWriter.write(ReportFixtures.drift(message: "second"), to: path)
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains("body: second"))
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("a/b").path)
        #expect(left == ["junit.xml"])
    }

    /// A report takes an existing file's place as a rename would (on Linux by an exchange, then the old file
    /// unlinked): another link to the old file keeps the old bytes, a symbolic link is replaced, not followed, and no
    /// other file is left.
    @Test func aReportReplacesAFileAsARenameWould() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("junit.xml").path
        let other = folder.appendingPathComponent("other-link").path
        let target = folder.appendingPathComponent("target.xml").path
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.linkItem(atPath: path, toPath: other)
        try JUnitWriter.write(ReportFixtures.everyOutcome, to: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == JUnitWriter.xml(for: ReportFixtures.everyOutcome))
        #expect(try String(contentsOfFile: other, encoding: .utf8) == "old")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["junit.xml", "other-link"])

        try FileManager.default.removeItem(atPath: path)
        try Data("target".utf8).write(to: URL(fileURLWithPath: target))
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
        try JUnitWriter.write(ReportFixtures.drift(message: "second"), to: path)
        #expect((try FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType) == .typeRegular)
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains("body: second"))
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "target")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
                == ["junit.xml", "other-link", "target.xml"])
    }

    @Test func aReportOfManyMegabytesIsWrittenInPiecesAndReadsBackWhole() throws {
        // Past a megabyte the document goes out in pieces (to the file, or gathered by `xml(for:)`): every piece
        // must arrive once, in order, whatever the boundaries cut through.
        let count = 25_000
        let results = (0..<count).map { index in
            ContractResult(
                contract: ReportFixtures.contract("Many", "target\(index)", url: "http://127.0.0.1:8080/r/\(index)"),
                outcome: .passed,
                findings: [
                    Finding(.note, .extraKey, at: .jsonPath("$.extra\(index)"), "key not in the stub <&> \(index)")
                ],
                liveStatusCode: 200, duration: 0.001)
        }
        let report = RunReport(
            results: results, startedAt: ReportFixtures.startedAt, duration: 1, hostname: "h")
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("junit.xml").path
        try JUnitWriter.write(report, to: path)
        let written = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(written.count > 3 << 20)
        #expect(written == (try JUnitWriter.xml(for: report)))
        let document = try XMLElementNode.read(written, name: "junit.xml")  // strict: no recovery
        let names = document.strings("//testcase/@name")
        #expect(names.count == count)
        let outOfOrder = zip(names, 0...).first { $0.0 != "target\($0.1)" }  // the first, not 25,000 names
        #expect(outOfOrder == nil)
        let out = try #require(document.strings("//testsuite/system-out").first)
        let lines = out.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == count + 1)
        #expect(
            lines.last == "Many.target\(count - 1): note: $.extra\(count - 1): key not in the stub <&> \(count - 1)")
    }

    /// The bytes of `report`, its suites written side by side for `parallelResults` results (`0...0`: one after
    /// the other).
    static func bytes(_ report: RunReport, parallelResults: ClosedRange<Int>) throws -> Data {
        var data = Data()
        try JUnitWriter.write(report, isFileAttributes: false, parallelResults: parallelResults) {
            data.append(contentsOf: $0)
        }
        return data
    }

    @Test func suitesWrittenSideBySideAreTheBytesOfSuitesWrittenInTurn() throws {
        // Several services (a run at several refs is one suite per version), interleaved, every outcome and hostile
        // text among them; one run past a megabyte, so that pieces are handed on between and inside suites.
        let kinds = ReportFixtures.everyOutcome.results + Self.hostile.results
        var random = SplitMix(state: 5)
        for size in [1, 7, 60, 9_000] {
            let services = ["Api@v1.0.0", "Api@v1.1.0", "Shop", "Auth✓"]
            let results = (0..<size).map { index in
                var result = kinds.randomElement(using: &random)!
                var contract = result.contract
                contract.service = size == 1 ? "Api" : services.randomElement(using: &random)!
                contract.name = "target\(index)"
                result.contract = contract
                return result
            }
            let report = RunReport(results: results, startedAt: ReportFixtures.startedAt, duration: 1, hostname: "h")
            let parallel = try Self.bytes(report, parallelResults: 1...Int.max)
            #expect(parallel == (try Self.bytes(report, parallelResults: 0...0)), "\(size) results")
            #expect(parallel == (try JUnitWriter.xml(for: report)))
            if size == 9_000 {
                #expect(parallel.count > 1 << 20)
                #expect(try JUnitValidator.validate(parallel).isValid)
            }
        }
    }

    @Test func aLongSuiteWrittenInChunksSideBySideIsTheBytesOfItWrittenInTurn() throws {
        // One service: its test cases and notes go in chunks of `resultsPerChunk`, two at a time, each on a thread
        // of its own. Every outcome and hostile text among them, at sizes around the chunks' bounds.
        let kinds = ReportFixtures.everyOutcome.results + Self.hostile.results
        var random = SplitMix(state: 11)
        let chunk = JUnitWriter.resultsPerChunk
        for size in [chunk, chunk + 1, 2 * chunk, 2 * chunk + 1, 3 * chunk - 1] {
            let results = (0..<size).map { index in
                var result = kinds.randomElement(using: &random)!
                var contract = result.contract
                contract.service = "Api"
                contract.name = "target\(index)"
                result.contract = contract
                return result
            }
            let report = RunReport(results: results, startedAt: ReportFixtures.startedAt, duration: 1, hostname: "h")
            let inChunks = try Self.bytes(report, parallelResults: JUnitWriter.parallelSuitesResults)
            #expect(inChunks == (try Self.bytes(report, parallelResults: 0...0)), "\(size) results")
            #expect(inChunks == (try JUnitWriter.xml(for: report)))
            if size == 2 * chunk + 1 {
                #expect(try JUnitValidator.validate(inChunks).isValid)
            }
        }
    }

    @Test func unwritablePathGivesReportErrorNamingIt() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let blocker = folder.appendingPathComponent("file")
        try Data("x".utf8).write(to: blocker)
        // Works as root too: a regular file in the way makes every write below it fail with ENOTDIR.
        let path = blocker.appendingPathComponent("reports/junit.xml").path
        let error = try #require(throws: ReportError.self) {
            try JUnitWriter.write(ReportFixtures.everyOutcome, to: path)
        }
        guard case .write(let errorPath, let reason) = error else {
            Issue.record("expected ReportError.write, got \(error)")
            return
        }
        #expect(errorPath == path)
        #expect(reason.contains("Not a directory"))
        #expect(error.description.hasPrefix("\(path): cannot write the file: "))

        let directory = folder.appendingPathComponent("taken")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        #expect(throws: ReportError.self) { try JUnitWriter.write(ReportFixtures.everyOutcome, to: directory.path) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["file", "taken"])
    }
}

/// A suite's `baseURL` and `source` properties list its distinct values, the first 20 of them, then `…`; a merge of
/// shards lists them as one run would.
@Suite struct JUnitListedValuesTests {
    /// Passes of one service, target `itemK` for each K in `targets`, with source `sources(K)` and base URL
    /// `baseURLs(K)`.
    static func report(
        _ targets: Range<Int>, sources: (Int) -> String, baseURLs: (Int) -> String = { _ in "http://127.0.0.1:8080" }
    ) -> RunReport {
        let results = targets.map { index in
            ContractResult(
                contract: ReportFixtures.contract(
                    "Shop", "item\(index)", url: baseURLs(index) + "/items/\(index)", baseURL: baseURLs(index),
                    source: sources(index)),
                outcome: .passed, liveStatusCode: 200, duration: 0.001)
        }
        return RunReport(results: results, startedAt: ReportFixtures.startedAt, duration: 1, hostname: "ci-host")
    }

    static func property(_ name: String, of xml: Data) throws -> [String] {
        try XMLElementNode.read(xml, name: "junit.xml").strings(
            "//testsuite/properties/property[@name='\(name)']/@value")
    }

    @Test func theFirstTwentyDistinctValuesThenAnEllipsis() throws {
        // 25 Swift targets: a source each; two base URLs, taken in turn.
        let many = try JUnitWriter.xml(
            for: Self.report(
                0..<25, sources: { "Shop.item\($0)" }, baseURLs: { "http://127.0.0.1:\(8080 + $0 % 2)" }))
        let first20 = (0..<20).map { "Shop.item\($0)" }.joined(separator: ", ")
        #expect(try Self.property("source", of: many) == [first20 + ", …"])
        #expect(try Self.property("baseURL", of: many) == ["http://127.0.0.1:8080, http://127.0.0.1:8081"])
        // Twenty, each repeated: all listed, no ellipsis; one manifest: its path once.
        let twenty = try JUnitWriter.xml(for: Self.report(0..<40, sources: { "contracts/shop-\($0 % 20).json" }))
        #expect(
            try Self.property("source", of: twenty)
                == [(0..<20).map { "contracts/shop-\($0).json" }.joined(separator: ", ")])
        let one = try JUnitWriter.xml(for: Self.report(0..<2_000, sources: { _ in "contracts/shop.json" }))
        #expect(try Self.property("source", of: one) == ["contracts/shop.json"])
        #expect(try JUnitValidator.validate(String(decoding: many, as: UTF8.self)).isValid)
    }

    @Test func aMergeListsTheShardsValuesAsOneRunWould() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tether-listed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Shards of 12 and 13 targets, a source each: neither is cut, their union (25) is.
        let shards: [(String, Range<Int>)] = [("a.xml", 0..<12), ("b.xml", 12..<25)]
        for (file, range) in shards {
            let report = Self.report(range, sources: { "Shop.item\($0)" })
            try JUnitWriter.xml(for: report).write(to: folder.appendingPathComponent(file))
        }
        let merged = try JUnitMerge.merge(shards.map { folder.appendingPathComponent($0.0).path }).xml
        let first20 = (0..<20).map { "Shop.item\($0)" }.joined(separator: ", ")
        #expect(try Self.property("source", of: merged) == [first20 + ", …"])
        // A shard already cut and one of two: the cut one's twenty, then one ellipsis.
        try JUnitWriter.xml(for: Self.report(0..<30, sources: { "Shop.item\($0)" }))
            .write(to: folder.appendingPathComponent("a.xml"))
        try JUnitWriter.xml(for: Self.report(30..<32, sources: { "Other.item\($0)" }))
            .write(to: folder.appendingPathComponent("b.xml"))
        let cut = try JUnitMerge.merge(shards.map { folder.appendingPathComponent($0.0).path }).xml
        #expect(try Self.property("source", of: cut) == [first20 + ", …"])
        // One report that lists 25 (an earlier Tether's), merged alone: cut as the writer cuts.
        let earlier = String(decoding: try Data(contentsOf: folder.appendingPathComponent("a.xml")), as: UTF8.self)
            .replacingOccurrences(
                of: first20 + ", …", with: (0..<25).map { "Shop.item\($0)" }.joined(separator: ", "))
        try Data(earlier.utf8).write(to: folder.appendingPathComponent("a.xml"))
        let alone = try JUnitMerge.merge([folder.appendingPathComponent("a.xml").path]).xml
        #expect(try Self.property("source", of: alone) == [first20 + ", …"])
    }
}
