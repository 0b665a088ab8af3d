import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

@Suite struct ConsoleWriterTests {
    @Test func matchesGoldenFile() {
        expectGolden(
            ConsoleWriter.render(ReportFixtures.everyOutcome, color: false), named: "console-every-outcome.txt")
    }

    @Test func closingLineCountsEveryOutcomeGivesTheTimeAndRecapsWhatNeedsALook() throws {
        let text = ConsoleWriter.render(ReportFixtures.everyOutcome, color: false)
        #expect(
            text.hasSuffix(
                """

                2 passed, 1 failed, 1 error, 1 skipped in 2.500s
                coverage: 0/5 targets with a body contract
                drifted or not checked:
                  DRIFT GitHub.repos  status: expected 200, got 404 (and 1 more drift)
                  ERROR GitHub.search  couldn't connect to server

                """), "\(text)")
        let empty = RunReport(results: [], startedAt: ReportFixtures.startedAt, duration: 0, hostname: "h")
        #expect(
            ConsoleWriter.render(empty, color: false)
                == "0 passed, 0 failed, 0 errors, 0 skipped in 0.000s\nnothing was checked: no targets were given\n")
    }

    @Test(arguments: [(0, "0 errors"), (1, "1 error"), (2, "2 errors")])
    func countWordsAgreeWithTheirCounts(errors: Int, words: String) {
        let contract = ReportFixtures.contract("S", "t")
        let results =
            [
                ContractResult(contract: contract, outcome: .passed),
                ContractResult(contract: contract, outcome: .drifted),
            ]
            + Array(repeating: ContractResult(contract: contract, outcome: .error("refused")), count: errors)
        #expect(ReportText.totalsLine(results) == "1 passed, 1 failed, \(words), 0 skipped")
    }

    @Test func aRunThatCheckedNothingSaysSoAfterTheCounts() {
        let contract = ReportFixtures.contract("S", "t")
        let report = RunReport(
            results: [
                ContractResult(contract: contract, outcome: .skipped("a networkError stub")),
                ContractResult(contract: contract, outcome: .error("refused")),
            ], startedAt: ReportFixtures.startedAt, duration: 1.2341, hostname: "h")
        #expect(
            ConsoleWriter.closing(for: report, color: false) == """
                0 passed, 0 failed, 1 error, 1 skipped in 1.234s
                coverage: 0/2 targets with a body contract
                nothing was checked: every target was skipped or could not be checked
                drifted or not checked:
                  ERROR S.t  refused

                """)
    }

    @Test func theRecapIsRedactedAndOneLinePerTarget() {
        let token = ReportFixtures.token
        var report = ReportFixtures.drift(message: "echo \(token)\nsecond line", secrets: [token])
        report.results.append(
            ContractResult(contract: ReportFixtures.contract("Svc", "other"), outcome: .error("refused \(token)\nmore"))
        )
        let closing = ConsoleWriter.closing(for: report, color: false)
        #expect(!closing.contains(token))
        #expect(closing.contains("\n  DRIFT Svc.target  body: echo <redacted> …\n"), "\(closing)")
        #expect(closing.contains("\n  ERROR Svc.other  refused <redacted> …\n"), "\(closing)")
    }

    @Test func aStatusDriftShowsTheRequestLine() {
        let result = ContractResult(
            contract: ReportFixtures.contract("Shop", "user", url: "http://127.0.0.1:8080/users/x"), outcome: .drifted,
            findings: [
                Finding(.drift, .status, at: .status, "expected 200, got 404"),
                Finding(.note, .notCompared, at: .body, "not compared"),
            ], liveStatusCode: 404, duration: 0.5)
        #expect(
            ConsoleWriter.line(for: result, color: false, redactor: Redactor(secrets: [])) == """
                DRIFT Shop.user  0.500s
                    status: expected 200, got 404
                    GET http://127.0.0.1:8080/users/x
                    note: body: not compared
                """)
        let bodyOnly = ContractResult(
            contract: result.contract, outcome: .drifted,
            findings: [Finding(.drift, .missingKey, at: .jsonPath("$.a"), "missing key")])
        #expect(
            ConsoleWriter.line(for: bodyOnly, color: false, redactor: Redactor(secrets: []))?.contains("GET ") == false)
        #expect(
            ConsoleWriter.line(for: bodyOnly, color: false, redactor: Redactor(secrets: []), detail: .verbose)?
                .contains("GET http://127.0.0.1:8080/users/x") == true)
    }

    @Test func oneHeadLinePerTargetWithStatusWordNameTimeAndReason() {
        let lines = ConsoleWriter.render(ReportFixtures.everyOutcome, color: false).split(separator: "\n")
        let heads = lines.prefix { !$0.contains(" passed, ") }.filter { !$0.hasPrefix(" ") }
        #expect(
            heads == [
                "PASS  GitHub.user  0.120s  (1 note)",
                "DRIFT GitHub.repos  0.302s",
                "ERROR GitHub.search  1.003s  couldn't connect to server",
                "SKIP  Petstore.upload  0.000s  networkError stub: cannot be checked against a service",
                "PASS  Petstore.pet  2.000s",
            ])
    }

    @Test func driftListsDriftsThenNotesIndented() {
        let result = ReportFixtures.everyOutcome.results[1]
        let text = ConsoleWriter.line(
            for: result, color: false, redactor: Redactor(report: ReportFixtures.everyOutcome))
        #expect(
            text == """
                DRIFT GitHub.repos  0.302s
                    status: expected 200, got 404
                    GET http://127.0.0.1:8080/repos?key=<redacted>
                    $.items[0].id: expected number, got string "7"
                    note: header Content-Type: text/html instead of application/json
                """)
    }

    @Test func consoleAndJUnitSayTheSameWords() throws {
        let report = ReportFixtures.everyOutcome
        let console = ConsoleWriter.render(report, color: false)
        let xml = try #require(String(data: try JUnitWriter.xml(for: report), encoding: .utf8))
        for line in ReportText.findingLines(report.results[1], redactor: Redactor(report: report)) {
            #expect(console.contains("    " + line + "\n"))
            let escaped = line.replacingOccurrences(of: "\"", with: "&quot;")
            #expect(xml.contains(escaped))
        }
    }

    @Test func colorOffHasNoEscapeBytesEvenWhenTheServiceSendsThem() {
        let report = ReportFixtures.drift(message: "body had \u{1B}[2J and \u{9B}31m in it")
        let plain = ConsoleWriter.render(report, color: false)
        #expect(!plain.utf8.contains(0x1B))
        #expect(!plain.unicodeScalars.contains("\u{9B}"))
        #expect(plain.contains(#"body had \u{1B}[2J and \u{9B}31m in it"#))
        let colored = ConsoleWriter.render(report, color: true)
        #expect(colored.contains("\u{1B}[1;31mDRIFT \u{1B}[0m"))
        #expect(colored.contains("\n\u{1B}[1m0 passed, 1 failed, 0 errors, 0 skipped in 0.500s\u{1B}[0m\n"))
        #expect(colored.contains("\n  \u{1B}[1;31mDRIFT \u{1B}[0mSvc.target  body: "))
        // With color on, the only escape sequences are ours.
        #expect(!colored.contains("\u{1B}[2J"))
    }

    @Test func secretsAreRedactedOnTheConsole() {
        let token = ReportFixtures.token
        let report = ReportFixtures.drift(
            message: "echo \(token)", url: "http://127.0.0.1:8080/x?t=\(token)",
            headers: [HTTPHeader("Proxy-Authorization", "Basic \(token)")])
        let text = ConsoleWriter.render(report, color: false)
        #expect(!text.contains(token))
        #expect(text.contains("    body: echo <redacted>\n"))

        var failed = report
        failed.results[0].outcome = .error("timeout after 30s talking to http://127.0.0.1:8080/x?t=\(token)")
        let error = ConsoleWriter.render(failed, color: false)
        #expect(!error.contains(token))
        #expect(
            error.contains(
                "ERROR Svc.target  0.500s  timeout after 30s talking to http://127.0.0.1:8080/x?t=<redacted>"))
        #expect(error.contains("\n    GET http://127.0.0.1:8080/x?t=<redacted>\n"))
    }

    @Test func shortRunSecretLeavesConsoleTextAlone() {
        let report = ReportFixtures.drift(message: "expected 202, got 500", secrets: ["202"])
        #expect(ConsoleWriter.render(report, color: false).contains("    body: expected 202, got 500\n"))
    }

    @Test func multiLineFindingKeepsIndentation() {
        let report = ReportFixtures.drift(message: "shape differs:\n- stub\n+ live")
        let text = ConsoleWriter.render(report, color: false)
        #expect(text.contains("    body: shape differs:\n      - stub\n      + live\n"))
    }
}

