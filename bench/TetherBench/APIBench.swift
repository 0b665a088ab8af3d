import Foundation
@_spi(Testing) import TetherKit

// The in-process Swift API beside the CLI (issue 24: "the in-process Swift API, 2,000 targets through
// `ContractVerifier` / the CLI on the same manifest: <= 1.0 x"). `--api BASE_URL [--targets N] [--junit PATH]` verifies
// N Moya-shaped targets (`GET /c/K.json`, with the stub of bench/run's section (a), named `itemK` as there) through
// `ContractVerifier` with 16 jobs and writes the JUnit report, as `tether verify contracts --jobs 16 --junit PATH`
// does with section (a)'s manifest; bench/run's section (i) times the two processes side by side, start-up included.

/// One of section (a)'s targets, as an app declares it.
struct BenchTarget: TargetType, CustomStringConvertible {
    let index: Int
    let baseURL: URL
    var path: String { "/c/\(index).json" }
    var method: TetherKit.Method { .get }
    var sampleData: Data { Self.stub }
    var task: Task { .requestPlain }
    var headers: [String: String]? { nil }
    var description: String { "item\(index)" }

    /// bench/run's stub for every target of section (a).
    static let stub = Data(
        #"{"id": 1, "name": "x", "price": 2.5, "available": true, "tags": ["t"], "owner": {"login": "o", "id": 1}, "description": null}"#
            .utf8)
}

/// Verifies the targets and writes the report; returns the exit code the CLI would give (0 when all pass).
func runAPIBench(baseURL: String, targets: Int, junit: String?) async -> Int32 {
    guard let base = URL(string: baseURL) else {
        print("tether-bench: --api needs a base URL, such as http://127.0.0.1:18431")
        return 2
    }
    let report = await ContractVerifier(jobs: 16).verify((0..<targets).map { BenchTarget(index: $0, baseURL: base) })
    if let junit {
        do {
            try report.writeJUnit(to: junit)
        } catch {
            print("tether-bench: \(error)")
            return 2
        }
    }
    let results = report.run.results
    print("tether-bench api: \(results.count) targets, \(results.filter { $0.outcome == .passed }.count) passed")
    return report.isPassing ? 0 : 1
}
