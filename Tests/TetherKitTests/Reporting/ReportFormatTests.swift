import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// Runs `executable` with `arguments` (and `input` on stdin); returns its status, stdout and stderr.
func runTool(_ executable: String, _ arguments: [String], input: Data? = nil) throws -> (
    status: Int32, stdout: String, stderr: String
) {
    let run = try ChildProcess.run(executable, arguments, input: input)
    return (run.status, run.stdoutText, run.stderrText)
}

/// The first executable called `name` on PATH (or in /usr/bin), if any.
func executableOnPath(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return (path.split(separator: ":").map(String.init) + ["/usr/bin"]).map { "\($0)/\(name)" }
        .first { FileManager.default.isExecutableFile(atPath: $0) }
}

/// Fixed runs with declarations and live bodies, for the HTML, Markdown, annotation and diagnostics reports.
enum FormatFixtures {
    static let secret = "s3cr3t-token-value"

    static func contract(_ name: String, line: Int, stub: JSONValue?, secrets: [String] = []) -> Contract {
        Contract(
            service: "Shop", name: name, baseURL: "http://127.0.0.1:8080",
            request: HTTPRequest(
                method: "GET", url: "http://127.0.0.1:8080/\(name)",
                headers: [HTTPHeader("Authorization", "Bearer \(secret)")]),
            sampleData: stub.map(StubBody.json) ?? .none, source: "contracts/shop.json", secrets: secrets,
            declaration: SourcePlace(file: "contracts/shop.json", line: line, column: 7))
    }

    static let itemsStub: JSONValue = .array([
        .object([
            JSONMember("id", .integer(1)), JSONMember("name", .string("Mug")), JSONMember("price", .double(12.5)),
            JSONMember("tags", .array([.string("kitchen")])),
        ])
    ])

