import TetherKit

/// `tether merge-reports`' arguments while they are read.
struct MergeArguments {
    /// The shards' JUnit reports, in order.
    var paths: [String] = []
    /// `-o FILE`.
    var out: String?
}

extension TetherCommand {
    /// `tether merge-reports`: the reports of a sharded run joined into one.
    static let mergeReports: TetherCommand = .init(
        names: ["merge-reports"], usage: "tether merge-reports A.xml B.xml ... -o FILE.xml",
        summary: "join the JUnit reports of the shards of a run (--shard K/N) into the report of the whole run",
        helpText: { Help.mergeReports }, parse: parseMerge)
}

private func parseMerge(_ arguments: ArraySlice<String>) throws(UsageError) -> Command {
    switch try mergeOptions.parse(arguments, into: MergeArguments()) {
    case .help: return .help(Help.mergeReports)
    case .parsed(let result):
        guard !result.paths.isEmpty else {
            throw UsageError(
                "tether merge-reports needs the shards' reports, e.g. tether merge-reports shard-*/junit.xml -o junit.xml"
            )
        }
        guard let out = result.out else {
            throw UsageError("tether merge-reports needs -o FILE.xml, the merged report to write")
        }
        return .mergeReports(paths: result.paths, out: out)
    }
}

/// Every option of `tether merge-reports`.
let mergeOptions = OptionTable<MergeArguments>(
    command: "merge-reports",
    options: [
        Option(
            names: ["-o", "--out"], section: .options,
            forms: [.init(value: "FILE", help: "where to write the merged report (JUnit XML, or JSON lines)")],
            action: .value { $0.out = $1 }),
        .help,
    ],
    operand: { arguments, path in arguments.paths.append(path) })

extension Help {
    /// `tether merge-reports --help`.
    static let mergeReports: String = """
        USAGE
          \(TetherCommand.mergeReports.usage)

        Joins the JUnit reports of a run split with --shard K/N into the report of the whole run. Suites of the same
        service are combined, their test cases copied in file order, and their counts, times and totals recomputed;
        the result validates against the same schemas as a report of one run. The --json files of the shards merge
        the same way (give them instead of the XML files): their result lines in file order, one summary
        recomputed. A target reported by two files is an error (exit 2): the shards overlapped.

        The exit code is the whole run's: 0 every contract holds, 1 a drift, 3 some target could not be checked,
        4 nothing was checked (see tether --help).

        \(mergeOptions.helpSections())
        """
}
