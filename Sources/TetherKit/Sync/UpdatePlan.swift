import Foundation

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
        let changes = file.changes.map { JSONTextEdit.Change(location: $0.location, value: $0.new) }
        do throws(JSONFileEdit.Failure) {
            guard let edited = try JSONFileEdit.edited(file.path, changes: changes) else { return }
            changedFiles.append(file.path)
            guard write else {
                for change in file.changes {
                    lines.append(
                        "--- \(file.path)\(change.location.isEmpty ? "" : " \(change.location)")  (\(change.targets.joined(separator: ", ")))"
                    )
                    lines += StubDiff.lines(old: change.old, new: change.new)
                }
                lines.append(StubDiff.legend)
                return
            }
            do throws(JSONFileEdit.Failure) {
                try JSONFileEdit.write(edited, to: file.path)
            } catch {
                changedFiles.removeLast()
                throw error
            }
            lines.append("updated \(file.path) (\(file.changes.flatMap(\.targets).joined(separator: ", ")))")
        } catch {
            problems.append("cannot update \(file.path): \(error)")
            lines.append(problems[problems.count - 1])
        }
    }
}

/// The new stubs of a run, grouped by the file that holds them, and the drifts that cannot be fixed.
struct UpdatePlan {
    /// One stub to rewrite: where, from what, to what, and for which targets.
    struct Change {
        var location: String
        var old: JSONValue
        var new: JSONValue
        var targets: [String]
    }

    /// One file and its stubs to rewrite.
    struct File {
        var path: String
        var changes: [Change]
    }

    var files: [File] = []
    var problems: [String] = []

    init(
        contracts: [Contract], results: [ContractResult], responses: [Int: HTTPResponse], isStrict: Bool,
        isReplace: Bool, redact: (JSONValue) -> JSONValue
    ) {
        // The stubs to rewrite: of the drifted targets whose body drifted.
        // With the rules and strictness of the first target that uses it (a shared stub's targets usually agree).
        var stubs: [(source: StubSource, old: JSONValue, rules: ContractRules, isStrict: Bool)] = []
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
                stubs.append((source, stub.value, contract.rules, contract.rules.isStrict ?? isStrict))
            }
        }
        // Each stub's new value must hold against the live body of every selected target that uses it.
        var byFile: [String: Int] = [:]
        for (source, old, rules, isStrict) in stubs {
            let users = contracts.indices.filter { index in
                guard let other = contracts[index].stubSource, Self.isSame(other, source),
                    case .network(let statusCode, _) = contracts[index].sampleResponse,
                    let live = responses[index], live.statusCode == statusCode
                else { return false }
                return true
            }
            let names = users.map { "\(contracts[$0].service).\(contracts[$0].name)" }
            var bodies: [(name: String, bytes: Data, value: JSONValue)] = []
            var unreadable: String?
            for (name, index) in zip(names, users) {
                guard let body = responses[index]?.body else { continue }
                do {
                    bodies.append((name, body, redact(try JSONValue.parse(body))))
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
                : bodies.reduce(old) { StubMerge.merged(stub: $0, live: $1.value, isStrict: isStrict, rules: rules) }
            let place = source.location.isEmpty ? source.file : "\(source.file) \(source.location)"
            if let (name, drift) = bodies.lazy.compactMap({ body in
                ShapeCheck.findings(stub: new, live: body.bytes, strict: isStrict, rules: rules).first(where: \.isDrift)
                    .map {
                        (body.name, $0)
                    }
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
            let change = Change(location: source.location, old: old, new: new, targets: names)
            if let position = byFile[source.file] {
                files[position].changes.append(change)
            } else {
                byFile[source.file] = files.count
                files.append(File(path: source.file, changes: [change]))
            }
        }
    }

    /// Whether two targets' stubs are the same bytes: one file, one location.
    static func isSame(_ one: StubSource, _ other: StubSource) -> Bool {
        one.location == other.location
            && (one.file == other.file
                || (one.file as NSString).standardizingPath == (other.file as NSString).standardizingPath)
    }
}
