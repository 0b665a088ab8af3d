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