@Suite struct ConsoleNoteCollapsingTests {
    @Test func aPassCountsItsNotesADriftShowsThreeAndVerboseShowsAll() throws {
        let contract = Contract(
            service: "S", name: "t", baseURL: "http://127.0.0.1",
            request: HTTPRequest(method: "GET", url: "http://127.0.0.1/t"), sampleData: .none, source: "x")
        let notes = (1...5).map { Finding(.note, .extraKey, at: .jsonPath("$.k\($0)"), "key not in stub (string)") }
        let passed = ContractResult(contract: contract, outcome: .passed, findings: notes)
        let line = { (result: ContractResult, detail: ConsoleDetail) in
            ConsoleWriter.line(for: result, color: false, redactor: Redactor(secrets: []), detail: detail)
        }
        #expect(line(passed, .normal) == "PASS  S.t  0.000s  (5 notes)")
        #expect(line(ContractResult(contract: contract, outcome: .passed), .normal) == "PASS  S.t  0.000s")
        #expect(line(passed, .quiet) == nil)
        let verbose = try #require(line(passed, .verbose))
        #expect(verbose.contains("    GET http://127.0.0.1/t\n") && verbose.contains("note: $.k5"))

        let drifted = ContractResult(
            contract: contract, outcome: .drifted,
            findings: [Finding(.drift, .missingKey, at: .jsonPath("$.a"), "missing key (stub has string)")] + notes)
        let text = try #require(line(drifted, .quiet))
        #expect(text.contains("note: $.k3: key not in stub (string)"))
        #expect(!text.contains("$.k4"))
        #expect(text.hasSuffix("note: … and 2 more notes (--verbose shows them; the JUnit report has them)"))
        #expect(try #require(line(drifted, .verbose)).contains("$.k5"))
        let few = ContractResult(
            contract: contract, outcome: .drifted,
            findings: [Finding(.drift, .missingKey, at: .jsonPath("$.a"), "missing key (stub has string)")]
                + notes.prefix(3))
        #expect(line(few, .normal)?.contains("more note") == false)
        #expect(line(ContractResult(contract: contract, outcome: .skipped("why")), .quiet) == nil)
        #expect(line(ContractResult(contract: contract, outcome: .error("refused")), .quiet) != nil)
    }
}

