import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// The console's version matrix (`VersionMatrix.consoleLines`), written as bytes with each column's words padded
/// once, held to the table as it was written before, string by string, on random runs: names past ASCII (é, CJK,
/// an emoji of several scalars), control characters, long refs, every outcome, targets some versions lack.
@Suite struct VersionMatrixTests {
    /// The lines as the matrix wrote them before (cells padded one by one to their width in characters), of every
    /// row or of the troubled ones, the others counted.
    static func referenceLines(_ matrix: VersionMatrix, everyRow: Bool = true) -> [String] {
        let header = ["target"] + matrix.refs.map(ReportText.escapingControls) + ["first drifted"]
        let rows = matrix.rows.filter { row in
            everyRow || row.cells.contains { $0 == .drifted || $0.map(ReportText.statusWord) == "ERROR" }
        }
        let others = matrix.rows.count - rows.count
        if rows.isEmpty {
            return [
                "versions × targets: no target drifted or failed (\(others) target\(others == 1 ? "" : "s") at "
                    + "\(matrix.refs.count) version\(matrix.refs.count == 1 ? "" : "s"); --verbose shows the matrix)"
            ]
        }
        let body = rows.map { row in
            [ReportText.escapingControls(row.target)] + row.cells.map(VersionMatrix.word)
                + [row.firstDrifted.map(ReportText.escapingControls) ?? "-"]
        }
        var widths = header.map(\.count)
        for cells in body {
            for (column, cell) in cells.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            var line = "  "
            for (column, cell) in cells.enumerated() {
                line += cell
                if column < cells.count - 1 { line += String(repeating: " ", count: widths[column] - cell.count + 2) }
            }
            return line
        }
        return ["versions × targets:", line(header)] + body.map(line)
            + (others == 0
                ? []
                : [
                    "  (\(others) more target\(others == 1 ? "" : "s"), none drifted or failed at any version: --verbose "
                        + "lists them)"
                ])
    }

    /// A run of `services` at `refs`, each version holding a random part of `names`, each result a random outcome.
    static func report(
        refs: [String], names: [String], services: [String], using random: inout some RandomNumberGenerator
    )
        -> RunReport
    {
        let outcomes: [Outcome] = [.passed, .drifted, .error("timed out"), .skipped("a networkError stub")]
        var results: [ContractResult] = []
        for ref in refs {
            var contracts: [Contract] = []
            for service in services {
                for name in names where Int.random(in: 0..<5, using: &random) > 0 {
                    contracts.append(
                        Contract(
                            service: service + "@" + ref, name: name, baseURL: "http://127.0.0.1",
                            request: HTTPRequest(method: "GET", url: "http://127.0.0.1/" + name), sampleData: .none,
                            source: "\(ref):contracts/api.json"))
                }
            }
            Contract.setRef(ref, on: &contracts)
            results += contracts.map {
                ContractResult(contract: $0, outcome: outcomes.randomElement(using: &random)!)
            }
        }
        return RunReport(results: results, startedAt: Date(), duration: 1, hostname: "ci")
    }

