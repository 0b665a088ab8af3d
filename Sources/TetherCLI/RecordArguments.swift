import TetherKit

/// `tether record`'s arguments: verify's, and where the HAR goes.
struct RecordArguments {
    /// Everything `tether verify` takes: the same run.
    var verify = VerifyArguments()
    /// `--out FILE.har`: required, since nothing records unless asked.
    var out: String?
    /// `--redact-json PATH` patterns.
    var redactJSON: [JSONPathPattern] = []
}

extension TetherCommand {
    /// `tether record`: verify, and keep what the live services answered as a HAR file.
    static let record: TetherCommand = .init(
        names: ["record"], usage: "tether record [PATH ...] --out FILE.har [OPTIONS]",
        summary: "verify against the live services and record their answers as a HAR file (redacted)",
        helpText: { Help.record }, parse: parseRecord)
}

private func parseRecord(_ arguments: ArraySlice<String>) throws(UsageError) -> Command {
    switch try recordOptions.parse(arguments, into: RecordArguments()) {
    case .help: return .help(Help.record)
    case .parsed(var result):
        guard result.out != nil else {
            throw UsageError(
                "tether record needs --out FILE.har (nothing is recorded unless asked), e.g. tether record --out recorded.har"
            )
        }
        if result.verify.mockHAR != nil {
            throw UsageError(
                "tether record calls the live services; --mock would record a recording. Use tether verify --mock")
        }
        if result.verify.paths.isEmpty { result.verify.paths = ["contracts"] }
        return .record(result)
    }
}

/// Every option of `tether record`: verify's (but `--mock`), then its own.
let recordOptions = OptionTable<RecordArguments>(
    command: "record",
    options: verifyOptionsForRecord
        + [
            .value("--out", "FILE.har", section: .recording, help: "where to write the recorded exchanges (HAR 1.2)") {
                $0.out = $1
            },
            .redactJSON(section: .recording, into: \RecordArguments.redactJSON),
            .help,
        ],
    operand: { arguments, path in arguments.verify.paths.append(path) })

extension Option {
    /// `--redact-json PATH` of `record` and `update`: personal data hidden in the bodies they keep.
    static func redactJSON(section: HelpSection, into patterns: WritableKeyPath<Parsed, [JSONPathPattern]> & Sendable)
        -> Option
    {
        .value(
            "--redact-json", "PATH", section: section,
            help: "also hide this JSON path's values in live bodies, keeping their type: "
                + "--redact-json '$.email' --redact-json '$.items[*].owner.name'",
            isRepeatable: true
        ) { arguments, text throws(InvalidValue) in
            do throws(JSONPathPatternError) {
                arguments[keyPath: patterns].append(try JSONPathPattern(text))
            } catch {
                let syntax = #"paths are written $, .key, ["odd key"], [*], [n]"#
                throw InvalidValue("is not a JSON path (column \(error.column): expected \(error.problem)); \(syntax)")
            }
        }
    }
}

/// Verify's options but `--mock` (a recording of a recording is no recording) and `--help` (record has its own).
private let verifyOptionsForRecord: [Option<RecordArguments>] = verifyOptions.options
    .filter { !$0.names.contains("--mock") && $0.section != nil }
    .map { (option: Option<VerifyArguments>) in option.lifted(\RecordArguments.verify) }

extension HelpSection {
    /// `--out`, `--redact-json`.
    static let recording = HelpSection(title: "RECORDING")
}

extension Help {
    /// `tether record --help`.
    static let record: String = """
        USAGE
          \(TetherCommand.record.usage)

        Runs tether verify against the live services (same options, console, reports and exit code) and writes
        every answer to FILE.har: a strict HAR 1.2 file that tether verify --mock and tether serve --har replay
        with the same verdicts. Bodies are stored decoded (gzip, deflate, br); bytes that are not UTF-8 as base64.

        Secrets never reach the file. Authorization, Proxy-Authorization, Cookie and Set-Cookie values are written
        as <redacted>; so is every value the reports redact (credential headers and ${VAR} values of 6 characters
        or more), in every form it takes: raw, percent-encoded, JSON-escaped, base64, in URLs, headers and bodies.
        --redact-json hides personal data in JSON bodies and keeps each value's type (a string becomes
        "<redacted>", a number 0), so the recording still passes where the live answer did. A query value recorded
        as <redacted> matches any value of that parameter when replayed.

        Nothing records unless asked: run record on a schedule or by hand, review the file, commit it.

        \(recordOptions.helpSections())
        """
}