@Suite struct ConsoleLineTests {
    /// A passed line written at once is the line `line(for:)` writes, with its newline, whatever its names, time,
    /// notes, colors and marks; a result it does not take (a drift, a retry, a pending target, verbose detail) is
    /// `line(for:)`'s too.
    @Test func aLineWrittenAtOnceIsTheLineWrittenInParts() {
        let names = ["item0", "a\u{7}bell", "über", "", "x.y", String(repeating: "n", count: 300)]
        let durations = [0, 0.0004, 0.0015, 0.012, 1.5, 123.4567, -1, .nan, .infinity, 9.1e12, 8.9e12]
        let noteSets: [[Finding]] = [
            [], [Finding(.note, .notCompared, at: .body, "not compared")],
            Array(repeating: Finding(.note, .notCompared, at: .body, "not compared"), count: 4),
            [Finding(.drift, .missingKey, at: .jsonPath("$.a"), "missing key")],
        ]
        let redactor = Redactor(secrets: [])
        var compared = 0
        for (service, name) in zip(names.reversed(), names) {
            let contract = Contract(
                service: service, name: name, baseURL: "http://127.0.0.1",
                request: HTTPRequest(method: "GET", url: "http://127.0.0.1/"), sampleData: .none, source: "x")
            for duration in durations {
                for findings in noteSets {
                    for outcome in [Outcome.passed, .drifted, .error("refused")] {
                        for (attempts, isPending) in [(1, false), (2, false), (1, true)] {
                            let result = ContractResult(
                                contract: contract, outcome: outcome, findings: findings, duration: duration,
                                attempts: attempts, isPending: isPending)
                            for color in [false, true] {
                                for detail in [ConsoleDetail.normal, .verbose, .quiet] {
                                    let inParts = ConsoleWriter.line(
                                        for: result, color: color, redactor: redactor, detail: detail)
                                    let atOnce = ConsoleWriter.terminatedLine(
                                        for: result, color: color, redactor: redactor, detail: detail)
                                    #expect(atOnce == inParts.map { $0 + "\n" }, "\(result) \(color) \(detail)")
                                    compared += 1
                                }
                            }
                        }
                    }
                }
            }
        }
        #expect(compared == 6 * 11 * 4 * 3 * 3 * 2 * 3)
        // And it is what the console shows for the usual line.
        let line = ConsoleWriter.terminatedLine(
            for: ContractResult(
                contract: Contract(
                    service: "Bench", name: "item3", baseURL: "http://127.0.0.1",
                    request: HTTPRequest(method: "GET", url: "http://127.0.0.1/"), sampleData: .none, source: "x"),
                outcome: .passed, findings: [Finding(.note, .notCompared, at: .body, "not compared")], duration: 0.0016),
            color: false, redactor: redactor, detail: .normal)
        #expect(line == "PASS  Bench.item3  0.002s  (1 note)\n")
    }
}

