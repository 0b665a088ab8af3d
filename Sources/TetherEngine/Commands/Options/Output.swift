// OUTPUT: the reports and the console, for the commands that write reports (verify and record).

extension HelpSection {
    /// Reports and the console.
    public static let output = HelpSection(
        title: "OUTPUT",
        note: "On GitHub Actions (GITHUB_ACTIONS=true) annotations are printed and the Markdown summary is appended "
            + "to $GITHUB_STEP_SUMMARY, without options. Secrets are <redacted> in every report.")
}

extension ReportOptions: OptionGroup {
    /// One option per report format and per format flag (from `ReportFormat.all`, the formats' own registry), then
    /// `--quiet`, `--verbose`, `--list` and `--color`.
    public static let options: [Option<ReportOptions>] =
        ReportFormat.all.map { format in
            switch format.value {
            case .none:
                .flag("--\(format.option)", section: .output, help: format.help) { $0.paths[format.option] = "" }
            case .file, .fileOrStandardOutput:
                .value(
                    "--\(format.option)", format.value == .file ? "FILE" : "FILE|-", section: .output,
                    help: format.help, defaultValue: format.defaultPath
                ) { $0.paths[format.option] = $1 }
            }
        }
        + ReportFormat.all.flatMap(\.flags).map { flag in
            .flag("--\(flag.name)", section: .output, help: flag.help) { $0.flags.insert(flag.name) }
        }
        + [
            Option(
                names: ["--quiet", "-q"], section: .output,
                forms: [.init(value: nil, help: "print only drifts, errors and the summary")],
                action: .flag { $0.detail = .quiet }),
            Option(
                names: ["--verbose", "-v"], section: .output,
                forms: [
                    .init(
                        value: nil,
                        help: "print every target's request line and all of its notes, and with --ref every row of "
                            + "the versions × targets matrix")
                ],
                action: .flag { $0.detail = .verbose }),
            .flag("--list", section: .output, help: "print the targets that would run and their requests; send nothing")
            { $0.isListOnly = true },
            Option(
                names: ["--color", "--no-color"], aliases: ["--colour", "--no-colour"], section: .output,
                forms: [
                    .init(
                        value: nil, help: "force color on or off; NO_COLOR always wins",
                        defaultValue: "on for a terminal, off for TERM=dumb")
                ],
                action: .toggle { $0.color = $1 }),
        ]
}
