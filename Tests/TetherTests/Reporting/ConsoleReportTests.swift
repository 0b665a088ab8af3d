import Foundation
import Testing

@testable import Tether

@Suite struct ConsoleReportTests {
    @Test func matchesGoldenFile() {
        expectGolden(
            ConsoleReport.render(ReportFixtures.everyOutcome, colour: false), named: "console-every-outcome.txt")
    }

    @Test func closingLineCountsEveryOutcome() throws {
        let text = ConsoleReport.render(ReportFixtures.everyOutcome, colour: false)
        #expect(text.hasSuffix("\n2 passed, 1 failed, 1 errors, 1 skipped\n"))
        let empty = RunReport(results: [], startedAt: ReportFixtures.startedAt, duration: 0, hostname: "h")
        #expect(ConsoleReport.render(empty, colour: false) == "0 passed, 0 failed, 0 errors, 0 skipped\n")
    }

    @Test func oneHeadLinePerTargetWithStatusWordNameTimeAndReason() {
        let lines = ConsoleReport.render(ReportFixtures.everyOutcome, colour: false).split(separator: "\n")
        let heads = lines.filter { !$0.hasPrefix(" ") }.dropLast()
        #expect(
            heads == [
                "PASS  GitHub.user  0.120s",
                "DRIFT GitHub.repos  0.302s",
                "ERROR GitHub.search  1.003s  couldn't connect to server",
                "SKIP  Petstore.upload  0.000s  networkError stub: cannot be checked against a service",
                "PASS  Petstore.pet  2.000s",
            ])
    }

    @Test func driftListsDriftsThenNotesIndented() {
        let result = ReportFixtures.everyOutcome.results[1]
        let text = ConsoleReport.line(
            for: result, colour: false, redactor: Redactor(report: ReportFixtures.everyOutcome))
        #expect(
            text == """
                DRIFT GitHub.repos  0.302s
                    status: expected 200, got 404
                    $.items[0].id: expected number, got string "7"
                    note: header Content-Type: text/html instead of application/json
                """)
    }

    @Test func consoleAndJUnitSayTheSameWords() throws {
        let report = ReportFixtures.everyOutcome
        let console = ConsoleReport.render(report, colour: false)
        let xml = try #require(String(data: try JUnitReport.xml(for: report), encoding: .utf8))
        for line in ReportText.findingLines(report.results[1], redactor: Redactor(report: report)) {
            #expect(console.contains("    " + line + "\n"))
            let escaped = line.replacingOccurrences(of: "\"", with: "&quot;")
            #expect(xml.contains(escaped))
        }
    }

    @Test func colourOffHasNoEscapeBytesEvenWhenTheServiceSendsThem() {
        let report = ReportFixtures.drift(message: "body had \u{1B}[2J and \u{9B}31m in it")
        let plain = ConsoleReport.render(report, colour: false)
        #expect(!plain.utf8.contains(0x1B))
        #expect(!plain.unicodeScalars.contains("\u{9B}"))
        #expect(plain.contains(#"body had \u{1B}[2J and \u{9B}31m in it"#))
        let coloured = ConsoleReport.render(report, colour: true)
        #expect(coloured.contains("\u{1B}[1;31mDRIFT \u{1B}[0m"))
        #expect(coloured.hasSuffix("\u{1B}[1m0 passed, 1 failed, 0 errors, 0 skipped\u{1B}[0m\n"))
        // With colour on, the only escape sequences are ours.
        #expect(!coloured.contains("\u{1B}[2J"))
    }

    @Test func secretsAreRedactedOnTheConsole() {
        let token = ReportFixtures.token
        let report = ReportFixtures.drift(
            message: "echo \(token)", url: "http://127.0.0.1:8080/x?t=\(token)",
            headers: [HTTPHeader("Proxy-Authorization", "Basic \(token)")])
        let text = ConsoleReport.render(report, colour: false)
        #expect(!text.contains(token))
        #expect(text.contains("    body: echo <redacted>\n"))

        var failed = report
        failed.results[0].outcome = .error("timeout after 30s talking to http://127.0.0.1:8080/x?t=\(token)")
        let error = ConsoleReport.render(failed, colour: false)
        #expect(!error.contains(token))
        #expect(
            error.contains(
                "ERROR Svc.target  0.500s  timeout after 30s talking to http://127.0.0.1:8080/x?t=<redacted>"))
        #expect(error.contains("\n    GET http://127.0.0.1:8080/x?t=<redacted>\n"))
    }

    @Test func shortRunSecretLeavesConsoleTextAlone() {
        let report = ReportFixtures.drift(message: "expected 202, got 500", secrets: ["202"])
        #expect(ConsoleReport.render(report, colour: false).contains("    body: expected 202, got 500\n"))
    }

    @Test func multiLineFindingKeepsIndentation() {
        let report = ReportFixtures.drift(message: "shape differs:\n- stub\n+ live")
        let text = ConsoleReport.render(report, colour: false)
        #expect(text.contains("    body: shape differs:\n      - stub\n      + live\n"))
    }
}

@Suite struct ConsoleNoteCollapsingTests {
    @Test func aTargetShowsThreeNotesAndCountsTheRest() {
        let contract = Contract(
            service: "S", name: "t", baseURL: "http://127.0.0.1",
            request: HTTPRequest(method: "GET", url: "http://127.0.0.1/t"), sampleData: .none, source: "x")
        let notes = (1...5).map { Finding(.note, "$.k\($0)", "key not in stub (string)") }
        let result = ContractResult(contract: contract, outcome: .passed, findings: notes)
        let text = ConsoleReport.line(for: result, colour: false, redactor: Redactor(secrets: []))
        #expect(text.contains("note: $.k3: key not in stub (string)"))
        #expect(!text.contains("$.k4"))
        #expect(text.hasSuffix("note: … and 2 more notes (all of them are in the JUnit report)"))
        let drifted = ContractResult(
            contract: contract, outcome: .drifted,
            findings: [Finding(.drift, "$.a", "missing key (stub has string)")] + notes.prefix(3))
        #expect(!ConsoleReport.line(for: drifted, colour: false, redactor: Redactor(secrets: [])).contains("more note"))
    }
}

@Suite struct ConsoleStreamTests {
    @Test func resultsArrivingOutOfOrderArePrintedInContractOrder() {
        let contracts = (0..<3).map {
            Contract(
                service: "S", name: "t\($0)", baseURL: "http://127.0.0.1",
                request: HTTPRequest(method: "GET", url: "http://127.0.0.1/\($0)"), sampleData: .none, source: "x")
        }
        var stream = ConsoleReport.Stream(contracts: contracts, colour: false)
        #expect(stream.add(ContractResult(contract: contracts[2], outcome: .passed), at: 2) == "")
        #expect(stream.add(ContractResult(contract: contracts[1], outcome: .passed), at: 1) == "")
        let text = stream.add(ContractResult(contract: contracts[0], outcome: .passed), at: 0)
        #expect(
            text.split(separator: "\n").map { $0.split(separator: " ").dropFirst().first } == ["S.t0", "S.t1", "S.t2"])
    }
}
