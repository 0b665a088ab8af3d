#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What `tether update` did: the run, every file it changed (or would), and every drift it left.
public struct UpdateReport: Sendable {
    /// The run that got the live responses.
    public var run: RunReport
    /// `--dry-run`: nothing was written.
    public var isDryRun: Bool
    /// The files that changed (or would), in the order of their first target.
    public var changedFiles: [String] = []
    /// One line per target or file that drifted and was not fixed, saying why.
    public var problems: [String] = []
    /// What the console shows, before the summary: errors, diffs (dry run), the files written, problems.
    public var lines: [String] = []

    init(run: RunReport, isDryRun: Bool) {
        self.run = run
        self.isDryRun = isDryRun
    }

    /// 1 when a dry run would change something or a drift was left; else 4 when nothing could be checked, 3 when
    /// some targets could not be, 0 when every checked stub now holds.
    public var exitCode: ExitCode {
        if !problems.isEmpty || (isDryRun && !changedFiles.isEmpty) { return .drift }
        if run.isNothingChecked { return .nothingChecked }
        if run.errorCount > 0 { return .notChecked }
        return .success
    }

    /// The last line: how many files changed and how many drifts were left.
    public var summary: String {
        let files = changedFiles.count == 1 ? "1 file" : "\(changedFiles.count) files"
        var text = isDryRun ? "\(files) would change (dry run: nothing written)" : "\(files) updated"
        if !problems.isEmpty {
            text += ", \(problems.count) not updated (see above)"
        }
        return text
    }

    mutating func apply(_ file: UpdatePlan.File, write: Bool) {
        do throws(JSONFileEdit.Failure) {
            guard let edited = try JSONFileEdit.edited(file.path, changes: file.edits) else { return }
            changedFiles.append(file.path)
            guard write else {
                lines += file.diffLines
                return
            }
            do throws(JSONFileEdit.Failure) {
                try JSONFileEdit.write(edited, to: file.path)
            } catch {
                changedFiles.removeLast()
                throw error
            }
            lines.append("updated \(file.path) (\(file.targets.joined(separator: ", ")))")
        } catch {
            problems.append("cannot update \(file.path): \(error)")
            lines.append(problems[problems.count - 1])
        }
    }
}

/// What `tether update` changes: the new stubs of a run and the rules its targets need, grouped by the file that
/// holds them, and the drifts that cannot be fixed.
///
/// Each stub is merged (`StubMerge`) with the live body of every selected target that uses it, each with that
/// target's rules. A live `null` where the stub has a value is a difference of one target, not of the stub: the stub
/// keeps its value and its type, and that target gets a `nullable` rule in its manifest (`ManifestRuleEdit`, as
/// `learn --write` writes rules). So a sample file that several targets share keeps one text that holds for all of
/// them, and never takes one target's `null`.
struct UpdatePlan {
    /// One stub to rewrite: where, from what, to what, and for which targets.
    struct Change {
        var location: String
        var old: JSONValue
        var new: JSONValue
        var targets: [String]
    }

    /// Rules to add to one target in its manifest.
    struct RulesChange {
        /// The target's location in the manifest (`targets[2]`).
        var location: String
        /// The target's `"rules"` as written (`{}` when it has none).
        var old: JSONValue
        /// Its `"rules"` with the additions.
        var new: JSONValue
        /// The `nullable` paths added.
        var nullable: [JSONPathPattern]
        /// `Service.target`.
        var target: String
    }

    /// One file: its stubs to rewrite, the rules to add to the targets it declares, and the text edits of both.
    struct File {
        var path: String
        var changes: [Change] = []
        var rules: [RulesChange] = []
        /// The values to write, at disjoint locations: each stub not inside a target whose rules change, and each
        /// such target whole (its stub and its rules in one value, edited minimally as one).
        var edits: [JSONTextEdit.Change] = []

        /// The targets this file's changes are for, each once, in the order of the run.
        var targets: [String] = []

        /// What `--dry-run` prints for the file: a structural diff per stub, one per target's rules, the legend.
        var diffLines: [String] {
            var lines: [String] = []
            for change in changes where change.old != change.new {
                lines.append(
                    "--- \(path)\(change.location.isEmpty ? "" : " \(change.location)")  (\(change.targets.joined(separator: ", ")))"
                )
                lines += StubDiff.lines(old: change.old, new: change.new)
            }
            for rule in rules {
                lines.append("--- \(path) \(rule.location).rules  (\(rule.target))")
                lines += StubDiff.lines(old: rule.old, new: rule.new)
            }
            lines.append(StubDiff.legend)
            return lines
        }
    }

