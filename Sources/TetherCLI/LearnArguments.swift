import TetherKit

/// `tether learn`'s arguments: verify's (how to reach the service, which targets, strictness, transport), plus its
/// own.
struct LearnArguments {
    /// Paths, `--base-url`, `--mock`, `--filter`, `--strict` and the transport options, read by verify's own table.
    var verify = VerifyArguments()
    /// `--samples N`; `nil` until given (the default depends on `--har`).
    var samples: Int?
    /// `--pause SECONDS` between rounds.
    var pause: Double = 0
    /// `--har FILE`, repeatable.
    var harFiles: [String] = []
    /// `--write`.
    var isWriting = false

    /// How many rounds of calls: `--samples`, else 3, or 0 when HAR files are given (they are then the only source,
    /// unless `--samples` asks for calls too).
    var sampleCount: Int { samples ?? (harFiles.isEmpty ? 3 : 0) }
}

extension TetherCommand {
    /// `tether learn`: proposes rules from several live answers.
    static let learn: TetherCommand = .init(
        names: ["learn"], usage: "tether learn [PATH ...] [--samples N] [--har FILE ...] [--write] [OPTIONS]",
        summary: "call each target several times (or read HAR files) and propose the rules its stub needs",
        helpText: { Help.learn }, parse: parseLearn)
}

private func parseLearn(_ arguments: ArraySlice<String>) throws(UsageError) -> Command {
    switch try learnOptions.parse(arguments, into: LearnArguments()) {
    case .help: return .help(Help.learn)
    case .parsed(var result):
        if result.verify.paths.isEmpty { result.verify.paths = ["contracts"] }
        if result.sampleCount == 0, result.harFiles.isEmpty {
            throw UsageError("learn: --samples 0 and no --har FILE: nothing to learn from")
        }
        return .learn(result)
    }
}

/// The section of learn's own options.
extension HelpSection {
    /// `--samples`, `--pause`, `--har`, `--write`.
    static let learn = HelpSection(title: "LEARN")
}

/// Every option of `tether learn`: verify's run options (`verifyRunOptions`: learn proposes rules; it has no
/// report or gate), then its own.
let learnOptions = OptionTable<LearnArguments>(
    command: "learn",
    options: verifyRunOptions(\LearnArguments.verify)
        + [
            .value(
                "--samples", "N", section: .learn,
                help: "call every target N times (0: learn from --har only)", defaultValue: "3, or 0 with --har"
            ) { arguments, text throws(InvalidValue) in
                arguments.samples = try ValueReader.wholeNumber(text, in: 0...1000)
            },
            .value(
                "--pause", "SECONDS", section: .learn, help: "wait between two rounds of calls (e.g. 0.5)",
                defaultValue: "0"
            ) { arguments, text throws(InvalidValue) in
                arguments.pause = try ValueReader.seconds(text, in: 0...3600)
            },
            .value(
                "--har", "FILE", section: .learn,
                help: "learn from every entry of this HAR file that matches a target's request too",
                isRepeatable: true
            ) { arguments, text throws(InvalidValue) in
                arguments.harFiles.append(text)
            },
            .flag(
                "--write", section: .learn,
                help: "add the proposed rules to the targets' \"rules\" in their manifests (minimal edits)"
            ) { $0.isWriting = true },
            .help,
        ],
    operand: { arguments, path in arguments.verify.paths.append(path) })