    /// A drift with a `</script>` and a secret in live values, a drift on a body that is not UTF-8, an error, a
    /// skip, a pass with a note.
    static var run: (report: RunReport, bodies: [Int: HTMLReport.LiveBody]) {
        let results = [
            ContractResult(
                contract: contract("items", line: 4, stub: itemsStub), outcome: .drifted,
                findings: [
                    Finding(.drift, .type, at: .jsonPath("$[0].price"), "expected number, got string \"12.50\""),
                    Finding(.note, .extraKey, at: .jsonPath("$[0].extra"), "key not in the stub"),
                ],
                liveStatusCode: 200, liveURL: "http://127.0.0.1:8080/items", duration: 0.012),
            ContractResult(
                contract: contract("binary", line: 9, stub: .object([JSONMember("a", .string("x"))])),
                outcome: .drifted,
                findings: [
                    Finding(
                        .drift, .notJSON, at: .body, "expected a JSON body, got bytes that are not UTF-8 (at byte 7)")
                ],
                liveStatusCode: 200, liveURL: "http://127.0.0.1:8080/binary", duration: 0.02),
            ContractResult(
                contract: contract("search", line: 14, stub: nil), outcome: .error("couldn't connect to server"),
                duration: 1.5),
            ContractResult(
                contract: contract("upload", line: 19, stub: nil),
                outcome: .skipped("the stub is a networkError (code -1009)")),
            ContractResult(
                contract: contract("user", line: 24, stub: .object([JSONMember("id", .integer(1))])),
                outcome: .passed, findings: [Finding(.note, .extraKey, at: .jsonPath("$.plan"), "key not in the stub")],
                liveStatusCode: 200,
                duration: 0.1),
        ]
        let live =
            #"[{"id": 1, "name": "</script><script>alert(1)</script>", "price": "12.50", "tags": ["k"], "#
            + #""extra": "token \#(secret)"}, {"id": 2, "name": "Pen", "price": 1.25, "tags": []}]"#
        let bodies: [Int: HTMLReport.LiveBody] = [
            0: HTMLReport.LiveBody(Data(live.utf8)),
            1: HTMLReport.LiveBody(Data([0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xFF, 0xFE, 0x3C, 0x2F, 0x22, 0x7D])),
            4: HTMLReport.LiveBody(Data(#"{"id": 2, "plan": "pro"}"#.utf8)),
        ]
        let report = RunReport(
            results: results, startedAt: ReportFixtures.startedAt, duration: 1.7, hostname: "ci-host",
            secrets: [secret])
        return (report, bodies)
    }

    /// `count` drifted targets, each with four long drifts.
    static func manyDrifts(_ count: Int) -> RunReport {
        let long = String(repeating: "very long message | with <markup> ", count: 400)
        let results = (0..<count).map { number in
            ContractResult(
                contract: contract("t\(number)", line: number + 1, stub: nil), outcome: .drifted,
                findings: (0..<4).map { Finding(.drift, .type, at: .jsonPath("$.f\($0)"), long) }, liveStatusCode: 200)
        }
        return RunReport(results: results, startedAt: ReportFixtures.startedAt, duration: 3, hostname: "ci-host")
    }
}

@Suite struct HTMLReportTests {
    @Test func matchesItsGoldenFile() {
        let (report, bodies) = FormatFixtures.run
        expectGolden(HTMLReport.html(for: report, liveBodies: bodies), named: "report-every-outcome.html")
    }

    @Test func liveMarkupIsTextAndTheOnlyScriptIsOurs() {
        let (report, bodies) = FormatFixtures.run
        let html = HTMLReport.html(for: report, liveBodies: bodies)
        #expect(html.components(separatedBy: "<script").count == 2, "one script element, ours")
        #expect(html.components(separatedBy: "</script>").count == 2)
        #expect(html.contains("&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(!html.contains("alert(1)</script>"))
    }

    @Test func secretsNeverReachThePage() {
        let (report, bodies) = FormatFixtures.run
        let html = HTMLReport.html(for: report, liveBodies: bodies)
        #expect(!html.contains(FormatFixtures.secret))
        #expect(html.contains("token &lt;redacted&gt;"))
    }

    @Test func aBodyThatIsNotUTF8IsShownEscaped() {
        let (report, bodies) = FormatFixtures.run
        let html = HTMLReport.html(for: report, liveBodies: bodies)
        #expect(html.contains(#"<pre class="raw">{&quot;a&quot;:&quot;\#u{FFFD}\#u{FFFD}&lt;/&quot;}</pre>"#))
    }

    @Test func theDriftIsHighlightedOnBothSidesAndUnchangedSiblingsAreFolded() {
        let (report, bodies) = FormatFixtures.run
        let html = HTMLReport.html(for: report, liveBodies: bodies)
        #expect(
            html.contains(
                #"<li class="node drift" data-path="$[0].price"><span class="sign">-</span><span class="key">price</span>: <span class="value number">12.5</span>"#
            ))
        #expect(
            html.contains(
                #"<li class="node drift" data-path="$[0].price"><span class="sign">+</span><span class="key">price</span>: <span class="value string">&quot;12.50&quot;</span>"#
            ))
        #expect(html.contains(#"<li class="node note" data-path="$[0].extra">"#))
        #expect(html.contains("<summary>… (2 unchanged)</summary>"))  // id and name before price
        #expect(html.contains("<summary>… (1 unchanged)</summary>"))  // the second element of the live array
    }

    @Test func selfContainedWithNoNetworkAndNoExternalAsset() {
        let (report, bodies) = FormatFixtures.run
        let html = HTMLReport.html(for: report, liveBodies: bodies)
        for forbidden in ["src=", "href=", "url(", "@import", "http-equiv=\"refresh\""] {
            #expect(!html.contains(forbidden), "\(forbidden) in the page")
        }
        #expect(html.contains("default-src 'none'"))
    }

    @Test func aHugeBodyIsAnExcerptNotATree() {
        let body = Data(("[" + Array(repeating: "1", count: 600_000).joined(separator: ",") + "]").utf8)
        let live = HTMLReport.LiveBody(body)
        #expect(live.totalBytes == body.count)
        #expect(live.data.count == HTMLReport.maxTreeBodyBytes + 1)
        let result = ContractResult(
            contract: FormatFixtures.contract("big", line: 1, stub: .array([.integer(1)])), outcome: .passed,
            liveStatusCode: 200)
        let report = RunReport(results: [result], startedAt: ReportFixtures.startedAt, duration: 1, hostname: "h")
        let html = HTMLReport.html(for: report, liveBodies: [0: live])
        #expect(html.contains("[truncated; \(body.count) bytes in all]"))
        #expect(html.utf8.count < 100_000)
    }
}

