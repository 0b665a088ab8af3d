/// `tether record`: a verify run against the live services that also writes every answer to a HAR file, redacted.
public struct RecordCommand: Command {
    /// The run, as verify's options describe it (but `--mock`: a recording of a recording is no recording).
    public var plan = RunPlan()
    /// `--out FILE.har`: required, since nothing records unless asked.
    public var out: String?
    /// `--redact-json PATH` patterns.
    public var redactJSON: [JSONPathPattern] = []
    /// Sends and checks (libcurl by default).
    public var runner = ContractRunner()

    /// Every option at its default.
    public init() {}

    /// `tether record`.
    public static let configuration = CommandConfiguration(
        names: ["record"], usage: "tether record [PATH ...] --out FILE.har [OPTIONS]",
        summary: "verify against the live services and record their answers as a HAR file (redacted)",
        help: { help })

    /// Verify's groups but `--mock`, then where the recording goes.
    public static let options = OptionTable<RecordCommand>(
        command: "record",
        groups: [
            .group({ $0.plan.inputs.baseURLs }, { $0.plan.inputs.baseURLs = $1 }),
            .group({ $0.plan.inputs.filter }, { $0.plan.inputs.filter = $1 }),
            .group({ $0.plan.inputs.sharding }, { $0.plan.inputs.sharding = $1 }),
            .group({ $0.plan.checks }, { $0.plan.checks = $1 }), .group({ $0.plan.gate }, { $0.plan.gate = $1 }),
            .group({ $0.plan.transport }, { $0.plan.transport = $1 }),
            .group({ $0.plan.reports }, { $0.plan.reports = $1 }),
            [
                .value(
                    "--out", "FILE.har", section: .recording, help: "where to write the recorded exchanges (HAR 1.2)"
                ) { $0.out = $1 },
                .redactJSON(section: .recording, into: \RecordCommand.redactJSON),
                .help,
            ],
        ],
        operand: { $0.plan.inputs.paths.append($1) })

    /// `--out` is required; `PATH` defaults to `contracts`.
    public mutating func validate() throws(UsageError) {
        guard out != nil else {
            throw UsageError(
                "tether record needs --out FILE.har (nothing is recorded unless asked), e.g. tether record --out recorded.har"
            )
        }
        if plan.inputs.paths.isEmpty { plan.inputs.paths = ["contracts"] }
    }

    /// Verifies, recording every live answer; the exit code is verify's.
    public func run(_ context: CommandContext) -> ExitCode {
        let plan = plan.completed(in: context)
        return VerifyCommand.run(
            plan, runner: runner,
            tap: ResponseTap.recording(to: out ?? "", redactingJSON: redactJSON, stop: plan.transport.cancellation),
            context: context)
    }

    /// `tether record --help`.
    static var help: String {
        """
        USAGE
          \(configuration.usage)

        Runs tether verify against the live services (same options, console, reports and exit code) and writes
        every answer to FILE.har: a strict HAR 1.2 file that tether verify --mock and tether serve --har replay
        with the same verdicts. Bodies are stored decoded (gzip, deflate, br); bytes that are not UTF-8 as base64.

        Secrets never reach the file. Authorization, Proxy-Authorization, Cookie and Set-Cookie values are written
        as <redacted>; so is every value the reports redact (credential headers and ${VAR} values of 6 characters
        or more), in every form it takes: raw, percent-encoded, JSON-escaped, base64, in URLs, headers and bodies.
        --redact-json hides personal data in JSON bodies and keeps each value's type (a string becomes
        "<redacted>", a number 0), so the recording still passes where the live answer did. A query value recorded
        as <redacted> matches any value of that parameter when replayed.

        A run stopped early (Ctrl-C, SIGTERM, --fail-fast) writes what it recorded to FILE.partial.har and
        leaves FILE.har as it was (a stream such as /dev/stdout takes it, said to be partial).

        Nothing records unless asked: run record on a schedule or by hand, review the file, commit it.

        \(options.helpSections())
        """
    }
}

extension HelpSection {
    /// `--out`, `--redact-json`.
    static let recording = HelpSection(title: "RECORDING")
}