    var files: [File] = []
    var problems: [String] = []

    init(
        contracts: [Contract], results: [ContractResult], responses: [Int: HTTPResponse], isStrict: Bool,
        isReplace: Bool, redact: (JSONValue) -> JSONValue
    ) {
        // The stubs to rewrite: of the drifted targets whose body drifted.
        var stubs: [(source: StubSource, old: JSONValue)] = []
        for (index, result) in results.enumerated() where result.outcome == .drifted {
            let contract = result.contract
            let name = "\(contract.service).\(contract.name)"
            guard case .network(let statusCode, let headers) = contract.sampleResponse, let live = responses[index]
            else { continue }
            guard live.statusCode == statusCode else {
                problems.append(
                    "not updated \(name): status: expected \(statusCode), got \(live.statusCode); update rewrites "
                        + "bodies only: fix the request or the stub's status code in \(contract.source)")
                continue
            }
            for finding in ContractCheck.headerFindings(expected: headers, response: live) {
                problems.append(
                    "not updated \(name): \(finding.path): \(finding.message) (update rewrites bodies only)")
            }
            if let valid = contract.validStatusCodes, !valid.contains(live.statusCode) {
                problems.append(
                    "not updated \(name): status \(live.statusCode) is outside the target's validationType "
                        + "(update rewrites bodies only)")
            }
            let bodyDrifts = ContractCheck.bodyFindings(
                stub: contract.sampleData, live: live.body, isStrict: contract.rules.isStrict ?? isStrict,
                rules: contract.rules
            ).filter(\.isDrift)
            guard let firstDrift = bodyDrifts.first else { continue }
            guard case .json(let stub) = contract.sampleData, let source = contract.stubSource else {
                problems.append(
                    "not updated \(name): \(firstDrift.path): \(firstDrift.message) (the stub is not JSON in a "
                        + "contract or sample file; update rewrites JSON stubs only)")
                continue
            }
            if !stubs.contains(where: { Self.isSame($0.source, source) }) {
                stubs.append((source, stub.value))
            }
        }
        let strictness = contracts.map { $0.rules.isStrict ?? isStrict }
        // Each manifest read once, however many of its targets gain rules.
        var manifests: [String: Result<JSONValue, any Error>] = [:]
        // Each stub's new value must hold against the live body of every selected target that uses it, each with
        // that target's rules (and the `nullable` rules it gains).
        for (source, old) in stubs {
            let users = contracts.indices.filter { index in
                guard let other = contracts[index].stubSource, Self.isSame(other, source),
                    case .network(let statusCode, _) = contracts[index].sampleResponse,
                    let live = responses[index], live.statusCode == statusCode
                else { return false }
                return true
            }
            var bodies: [(index: Int, name: String, bytes: Data, value: JSONValue)] = []
            var unreadable: String?
            for index in users {
                let name = "\(contracts[index].service).\(contracts[index].name)"
                guard let body = responses[index]?.body else { continue }
                do {
                    bodies.append((index, name, body, redact(try JSONValue.parse(body))))
                } catch {
                    unreadable = "not updated \(name): the live body is not JSON (\(error))"
                }
            }
            if let unreadable {
                problems.append(unreadable)
                continue
            }
            guard let first = bodies.first else { continue }
            let new =
                isReplace
                ? first.value
                : bodies.reduce(old) {
                    StubMerge.merged(
                        stub: $0, live: $1.value, isStrict: strictness[$1.index], rules: contracts[$1.index].rules)
                }
            // A target's live nulls where the stub keeps a value: rules of that target, not nulls in the stub.
            let nullables = bodies.map {
                StubMerge.nullablePaths(stub: new, live: $0.value, rules: contracts[$0.index].rules)
            }
            let names = bodies.map(\.name)
            let place = source.location.isEmpty ? source.file : "\(source.file) \(source.location)"
            if let (name, drift) = zip(bodies, nullables).lazy.compactMap({ body, paths in
                var rules = contracts[body.index].rules
                rules.nullable += paths
                return ShapeCheck.findings(stub: new, live: body.bytes, strict: strictness[body.index], rules: rules)
                    .first(where: \.isDrift).map { (body.name, $0) }
            }).first {
                if bodies.count == 1 {
                    problems.append(
                        "not updated \(name): \(drift.path): \(drift.message) (no stub can hold: fix \(place) by hand)")
                } else {
                    problems.append(
                        "not updated \(place): shared by \(names.joined(separator: ", ")), whose live bodies disagree "
                            + "(\(name): \(drift.path): \(drift.message)); give each target a stub of its own, or fix it "
                            + "by hand")
                }
                continue
            }
            // The rules each target gains, as edits of its manifest; none of the stub's changes without them.
            var rulesChanges: [(manifest: String, change: RulesChange)] = []
            var unwritable: String?
            for (body, paths) in zip(bodies, nullables) where !paths.isEmpty {
                let contract = contracts[body.index]
                guard let stubSource = contract.stubSource,
                    let location = ManifestRuleEdit.targetLocation(of: stubSource)
                else {
                    unwritable =
                        "not updated \(body.name): \(paths[0]): unexpected null; its stub is not declared in a manifest: "
                        + "add \"nullable\": [\(paths.map { "\"\($0)\"" }.joined(separator: ", "))] to its rules by hand"
                    break
                }
                let manifest = stubSource.manifest
                let read =
                    manifests[manifest]
                    ?? Result { try JSONReader().value(Data(contentsOf: URL(fileURLWithPath: manifest))) }
                manifests[manifest] = read
                guard case .success(let root) = read else {
                    if case .failure(let error) = read {
                        unwritable = "cannot update \(manifest): cannot read it: \(error)"
                    }
                    break
                }
                guard let (_, declared) = JSONTextEdit.find(location, in: root),
                    case .object(let members) = declared,
                    case .object(let written) = ManifestRuleEdit.target(
                        declared, adding: paths.map { (.nullable, $0) })
                else {
                    unwritable =
                        "cannot update \(manifest): no target at \(location) (internal error: please report it)"
                    break
                }
                rulesChanges.append(
                    (
                        manifest,
                        RulesChange(
                            location: location, old: members.first { $0.key == "rules" }?.value ?? .object([]),
                            new: written.first { $0.key == "rules" }?.value ?? .object([]), nullable: paths,
                            target: body.name)
                    ))
            }
            if let unwritable {
                problems.append(unwritable)
                continue
            }
            // Each file names its targets once, in the order they were planned.
            var edited: [(file: Int, target: String)] = []
            let stubFile = position(of: source.file)
            files[stubFile].changes.append(Change(location: source.location, old: old, new: new, targets: names))
            edited += names.map { (stubFile, $0) }
            for (manifest, change) in rulesChanges {
                let rulesFile = position(of: manifest)
                files[rulesFile].rules.append(change)
                edited.append((rulesFile, change.target))
            }
            for (file, target) in edited where !files[file].targets.contains(target) {
                files[file].targets.append(target)
            }
        }
        for position in files.indices {
            files[position].edits = Self.edits(files[position], manifest: manifests[files[position].path])
        }
    }

    /// The position of the file at `path` in `files`, added (last) when it is not there yet.
    private mutating func position(of path: String) -> Int {
        if let position = files.firstIndex(where: { $0.path == path }) { return position }
        files.append(File(path: path))
        return files.count - 1
    }

    /// The text edits of a file: each stub not inside a target whose rules change, and each such target whole,
    /// with its new stub (when inline) and its new rules.
    private static func edits(_ file: File, manifest: Result<JSONValue, any Error>?) -> [JSONTextEdit.Change] {
        let outside = file.changes.filter { change in
            !file.rules.contains { ManifestRuleEdit.isInside(change.location, $0.location) }
        }
        var edits = outside.map { JSONTextEdit.Change(location: $0.location, value: $0.new) }
        guard !file.rules.isEmpty, case .success(var root) = manifest else { return edits }
        for change in file.changes where !outside.contains(where: { $0.location == change.location }) {
            root = ManifestRuleEdit.replacing(change.location, in: root, with: change.new)
        }
        for rule in file.rules {
            guard let (_, declared) = JSONTextEdit.find(rule.location, in: root),
                let target = ManifestRuleEdit.target(declared, adding: rule.nullable.map { (.nullable, $0) })
            else { continue }
            edits.append(JSONTextEdit.Change(location: rule.location, value: target))
        }
        return edits
    }

    /// Whether two targets' stubs are the same bytes: one file, one location.
    static func isSame(_ one: StubSource, _ other: StubSource) -> Bool {
        one.location == other.location
            && (one.file == other.file
                || (one.file.resolvedPath ?? one.file) == (other.file.resolvedPath ?? other.file))
    }
}
