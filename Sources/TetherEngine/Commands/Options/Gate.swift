// GATE: what fails a run beyond its drifts, and when it stops (verify and record).

extension HelpSection {
    /// Known drift, pending targets, flakiness, fail-fast: what fails the exit code.
    public static let gate = HelpSection(
        title: "GATE",
        note: "A target new since the baseline, or marked \"pending\": true and never passed, is reported but does not "
            + "fail the gate until it has passed once (--update-baseline remembers the pass).")
}

extension GateOptions: OptionGroup {
    /// `--baseline FILE`, `--update-baseline`, `--fail-on-flaky`, `--fail-fast`.
    public static let options: [Option<GateOptions>] = [
        .value(
            "--baseline", "FILE", section: .gate,
            help: "drifts recorded in FILE are reported as known and do not fail the gate; new drifts do; recorded "
                + "drifts that are gone are reported as fixed"
        ) { $0.baselinePath = $1 },
        .flag(
            "--update-baseline", section: .gate,
            help: "write the --baseline FILE after the run: record new drifts, prune fixed ones, remember passes"
        ) { $0.isUpdatingBaseline = true },
        .flag(
            "--fail-on-flaky", section: .gate,
            help: "a target that passed only after a retry fails the gate (exit code 3)"
        ) { $0.failsOnFlaky = true },
        .flag(
            "--fail-fast", section: .gate,
            help: "stop sending at the first drift; the targets not run are reported as skipped"
        ) { $0.isFailFast = true },
    ]
}