@Suite struct MarkdownSummaryTests {
    @Test func matchesItsGoldenFile() {
        expectGolden(MarkdownSummary.markdown(for: FormatFixtures.run.report), named: "summary-every-outcome.md")
    }

    @Test func rowsAreCappedAndTheRestCounted() {
        let markdown = MarkdownSummary.markdown(for: FormatFixtures.manyDrifts(40), isOnGitHubActions: true)
        let rows = markdown.split(separator: "\n").filter { $0.hasPrefix("| `Shop.") }
        #expect(rows.count == MarkdownSummary.maxRows)
        #expect(markdown.contains("…and 15 more drifted or failed targets"))
        #expect(markdown.contains("40 targets drifted or failed: GitHub shows the first 10 annotations"))
        #expect(markdown.contains("…and 1 more"))  // four drifts, three shown
        #expect(markdown.utf8.count < 64 * 1024, "\(markdown.utf8.count) bytes")
    }

    @Test func aCellCannotBreakTheTableOrCarryMarkup() {
        let cell = MarkdownSummary.cell("a | b <img src=x> `code`\nnext [x](http://x.test) *b* _i_")
        #expect(cell == #"a \| b &lt;img src=x&gt; 'code' next &#91;x](http\://x.test) \*b\* \_i\_"#)
        // GitHub links a bare URL or www. name by itself: escaped, each reads the same and links nothing.
        #expect(
            MarkdownSummary.cell("got https://evil.example)<img and WWW.evil.example: a.b")
                == #"got https\://evil.example)&lt;img and WWW\.evil.example: a.b"#)
    }

    @Test func secretsAreRedacted() {
        let markdown = MarkdownSummary.markdown(
            for: ReportFixtures.drift(message: "got \(FormatFixtures.secret)", secrets: [FormatFixtures.secret]))
        #expect(!markdown.contains(FormatFixtures.secret))
        #expect(markdown.contains("&lt;redacted&gt;"))
    }
}

@Suite struct AnnotationTests {
    @Test func matchesItsGoldenFile() {
        expectGolden(GitHubAnnotations.commands(for: FormatFixtures.run.report), named: "annotations-every-outcome.txt")
    }

    @Test func diagnosticsMatchTheirGoldenFile() {
        expectGolden(DiagnosticLines.lines(for: FormatFixtures.run.report), named: "diagnostics-every-outcome.txt")
    }

    @Test func dataAndPropertiesAreEscapedAsGitHubsToolkitDoes() {
        #expect(GitHubAnnotations.escapedData("100% a\r\nb:c,d") == "100%25 a%0D%0Ab:c,d")
        #expect(GitHubAnnotations.escapedProperty("100% a\nb:c,d") == "100%25 a%0Ab%3Ac%2Cd")
    }

    @Test func atMostTenDriftsFirstAndTheRestCounted() {
        var report = FormatFixtures.manyDrifts(12)
        report.results.insert(
            ContractResult(contract: FormatFixtures.contract("down", line: 99, stub: nil), outcome: .error("refused")),
            at: 0)
        let lines = GitHubAnnotations.commands(for: report).split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("::error ") }.count == 10)
        #expect(lines.first?.hasPrefix("::error file=contracts/shop.json,line=1,col=7,title=Shop.t0 drifted::") == true)
        #expect(!lines.contains { $0.contains("Shop.down") }, "the error comes after the twelve drifts")
        #expect(lines.last?.hasPrefix("tether: 13 targets drifted or failed; annotations for the first 10") == true)
    }

    @Test func aTargetWithoutAPlaceGetsAnAnnotationWithoutAFile() {
        var report = ReportFixtures.drift(message: "expected 200, got 500", at: .status)
        report.results[0].contract.declaration = nil
        #expect(
            GitHubAnnotations.commands(for: report)
                == "::error title=Svc.target drifted::status: expected 200, got 500%0AGET http://127.0.0.1:8080/x\n")
        #expect(
            DiagnosticLines.lines(for: report)
                == "contracts/svc.json: error: Svc.target drifted: status: expected 200, got 500\n")
    }
}

