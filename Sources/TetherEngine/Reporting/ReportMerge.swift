#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `tether merge-reports`: the shards' reports of one kind, JUnit XML (`JUnitMerge`) or `--json` lines
/// (`JSONLinesMerge`), told apart by their first byte, merged into the report of the whole run.
public enum ReportMerge {
    /// The merged report.
    public struct Merged: Sendable {
        /// The bytes to write.
        public var data: Data
        /// The counts of the whole run; `counts.exitCode` is the merge's exit code.
        public var counts: OutcomeCounts
        /// What was merged, for the console: `in 2 suites`, `as 14 JSON lines`.
        public var shape: String
        /// Whether the reports were JSON lines (else JUnit XML).
        public var isJSONLines: Bool
    }

    /// Merges the reports at `paths`, all JUnit or all JSON lines.
    /// - Throws: `JUnitReadError` naming the file: unreadable, of the other kind than the first, or as each merge
    ///   throws.
    public static func merge(_ paths: [String]) throws(JUnitReadError) -> Merged {
        var isJSON: Bool?
        for path in paths {
            let head = FileManager.default.head(ofFile: path, count: 4096)
            guard let head else {
                let (exists, isFolder) = path.fileKind
                throw JUnitReadError(
                    path: path, line: nil,
                    message: !exists
                        ? "no such file: give the report each shard wrote (--junit or --json)"
                        : isFolder
                            ? "a folder, not a report: give the report files in it"
                            : "cannot read it: check its permissions")
            }
            let kind = JSONLinesMerge.isJSONLines(head)
            if let isJSON, isJSON != kind {
                throw JUnitReadError(
                    path: path, line: nil,
                    message: "is \(kind ? "JSON lines" : "XML") but \(paths[0]) is \(isJSON ? "JSON lines" : "XML"): "
                        + "merge the JUnit files and the --json files separately")
            }
            isJSON = kind
        }
        if isJSON == true {
            let merged = try JSONLinesMerge.merge(paths)
            return Merged(
                data: merged.text, counts: merged.counts, shape: "as \(merged.total) JSON lines", isJSONLines: true)
        }
        let merged = try JUnitMerge.merge(paths)
        return Merged(
            data: merged.xml, counts: merged.counts,
            shape: "in \(merged.suiteCount == 1 ? "1 suite" : "\(merged.suiteCount) suites")", isJSONLines: false)
    }
}
