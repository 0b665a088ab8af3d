// RULES: `--strict` and `--exhaustive`, for every command that checks answers.

extension HelpSection {
    /// `--strict`, `--exhaustive`, and where the contract's own rules are.
    public static let rules = HelpSection(
        title: "RULES",
        note: "A manifest's \"rules\" (per target, and top-level for the service) ignore, optional, nullable, maps, "
            + "strict, formats, values and status: see docs/contracts.md, \"Rules\".")
}

extension CheckOptions: OptionGroup {
    /// `--strict`, `--exhaustive`.
    public static let options: [Option<CheckOptions>] = [
        .flag(
            "--strict", section: .rules,
            help: "keys the live body has and the stub lacks are drifts, not notes (a target's \"strict\" rule, "
                + "true or false, wins over this flag)"
        ) { $0.isStrict = true },
        .flag(
            "--exhaustive", section: .rules,
            help: "a target whose stub asserts no body (Moya's empty Data(), or JSON with no key such as {} or []) "
                + "drifts; the console and JUnit always show coverage: targets with a body contract / all targets"
        ) { $0.isExhaustive = true },
    ]
}