@Suite struct JSONLinesTests {
    @Test func eachLineIsOneDocumentWithTheResultsFields() throws {
        let (report, _) = FormatFixtures.run
        let redactor = Redactor(report: report)
        let line = JSONLinesReport.line(for: report.results[0], at: 0, redactor: redactor)
        #expect(line.hasSuffix("}\n"))
        #expect(!line.dropLast().contains("\n"))
        let value = try JSONValue.parse(Data(line.utf8))
        #expect(value["target"] == .string("items"))
        #expect(value["outcome"] == .string("drifted"))
        #expect(value["status"] == .integer(200))
        #expect(value["duration"] == .double(0.012))
        guard case .array(let findings) = value["findings"] else {
            Issue.record("no findings array in \(line)")
            return
        }
        #expect(findings.count == 2)
        #expect(findings.first?["path"] == .string("$[0].price"))
        #expect(findings.first?["kind"] == .string("drift"))
        #expect(!line.contains(FormatFixtures.secret))
    }

    @Test func theSummaryCountsTheRun() throws {
        let value = try JSONValue.parse(Data(JSONLinesReport.summaryLine(FormatFixtures.run.report).utf8))
        #expect(value["type"] == .string("summary"))
        #expect(value["drifted"] == .integer(2))
        #expect(value["errors"] == .integer(1))
        #expect(value["exitCode"] == .integer(1))
        #expect(value["startedAt"] == .string("2026-05-04T03:02:01"))
    }
}

@Suite struct JUnitFileAttributeTests {
    @Test func fileAndLineAreOnlyThereWhenAskedFor() throws {
        let report = FormatFixtures.run.report
        let plain = String(decoding: try JUnitWriter.xml(for: report), as: UTF8.self)
        #expect(!plain.contains(" file="))
        let with = String(decoding: try JUnitWriter.xml(for: report, isFileAttributes: true), as: UTF8.self)
        #expect(
            with.contains(#"<testcase classname="Shop" name="items" time="0.012" file="contracts/shop.json" line="4">"#)
        )
    }

    @Test func withFileAttributesTheCountsHoldAndTheStrictSchemasRejectIt() async throws {
        let xml = String(
            decoding: try JUnitWriter.xml(for: FormatFixtures.run.report, isFileAttributes: true), as: UTF8.self)
        let result = try await offPool { try JUnitValidator.validate(xml) }
        #expect(result.countErrors.isEmpty, "\(result)")
        for schema in JUnitValidator.schemaNames {
            #expect(!result.accepts(schema), "\(result)")
            #expect(result.error(schema)?.description.contains("attribute 'file'") == true, "\(result)")
        }
        let plain = String(decoding: try JUnitWriter.xml(for: FormatFixtures.run.report), as: UTF8.self)
        let strict = try await offPool { try JUnitValidator.validate(plain) }
        #expect(strict.isValid, "\(strict)")
    }
}

@Suite struct MarkdownCellTests {
    @Test func aCodeSpanKeepsItsTextLiteral() {
        #expect(MarkdownSummary.cell("Shop.user_name*[1]|`x`", isCode: true) == #"Shop.user_name*[1]\|'x'"#)
    }
}

@Suite struct HTMLFindingListTests {
    @Test func manyNotesFoldIntoOneLineAndDriftsStayInOrder() throws {
        let findings =
            [
                Finding(.drift, .type, at: .jsonPath("$.b"), "second"),
                Finding(.drift, .type, at: .jsonPath("$.a"), "first? no: found second"),
            ]
            + (0..<8).map { Finding(.note, .extraKey, at: .jsonPath("$.n\($0)"), "key not in the stub") }
        let result = ContractResult(
            contract: FormatFixtures.contract("many", line: 1, stub: nil), outcome: .drifted, findings: findings)
        let report = RunReport(results: [result], startedAt: ReportFixtures.startedAt, duration: 1, hostname: "h")
        let html = HTMLReport.html(for: report)
        #expect(html.contains("<summary>8 notes</summary>"))
        let first = try #require(html.range(of: "<code>$.b</code>"))
        let second = try #require(html.range(of: "<code>$.a</code>"))
        #expect(first.lowerBound < second.lowerBound, "drifts keep their order")
    }
}
