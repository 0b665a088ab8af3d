#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `tether merge-reports` for `--json` files: the JSON lines of a sharded run's shards joined into the lines of the
/// whole run. Result lines are kept as they are, in file order, with `index` renumbered from 0; one summary line is
/// recomputed from them (`fixed` summed, the earliest `startedAt`, durations summed, the exit code of the whole run).
/// A target (`service` + `target`) in two files is an error, as in `JUnitMerge`.
public enum JSONLinesMerge {
    /// The merged lines and their counts.
    public struct Merged: Sendable {
        /// The merged file: one result per line, then the summary line.
        public var text: Data
        /// The counts of the whole run.
        public var counts: OutcomeCounts
        /// How many result lines.
        public var total: Int
    }

    /// Whether `data` reads as JSON lines rather than XML: its first byte that is not white space is `{`.
    public static func isJSONLines(_ data: Data) -> Bool {
        data.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) } == UInt8(ascii: "{")
    }

    /// Merges the JSON-lines reports at `paths`.
    /// - Parameter paths: `--json` files of the shards, in order.
    /// - Returns: The merged report.
    /// - Throws: `JUnitReadError` (the merge's one error type) naming the file and line: unreadable, not JSON, a line
    ///   that is not a Tether result or summary, or a target that another file reports too.
    public static func merge(_ paths: [String]) throws(JUnitReadError) -> Merged {
        var results: [JSONValue] = []
        var steps: [JSONValue] = []
        var reportedIn: [String: String] = [:]
        var counts = OutcomeCounts()
        var fixed = 0
        var duration = 0.0
        var startedAt: String?
        for path in paths {
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw JUnitReadError(path: path, line: nil, message: "cannot read it: \(fileErrorReason(error))")
            }
            for (offset, line) in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
                .enumerated()
            {
                let lineNumber = offset + 1
                guard !line.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) else { continue }
                let value: JSONValue
                do {
                    value = try JSONReader().value(Data(line))
                } catch {
                    throw JUnitReadError(
                        path: path, line: lineNumber,
                        message: "not a JSON line (a --json report holds one JSON object per line): \(error.detail)")
                }
                switch value["type"] {
                case .string("result"):
                    guard case .string(let service)? = value["service"], case .string(let target)? = value["target"],
                        case .string(let outcome)? = value["outcome"]
                    else {
                        throw JUnitReadError(
                            path: path, line: lineNumber, message: "a result without service, target or outcome")
                    }
                    let key = "\(service).\(target)"
                    if let other = reportedIn[key] {
                        throw JUnitReadError(
                            path: path, line: lineNumber,
                            message: "\(key) is also in \(other): the shards overlap; give each shard's report once, "
                                + "from one run split with the same --shard N")
                    }
                    reportedIn[key] = path
                    count(outcome: outcome, of: value, into: &counts)
                    results.append(renumbered(value, index: results.count))
                case .string("summary"):
                    if case .integer(let count)? = value["fixed"] { fixed += Int(count) }
                    if let seconds = number(value["duration"]) { duration += seconds }
                    if case .string(let stamp)? = value["startedAt"], startedAt.map({ stamp < $0 }) ?? true {
                        startedAt = stamp
                    }
                case .string("specCoverage"):
                    // A shard's coverage of an OpenAPI document: the shards' covered operations may overlap, so no
                    // sum of them is the whole run's; the merged report leaves it out.
                    continue
                case .string("step"):
                    // A service-level step of one shard's run (each shard runs its services' steps): kept as is.
                    steps.append(value)
                default:
                    throw JUnitReadError(
                        path: path, line: lineNumber,
                        message: #"a line whose "type" is none of "result", "step", "specCoverage" or "summary": "#
                            + "not a tether --json report")
                }
            }
        }
        var text = Data()
        for result in results {
            text.append(result.serialized())
            text.append(UInt8(ascii: "\n"))
        }
        for step in steps {
            text.append(step.serialized())
            text.append(UInt8(ascii: "\n"))
        }
        text.append(
            Data(
                JSONLinesReport.summaryLine(
                    counts: counts, total: results.count, fixed: fixed, duration: (duration * 1000).rounded() / 1000,
                    startedAt: startedAt ?? "", exitCode: counts.exitCode
                ).utf8))
        return Merged(text: text, counts: counts, total: results.count)
    }

    /// Counts one result line as `OutcomeCounts(_:)` counts a result: its outcome and the gate's marks.
    private static func count(outcome: String, of value: JSONValue, into counts: inout OutcomeCounts) {
        let isPending = value["pending"] == .bool(true)
        let isKnown = value["knownDrift"] == .bool(true)
        switch outcome {
        case "passed":
            counts.passed += 1
            if value["flaky"] == .bool(true) { counts.flaky += 1 }
        case "drifted":
            counts.drifted += 1
            if isKnown { counts.knownDrifted += 1 }
            if isKnown || isPending { counts.excusedDrifted += 1 }
            if isPending { counts.pending += 1 }
        case "error":
            counts.errors += 1
            if isPending {
                counts.excusedErrors += 1
                counts.pending += 1
            }
        default:
            counts.skipped += 1
        }
    }

    private static func renumbered(_ value: JSONValue, index: Int) -> JSONValue {
        guard case .object(let members) = value else { return value }
        return .object(members.map { $0.key == "index" ? JSONMember("index", .integer(Int64(index))) : $0 })
    }

    private static func number(_ value: JSONValue?) -> Double? {
        switch value {
        case .double(let number)?: number
        case .integer(let number)?: Double(number)
        default: nil
        }
    }
}