@Suite struct ConsoleStreamTests {
    @Test func resultsArrivingOutOfOrderArePrintedInContractOrder() {
        let contracts = (0..<3).map {
            Contract(
                service: "S", name: "t\($0)", baseURL: "http://127.0.0.1",
                request: HTTPRequest(method: "GET", url: "http://127.0.0.1/\($0)"), sampleData: .none, source: "x")
        }
        var stream = ConsoleWriter.Stream(contracts: contracts, color: false)
        #expect(stream.add(ContractResult(contract: contracts[2], outcome: .passed), at: 2) == "")
        #expect(stream.add(ContractResult(contract: contracts[1], outcome: .passed), at: 1) == "")
        let text = stream.add(ContractResult(contract: contracts[0], outcome: .passed), at: 0)
        #expect(
            text.split(separator: "\n").map { $0.split(separator: " ").dropFirst().first } == ["S.t0", "S.t1", "S.t2"])
    }

    /// Many lines coming due at once (a `--ref` run's later versions, as the first version's last result comes)
    /// are written in two parts, on both cores: the same text, in contract order.
    @Test func manyLinesDueAtOnceAreWrittenInOrder() {
        let count = ConsoleWriter.Stream.linesWrittenInParts * 2 + 7
        let contracts = (0..<count).map {
            Contract(
                service: "S", name: "t\($0)", baseURL: "http://127.0.0.1",
                request: HTTPRequest(method: "GET", url: "http://127.0.0.1/\($0)"), sampleData: .none, source: "x")
        }
        let results = contracts.indices.map {
            $0 % 3 == 0
                ? ContractResult(
                    contract: contracts[$0], outcome: .drifted,
                    findings: [Finding(.drift, .emptyBody, at: .body, "expected a body \($0)")])
                : ContractResult(contract: contracts[$0], outcome: .passed, duration: Double($0) / 1000)
        }
        var inOrder = ConsoleWriter.Stream(contracts: contracts, color: false)
        let expected = results.indices.map { inOrder.add(results[$0], at: $0) }.joined()
        var stream = ConsoleWriter.Stream(contracts: contracts, color: false)
        var generator = SystemRandomNumberGenerator()
        for index in Array(1..<count).shuffled(using: &generator) {
            #expect(stream.add(results[index], at: index) == "")
        }
        let text = stream.add(results[0], at: 0)
        #expect(text == expected)
        #expect(text.split(separator: "\n").filter { $0.hasPrefix("PASS") || $0.hasPrefix("DRIFT") }.count == count)
    }

    /// A line that waits for its turn is written when its result comes; a secret that a result coming after it
    /// teaches the stream (a sign-in's token in its contract) is still hidden in it when it is printed.
    @Test func aWaitingLineHidesASecretLearnedBeforeItsTurn() {
        let token = "tok-7f3a9c"
        var contracts = (0..<2).map {
            Contract(
                service: "S", name: "t\($0)", baseURL: "http://127.0.0.1",
                request: HTTPRequest(method: "GET", url: "http://127.0.0.1/\($0)"), sampleData: .none, source: "x")
        }
        var stream = ConsoleWriter.Stream(contracts: contracts, color: false)
        let leaking = ContractResult(
            contract: contracts[1], outcome: .drifted,
            findings: [Finding(.drift, .emptyBody, at: .body, "expected a body, got \(token)")])
        #expect(stream.add(leaking, at: 1) == "")
        contracts[0].secrets = [token]
        let text = stream.add(ContractResult(contract: contracts[0], outcome: .passed), at: 0)
        #expect(text.contains("S.t1") && text.contains("expected a body"))
        #expect(!text.contains(token), "\(text)")
        // Learned before the line came, the secret is hidden as the line is written.
        var learned = ConsoleWriter.Stream(contracts: contracts, color: false)
        #expect(learned.add(ContractResult(contract: contracts[0], outcome: .passed), at: 0).contains("S.t0"))
        #expect(!learned.add(leaking, at: 1).contains(token))
    }

    /// Whatever the order results come in (as 16 transfers in flight finish, or as a `--ref` run's later versions
    /// come with the first's), every result is printed once, in contract order, as soon as those before it are.
    @Test func everyArrivalOrderPrintsEachResultOnceAsSoonAsItsTurnComes() {
        let count = 600
        let contracts = (0..<count).map {
            Contract(
                service: "S", name: "t\($0)", baseURL: "http://127.0.0.1",
                request: HTTPRequest(method: "GET", url: "http://127.0.0.1/\($0)"), sampleData: .none, source: "x")
        }
        let results = contracts.map { ContractResult(contract: $0, outcome: .passed) }
        var inOrder = ConsoleWriter.Stream(contracts: contracts, color: false)
        let expected = results.indices.map { inOrder.add(results[$0], at: $0) }.joined()
        var generator = SystemRandomNumberGenerator()
        let versions = (0..<count / 5).flatMap { first in (0..<5).map { first + $0 * count / 5 } }
        let shuffledInWindows = stride(from: 0, to: count, by: 16).flatMap {
            Array($0..<min($0 + 16, count)).shuffled(using: &generator)
        }
        for order in [versions, shuffledInWindows, Array((0..<count).reversed()), Array(0..<count)] {
            var stream = ConsoleWriter.Stream(contracts: contracts, color: false)
            var printed = ""
            var arrived = Set<Int>()
            for index in order {
                arrived.insert(index)
                printed += stream.add(results[index], at: index)
                // Printed: exactly the results up to the first that has not come.
                let due = (0..<count).first { !arrived.contains($0) } ?? count
                #expect(printed.split(separator: "\n").count == due, "after \(index)")
            }
            #expect(printed == expected)
        }
    }
}

