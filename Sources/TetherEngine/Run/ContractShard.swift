#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `--shard K/N`: one of N deterministic parts of a run, for CI systems that run jobs in parallel (a GitHub Actions
/// matrix, GitLab's `parallel:`), whose reports `tether merge-reports` joins again.
///
/// Every selected target is in exactly one shard, and which one depends only on the targets' names
/// (`Service.target`), never on file order, the machine or the run:
/// - by count (the default): the targets sorted by name are dealt out in turn, so shard sizes differ by at most one;
/// - by time, when `timings` gives durations from an earlier report (`--timings FILE`): longest first, each to the
///   shard with the least time so far (ties to the lower shard); a target the report lacks counts as the median of
///   the known ones.
/// Within a shard the targets keep their run order, so its report reads like the whole run's.
public struct ContractShard: Sendable, Equatable, CustomStringConvertible {
    /// This shard, from 1.
    public var index: Int
    /// How many shards the run is split into.
    public var count: Int

    /// - Parameters:
    ///   - index: From 1 to `count`.
    ///   - count: At least 1.
    public init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// `2/4`.
    public var description: String { "\(index)/\(count)" }

    /// Reads `K/N`.
    /// - Parameter text: `2/4`.
    /// - Returns: The shard, or `nil` unless 1 ≤ K ≤ N ≤ 10,000.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count >= 1, count <= 10_000,
            index >= 1, index <= count
        else { return nil }
        self.init(index: index, count: count)
    }

    /// The contracts of this shard, in their order in `contracts`.
    /// - Parameters:
    ///   - contracts: The whole run's selected contracts.
    ///   - timings: Seconds by `Service.target` from an earlier report, or `nil` to balance by count.
    /// - Returns: This shard's contracts (possibly none, when there are fewer targets than shards).
    public func select(_ contracts: [Contract], timings: [String: Double]? = nil) -> [Contract] {
        let names = contracts.map { "\($0.service).\($0.name)" }
        // Sorted by name, then by position for two targets of one name in different files: stable everywhere.
        let order = contracts.indices.sorted { names[$0] != names[$1] ? names[$0] < names[$1] : $0 < $1 }
        var shardOf = [Int](repeating: 0, count: contracts.count)
        if let timings {
            let known = names.compactMap { timings[$0] }.sorted()
            let fallback = known.isEmpty ? 1 : known[known.count / 2]
            let seconds = names.map { max(0, timings[$0] ?? fallback) }
            var rank = [Int](repeating: 0, count: contracts.count)
            for (turn, position) in order.enumerated() { rank[position] = turn }
            let longestFirst = order.sorted {
                seconds[$0] != seconds[$1] ? seconds[$0] > seconds[$1] : rank[$0] < rank[$1]
            }
            var load = [Double](repeating: 0, count: count)
            for position in longestFirst {
                var lightest = 0
                for shard in 1..<count where load[shard] < load[lightest] { lightest = shard }
                shardOf[position] = lightest
                load[lightest] += seconds[position]
            }
        } else {
            for (turn, position) in order.enumerated() { shardOf[position] = turn % count }
        }
        return contracts.indices.filter { shardOf[$0] == index - 1 }.map { contracts[$0] }
    }
}

extension ContractShard {
    /// Durations by `Service.target` from an earlier report, for `--timings`: a JUnit report
    /// (`<testcase classname name time>`) or a `--json` one (its result lines).
    /// - Parameter path: A JUnit XML file, as Tether (or another tool) wrote it, or JSON lines from `--json`.
    /// - Returns: Seconds by `classname.name`.
    /// - Throws: `JUnitReadError` when the file cannot be read or is not JUnit XML.
    public static func timings(fromReport path: String) throws(JUnitReadError) -> [String: Double] {
        if let data = FileManager.default.contents(atPath: path), JSONLinesMerge.isJSONLines(data) {
            // A `--json` report: every result line's `service`, `target` and `duration` (seconds).
            var timings: [String: Double] = [:]
            for line in data.split(separator: UInt8(ascii: "\n")) {
                guard let value = try? JSONReader().value(Data(line)), value["type"] == .string("result"),
                    case .string(let service)? = value["service"], case .string(let target)? = value["target"]
                else { continue }
                switch value["duration"] {
                case .double(let seconds)?: timings["\(service).\(target)"] = seconds
                case .integer(let seconds)?: timings["\(service).\(target)"] = Double(seconds)
                default: continue
                }
            }
            return timings
        }
        let document = try JUnitDocument.read(path)
        var timings: [String: Double] = [:]
        for suite in document.suites {
            for testCase in suite.cases {
                timings["\(testCase.attribute("classname") ?? suite.name).\(testCase.attribute("name") ?? "")"] =
                    Double(testCase.attribute("time") ?? "") ?? 0
            }
        }
        return timings
    }
}