    @Test func theLinesAreThoseOfTheTableWrittenCellByCell() throws {
        var random = SplitMix(state: 7)
        let names = [
            "item", "user", "café", "検索", "👩‍💻profile", "tab\there", "bell\u{7}", "x", "a-much-longer-target-name",
        ]
        let refSets = [
            ["v1"], ["v1.0.0", "v1.1.0", "v1.2.0"], ["release/2026-12-04-long-branch-name", "v2"],
            ["é", "v3", "v4", "v5", "v6"],
        ]
        var checked = 0
        for refs in refSets {
            for _ in 0..<25 {
                let report = Self.report(
                    refs: refs, names: names.shuffled(using: &random), services: ["Api", "Shop✓"], using: &random)
                let matrix = try #require(VersionMatrix(report))
                #expect(matrix.consoleLines(everyRow: true) == Self.referenceLines(matrix), "\(refs)")
                #expect(
                    matrix.consoleLines(everyRow: false) == Self.referenceLines(matrix, everyRow: false), "\(refs)")
                checked += 1
            }
        }
        #expect(checked == 100)
    }

    @Test func aWorkingTreeRunHasNoMatrix() {
        let contract = Contract(
            service: "Api", name: "item", baseURL: "http://127.0.0.1",
            request: HTTPRequest(method: "GET", url: "http://127.0.0.1/item"), sampleData: .none, source: "api.json")
        let report = RunReport(
            results: [ContractResult(contract: contract, outcome: .passed)], startedAt: Date(), duration: 1,
            hostname: "ci")
        #expect(VersionMatrix(report) == nil)
    }

    @Test func aRowsCellsAndFirstDriftAreItsVersionsInRefOrder() throws {
        var contracts: [[Contract]] = []
        for ref in ["v1", "v2", "v3"] {
            var version = ["item", "zen"].map { name in
                Contract(
                    service: "Shop@" + ref, name: name, baseURL: "http://127.0.0.1",
                    request: HTTPRequest(method: "GET", url: "http://127.0.0.1/" + name), sampleData: .none,
                    source: "\(ref):shop.json")
            }
            Contract.setRef(ref, on: &version)
            contracts.append(version)
        }
        let outcomes: [[Outcome]] = [[.passed, .passed], [.drifted, .passed], [.drifted, .error("reset")]]
        let results = zip(contracts, outcomes).flatMap { version, outcomes in
            zip(version, outcomes).map { ContractResult(contract: $0, outcome: $1) }
        }
        let matrix = try #require(
            VersionMatrix(RunReport(results: results, startedAt: Date(), duration: 1, hostname: "ci")))
        #expect(
            matrix.consoleLines(everyRow: true) == [
                "versions × targets:",
                "  target     v1    v2     v3     first drifted",
                "  Shop.item  PASS  DRIFT  DRIFT  v2",
                "  Shop.zen   PASS  PASS   ERROR  -",
            ])
    }

    /// Three versions of four targets: one drifted, one failed, two passed wherever they are.
    static func fourTargets() throws -> VersionMatrix {
        let outcomes: [String: [Outcome?]] = [
            "item": [.passed, .drifted, .passed], "zen": [.passed, .passed, .passed],
            "extra": [nil, .passed, .skipped("a networkError stub")], "search": [.error("timed out"), nil, .passed],
        ]
        var results: [ContractResult] = []
        for (column, ref) in ["v1", "v2", "v3"].enumerated() {
            var version = ["item", "zen", "extra", "search"].compactMap { name -> Contract? in
                guard outcomes[name]![column] != nil else { return nil }
                return Contract(
                    service: "Shop@" + ref, name: name, baseURL: "http://127.0.0.1",
                    request: HTTPRequest(method: "GET", url: "http://127.0.0.1/" + name), sampleData: .none,
                    source: "\(ref):shop.json")
            }
            Contract.setRef(ref, on: &version)
            results += version.map { ContractResult(contract: $0, outcome: outcomes[$0.name]![column]!) }
        }
        return try #require(VersionMatrix(RunReport(results: results, startedAt: Date(), duration: 1, hostname: "ci")))
    }

    /// The console shows the targets that drifted or failed at some version and counts the rest; `--verbose` all.
    @Test func theConsoleShowsTheTroubledRowsAndCountsTheOthers() throws {
        let matrix = try Self.fourTargets()
        #expect(
            matrix.consoleLines(everyRow: false) == [
                "versions × targets:",
                "  target       v1     v2     v3    first drifted",
                "  Shop.item    PASS   DRIFT  PASS  v2",
                "  Shop.search  ERROR  -      PASS  -",
                "  (2 more targets, none drifted or failed at any version: --verbose lists them)",
            ])
        #expect(matrix.consoleLines(everyRow: true).count == 6)
        #expect(matrix.consoleLines(everyRow: true).contains("  Shop.extra   -      PASS   SKIP  -"))
    }

    /// The Markdown summary's table: the troubled rows up to its limit, then how many more, then the others counted.
    @Test func theMarkdownTableIsShortWhateverTheRun() throws {
        let matrix = try Self.fourTargets()
        #expect(
            matrix.markdownLines(maxRows: 1) { $0 } == [
                "| Target | `v1` | `v2` | `v3` | First drifted |", "| --- | --- | --- | --- | --- |",
                "| `Shop.item` | PASS | DRIFT | PASS | `v2` |", "",
                "…and 1 more target that drifted or failed at some version.", "",
                "The other 2 targets neither drifted nor failed at any version (the HTML report, `--html`, has every row).",
            ])
        #expect(matrix.markdownLines(maxRows: 25) { $0 }.count == 6)
    }

    /// Where no target drifted or failed at any version, the console says so in one line, the summary in one sentence.
    @Test func aCleanRunAtEveryVersionIsOneLine() throws {
        var contracts: [Contract] = []
        for ref in ["v1", "v2"] {
            var version = (0..<2_000).map { index in
                Contract(
                    service: "Shop@" + ref, name: "item\(index)", baseURL: "http://127.0.0.1",
                    request: HTTPRequest(method: "GET", url: "http://127.0.0.1/\(index)"), sampleData: .none,
                    source: "\(ref):shop.json")
            }
            Contract.setRef(ref, on: &version)
            contracts += version
        }
        let matrix = try #require(
            VersionMatrix(
                RunReport(
                    results: contracts.map { ContractResult(contract: $0, outcome: .passed) }, startedAt: Date(),
                    duration: 1, hostname: "ci")))
        #expect(
            matrix.consoleLines(everyRow: false) == [
                "versions × targets: no target drifted or failed (2000 targets at 2 versions; --verbose shows the "
                    + "matrix)"
            ])
        #expect(matrix.consoleLines(everyRow: true).count == 2_002)
        #expect(
            matrix.markdownLines(maxRows: 25) { $0 } == [
                "No target drifted or failed (2000 targets at 2 versions: `v1`, `v2`)."
            ])
    }
}