@Suite struct ConsoleColorTests {
    @Test(
        arguments: [
            // (NO_COLOR, TERM, flag, terminal) → color
            (nil, "xterm", nil, true, true),
            (nil, "xterm", nil, false, false),
            (nil, "dumb", nil, true, false),
            (nil, "dumb", true, true, true),
            (nil, "dumb", true, false, true),
            (nil, "xterm", false, true, false),
            ("1", "xterm", nil, true, false),
            ("1", "xterm", true, true, false),
            ("1", "dumb", true, false, false),
            ("", "xterm", nil, true, true),
        ] as [(String?, String, Bool?, Bool, Bool)])
    func noColorWinsThenTheFlagThenADumbTerminal(
        noColor: String?, term: String, flag: Bool?, isTerminal: Bool, isOn: Bool
    ) {
        var environment = ["TERM": term]
        environment["NO_COLOR"] = noColor
        #expect(ConsoleWriter.isColorOn(flag: flag, environment: environment, isTerminal: isTerminal) == isOn)
    }
}

/// A line's head names the target as every report does (`ReportText.qualifiedName`), though it writes the service
/// and the name each escaped, into the line at once: hostile names, past ASCII and with controls, read the same.
@Suite struct ConsoleLineHeadTests {
    @Test func theHeadNamesTheTargetAsTheReportsDo() {
        let names = [
            ("GitHub", "userProfile"), ("Bench@v1.1.0", "item1999"), ("Café✓", "検索👩‍💻"), ("esc\u{1B}[2J", "bell\u{7}"),
            ("c1\u{9B}31m", "nonchar\u{FFFE}\u{FFFF}"), ("", ""), ("a.b", "c.d"), ("tab\tservice", "line\nfeed"),
            (String(repeating: "long", count: 40), String(repeating: "é", count: 30)),
        ]
        for (service, name) in names {
            let contract = Contract(
                service: service, name: name, baseURL: "http://127.0.0.1",
                request: HTTPRequest(method: "GET", url: "http://127.0.0.1/t"), sampleData: .none, source: "x")
            let passed = ContractResult(contract: contract, outcome: .passed, duration: 0.0123)
            let line = ConsoleWriter.line(for: passed, color: false, redactor: Redactor(secrets: []))
            #expect(line == "PASS  " + ReportText.qualifiedName(contract) + "  0.012s", "\(service).\(name)")
        }
    }
}
