/// `tether merge-reports`: the JUnit (or JSON lines) reports of the shards of a run joined into the whole run's.
public struct MergeReportsCommand: Command {
    /// The shards' reports, in order.
    public var paths: [String] = []
    /// `-o FILE`.
    public var out: String?

    /// Every option at its default.
    public init() {}

    /// `tether merge-reports`.
    public static let configuration = CommandConfiguration(
        names: ["merge-reports"], usage: "tether merge-reports A.xml B.xml ... -o FILE.xml",
        summary: "join the JUnit reports of the shards of a run (--shard K/N) into the report of the whole run",
        help: { help })

    /// `-o`, and the reports.
    public static let options = OptionTable<MergeReportsCommand>(
        command: "merge-reports",
        options: [
            Option(
                names: ["-o", "--out"], section: .options,
                forms: [.init(value: "FILE", help: "where to write the merged report (JUnit XML, or JSON lines)")],
                action: .value { $0.out = $1 }),
            .help,
        ],
        operand: { $0.paths.append($1) })

    /// The reports and `-o` are required.
    public func validate() throws(UsageError) {
        guard !paths.isEmpty else {
            throw UsageError(
                "tether merge-reports needs the shards' reports, e.g. tether merge-reports shard-*/junit.xml -o junit.xml"
            )
        }
        guard out != nil else {
            throw UsageError("tether merge-reports needs -o FILE.xml, the merged report to write")
        }
    }

    /// Merges: the exit code is the whole run's, or 2 when a report cannot be read or written.
    public func run(_ context: CommandContext) -> ExitCode {
        let out = out ?? ""
        // The merged report never replaces one of the shards' (a rerun with `-o shard-1.xml` would lose it).
        if let real = out.resolvedPath, let input = paths.first(where: { $0.resolvedPath == real }) {
            context.error("-o \(out): it is \(input), one of the reports to merge: write the merged report elsewhere")
            return .usage
        }
        do {
            let merged = try ReportMerge.merge(paths)
            // A name that says the other kind (`-o junit.xml` for --json files) would mislead the next reader.
            let lower = out.lowercased()
            if merged.isJSONLines ? lower.hasSuffix(".xml") : lower.hasSuffix(".json") || lower.hasSuffix(".jsonl") {
                context.error(
                    "-o \(out): the reports are \(merged.isJSONLines ? "JSON lines" : "JUnit XML"), which that name "
                        + "does not say: name it \(merged.isJSONLines ? ".jsonl" : ".xml")")
                return .usage
            }
            try ReportFile.write(merged.data, to: out, durability: .report)
            let counts = merged.counts
            let errors = counts.errors == 1 ? "1 error" : "\(counts.errors) errors"
            context.write(
                "merged \(paths.count == 1 ? "1 report" : "\(paths.count) reports") into \(out): "
                    + "\(counts.passed) passed, \(counts.drifted) failed, \(errors), \(counts.skipped) skipped "
                    + merged.shape + "\n")
            return counts.exitCode
        } catch let error as JUnitReadError {
            context.error("\(error)")
            return .usage
        } catch {
            context.error("-o \(error)")
            return .usage
        }
    }

    /// `tether merge-reports --help`.
    static var help: String {
        """
        USAGE
          \(configuration.usage)

        Joins the JUnit reports of a run split with --shard K/N into the report of the whole run. Suites of the same
        service are combined, their test cases copied in file order, and their counts, times and totals recomputed;
        the result validates against the same schemas as a report of one run. The --json files of the shards merge
        the same way (give them instead of the XML files): their result lines in file order, one summary
        recomputed. A target reported by two files is an error (exit 2): the shards overlapped.

        The exit code is the whole run's: 0 every contract holds, 1 a drift, 3 some target could not be checked,
        4 nothing was checked (see tether --help).

        \(options.helpSections())
        """
    }
}
