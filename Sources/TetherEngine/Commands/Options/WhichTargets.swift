// WHICH TARGETS: `--filter` (verify, record, update, learn) and `--shard`/`--timings` (verify and record: a command
// that rewrites files needs every target's answers).

extension HelpSection {
    /// `--filter`, `--shard`, `--timings`.
    public static let whichTargets = HelpSection(title: "WHICH TARGETS")
}

extension ContractFilter: OptionGroup {
    /// `--filter PATTERN`.
    public static let options: [Option<ContractFilter>] = [
        .value(
            "--filter", "PATTERN", section: .whichTargets,
            help: "only targets whose Service.target (or target) matches PATTERN; * and ? are wildcards: "
                + "--filter 'GitHub.user*' --filter zen",
            isRepeatable: true
        ) { $0.patterns.append($1) }
    ]
}

extension ShardSelection: OptionGroup {
    /// `--shard K/N`, `--timings FILE`.
    public static let options: [Option<ShardSelection>] = [
        .value(
            "--shard", "K/N", section: .whichTargets,
            help: "run part K of N (a CI matrix job), every target in exactly one part; join the parts' reports with "
                + "tether merge-reports"
        ) { selection, text throws(InvalidValue) in
            guard let shard = ContractShard(text) else {
                throw InvalidValue("is not a shard such as 1/4 (K from 1 to N, N from 1 to 10000)")
            }
            selection.shard = shard
        },
        .value(
            "--timings", "FILE", section: .whichTargets,
            help: "balance --shard by the test times of this earlier JUnit report instead of by count "
                + "(without --shard it is not read)",
            defaultValue: "by count"
        ) { selection, text throws(InvalidValue) in
            selection.timingsReport = try ValueReader.readableFile(text)
        },
    ]
}

extension RefSelection: OptionGroup {
    /// `--ref REF`, `--last N`.
    public static let options: [Option<RefSelection>] = [
        .value(
            "--ref", "REF", section: .whichTargets,
            help: "check the contracts as they were at this git tag, branch or commit, read from git without "
                + "touching the working tree; a glob ('v*') takes the tags it matches; every ref's targets run in "
                + "one run, the same request sent once",
            isRepeatable: true
        ) { $0.refs.append($1) },
        .value(
            "--last", "N", section: .whichTargets,
            help: "of the tags a --ref glob matches, only the N newest (by tag date): --ref 'v*' --last 5"
        ) { selection, text throws(InvalidValue) in
            guard let count = Int(text), count >= 1 else { throw InvalidValue("is not a count of 1 or more") }
            selection.last = count
        },
    ]
}
