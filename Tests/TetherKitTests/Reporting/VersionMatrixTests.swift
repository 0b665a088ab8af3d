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
    /// The lines as the matrix wrote them before (cells padded one by one to their width in characters).
    static func referenceLines(_ matrix: VersionMatrix) -> [String] {
        let header = ["target"] + matrix.refs.map(ReportText.escapingControls) + ["first drifted"]
        let body = matrix.rows.map { row in
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
                #expect(matrix.consoleLines == Self.referenceLines(matrix), "\(refs)")
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
            matrix.consoleLines == [
                "versions × targets:",
                "  target     v1    v2     v3     first drifted",
                "  Shop.item  PASS  DRIFT  DRIFT  v2",
                "  Shop.zen   PASS  PASS   ERROR  -",
            ])
    }
}
