import TetherKit

/// `tether update`'s arguments: verify's (how to reach the service, which targets, strictness, transport), plus its
/// own.
struct UpdateArguments {
    /// Paths, `--base-url`, `--mock`, `--filter`, `--strict` and the transport options, read by verify's own table.
    var verify = VerifyArguments()
    /// `--dry-run`: print what would change, write nothing.
    var isDryRun = false
    /// `--replace`: write the whole live body instead of the minimal change.
    var isReplace = false
    /// `--redact-json PATH` patterns.
    var redactJSON: [JSONPathPattern] = []
}

extension TetherCommand {
    /// `tether update`: rewrites drifted stubs to what the service answers.
    static let update: TetherCommand = .init(
        names: ["update"], usage: "tether update [PATH ...] [OPTIONS]",
        summary: "rewrite drifted stubs to match the live service, as minimal edits (--dry-run: show them)",
        helpText: { Help.update }, parse: parseUpdate)
}

private func parseUpdate(_ arguments: ArraySlice<String>) throws(UsageError) -> Command {
    switch try updateOptions.parse(arguments, into: UpdateArguments()) {
    case .help: return .help(Help.update)
    case .parsed(var result):
        if result.verify.paths.isEmpty { result.verify.paths = ["contracts"] }
        return .update(result)
    }
}

/// The section of update's own options.
extension HelpSection {
    /// `--dry-run`, `--replace`.
    static let update = HelpSection(title: "UPDATE")
}

/// Every option of `tether update`: verify's run options (`verifyRunOptions`: update writes stubs, not reports, and
/// has no gate to pass: it rewrites what drifted), then its own.
let updateOptions = OptionTable<UpdateArguments>(
    command: "update",
    options: verifyRunOptions(\UpdateArguments.verify)
        + [
            .flag(
                "--dry-run", section: .update,
                help: "print, per file, what would change (- stub, + live); write nothing; exit 1 when something would"
            ) { $0.isDryRun = true },
            .flag(
                "--replace", section: .update,
                help: "write the whole live body as the stub (as re-recording a snapshot), not the minimal change"
            ) { $0.isReplace = true },
            .redactJSON(section: .update, into: \UpdateArguments.redactJSON),
            .help,
        ],
    operand: { arguments, path in arguments.verify.paths.append(path) })

/// Verify's options for a command that makes one run of its own and writes no report (`update`, `learn`): where
/// requests go, which targets, the rules, the transport; not the report and gate options, nor `--shard` and
/// `--timings` (which split a run across CI jobs: a command that rewrites files needs every target's answers).
func verifyRunOptions<Outer>(_ path: WritableKeyPath<Outer, VerifyArguments> & Sendable) -> [Option<Outer>] {
    verifyOptions.options.filter { option in
        option.section != .output && option.section != .gate && option.section != nil
            && !option.names.contains("--shard") && !option.names.contains("--timings")
    }.map { $0.lifted(path) }
}
