#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One live answer of a target: called, or read from a HAR file.
struct Answer {
    var status: Int
    var body: Data
}

/// What learning found for one target: its proposals with their evidence, and the drifts no rule may fix.
public struct TargetLearning: Sendable {
    /// The target.
    public var contract: Contract
    /// How many answers were learned from (those with the stub's status and a JSON body).
    public var responseCount: Int
    /// The rules proposed, in the stub's order.
    public var proposals: [RuleProposal]
    /// Drifts left with the proposals applied (`path: message`, redacted), each once.
    public var drifts: [String]
    /// Why nothing was learned (no JSON stub, no answer, an error), or `nil`.
    public var skipped: String?
    /// Whether the target has a JSON stub to learn for (a `networkError` or text stub has none: not a failure).
    public var isLearnable = false

    init(contract: Contract, answers: [Answer], error: String?, isStrict: Bool) {
        self.contract = contract
        responseCount = 0
        proposals = []
        drifts = []
        skipped = nil
        guard case .network(let statusCode, _) = contract.sampleResponse else {
            skipped = "not learned: the stub is a network error, with no body to learn from"
            return
        }
        guard case .json(let stub) = contract.sampleData else {
            skipped = "not learned: the stub has no JSON body (learn proposes rules for JSON stubs)"
            return
        }
        isLearnable = true
        let statuses = contract.rules.status ?? [statusCode]
        var bodies: [(bytes: Data, value: JSONValue)] = []
        var otherStatuses: [Int] = []
        var notJSON = 0
        for answer in answers {
            guard statuses.contains(answer.status) else {
                otherStatuses.append(answer.status)
                continue
            }
            guard let value = try? JSONValue.parse(answer.body) else {
                notJSON += 1
                continue
            }
            bodies.append((answer.body, value))
        }
        responseCount = bodies.count
        if !otherStatuses.isEmpty {
            let list = Set(otherStatuses).sorted().map(String.init).joined(separator: ", ")
            drifts.append(
                "status: \(otherStatuses.count) of \(answers.count) answers had status \(list), not "
                    + "\(statuses.map(String.init).joined(separator: " or ")) (not learned from)")
        }
        if notJSON > 0 {
            drifts.append("body: \(notJSON) of \(answers.count) answers were not JSON (not learned from)")
        }
        guard !bodies.isEmpty else {
            skipped =
                "not learned: "
                + (error
                    ?? "no answer with status \(statuses.map(String.init).joined(separator: " or ")) and a JSON body")
            return
        }
        proposals = RuleLearner.proposals(stub: stub.value, rules: contract.rules, samples: bodies.map(\.value))
        var rules = contract.rules
        for proposal in proposals {
            switch proposal.rule {
            case .optional: rules.optional.append(proposal.path)
            case .nullable: rules.nullable.append(proposal.path)
            case .maps: rules.maps.append(proposal.path)
            }
        }
        var seen: Set<String> = []
        for body in bodies {
            for finding in ContractCheck.bodyFindings(
                stub: contract.sampleData, live: body.bytes, isStrict: isStrict, rules: rules)
            where finding.isDrift {
                let text = "\(finding.path): \(finding.message)"
                if seen.insert(text).inserted { drifts.append(text) }
            }
        }
    }

    /// The console lines: the target, each proposal with its evidence, each drift left.
    func lines(redactor: Redactor) -> [String] {
        let name = "\(contract.service).\(contract.name)"
        if let skipped {
            return [redactor.redact("SKIP  \(name)  \(skipped)")] + drifts.map { "  drift  " + redactor.redact($0) }
        }
        let answers = responseCount == 1 ? "1 response" : "\(responseCount) responses"
        var lines: [String] = []
        if proposals.isEmpty, drifts.isEmpty {
            lines.append("OK    \(name)  holds against \(answers): nothing to propose")
        } else {
            lines.append("\(proposals.isEmpty ? "DRIFT" : "LEARN") \(name)  \(answers)")
        }
        let width = proposals.map(\.path.description.count).max() ?? 0
        for proposal in proposals {
            let padded = proposal.path.description.padded(toLength: width)
            lines.append(
                redactor.redact(
                    "  + \(proposal.rule.rawValue.padded(toLength: 8)) \(padded)  "
                        + proposal.evidence))
        }
        for drift in drifts {
            lines.append("  drift  " + redactor.redact(drift))
        }
        if !drifts.isEmpty {
            lines.append(
                "  (learn proposes only optional, nullable and maps; a drift above is a change of the API: "
                    + "see 'tether update --dry-run')")
        }
        return lines.map(ReportText.escapingControls)
    }
}

/// What `tether learn` did.
public struct LearnReport: Sendable {
    /// `--write`.
    public var isWriting: Bool
    /// One entry per selected target, in order.
    public var targets: [TargetLearning] = []
    /// The manifests written (with `--write`).
    public var writtenFiles: [String] = []
    /// Files that could not be written, saying why.
    public var problems: [String] = []
    /// The lines `--write` printed.
    var writeLines: [String] = []

    init(isWriting: Bool) {
        self.isWriting = isWriting
    }

    /// Every proposal, with its target.
    public var proposalCount: Int { targets.map(\.proposals.count).reduce(0, +) }

    /// 1 when there are proposals not written, drifts left or files not written; else 4 when no target with a JSON
    /// stub had an answer to learn from (or none has a JSON stub), 3 when some had none; else 0.
    public var exitCode: ExitCode {
        if (!isWriting && proposalCount > 0) || targets.contains(where: { !$0.drifts.isEmpty }) || !problems.isEmpty {
            return .drift
        }
        let learnable = targets.filter(\.isLearnable)
        if learnable.allSatisfy({ $0.responseCount == 0 }) { return .nothingChecked }
        if learnable.contains(where: { $0.responseCount == 0 }) { return .notChecked }
        return .success
    }

    /// The last line.
    public var summary: String {
        let count = proposalCount == 1 ? "1 rule" : "\(proposalCount) rules"
        let withProposals = targets.filter { !$0.proposals.isEmpty }.count
        let learned = targets.filter { $0.responseCount > 0 }.count
        let of = "\(withProposals) of \(learned) \(learned == 1 ? "target" : "targets")"
        var text: String
        if proposalCount == 0 {
            text = "nothing to propose (\(learned) \(learned == 1 ? "target" : "targets") learned from)"
        } else if isWriting {
            let files = writtenFiles.count == 1 ? "1 manifest" : "\(writtenFiles.count) manifests"
            text = "\(count) for \(of) written to \(files)"
        } else {
            text = "\(count) proposed for \(of); review them, then run again with --write to add them to the manifests"
        }
        let drifted = targets.filter { !$0.drifts.isEmpty }.count
        if drifted > 0 { text += "; \(drifted) \(drifted == 1 ? "target has" : "targets have") drift no rule may hide" }
        let skipped = targets.filter { $0.skipped != nil }.count
        if skipped > 0 { text += "; \(skipped) not learned (see SKIP)" }
        if !problems.isEmpty { text += "; \(problems.count) not written (see above)" }
        return text
    }

    /// Adds every proposal to its target's `"rules"` in its manifest: one edit per target, one write per manifest.
    mutating func writeProposals(redactor: Redactor) {
        var byFile: [(file: String, changes: [JSONTextEdit.Change], names: [String])] = []
        // Each manifest read once, however many of its targets have proposals.
        var manifests: [String: Result<JSONValue, any Error>] = [:]
        for target in targets where !target.proposals.isEmpty {
            let name = "\(target.contract.service).\(target.contract.name)"
            guard let source = target.contract.stubSource, let location = ManifestRuleEdit.targetLocation(of: source)
            else {
                problems.append("not written \(name): its stub is not declared in a manifest; add the rules by hand")
                continue
            }
            let read =
                manifests[source.manifest]
                ?? Result { try JSONReader().value(Data(contentsOf: URL(fileURLWithPath: source.manifest))) }
            manifests[source.manifest] = read
            let root: JSONValue
            switch read {
            case .success(let value): root = value
            case .failure(let error):
                problems.append("cannot update \(source.manifest): cannot read it: \(error)")
                continue
            }
            guard let (_, declared) = JSONTextEdit.find(location, in: root),
                let written = ManifestRuleEdit.target(declared, adding: target.proposals.map { ($0.rule, $0.path) })
            else {
                problems.append(
                    "cannot update \(source.manifest): no target at \(location) (internal error: please report it)")
                continue
            }
            let change = JSONTextEdit.Change(location: location, value: written)
            if let position = byFile.firstIndex(where: { $0.file == source.manifest }) {
                byFile[position].changes.append(change)
                byFile[position].names.append(name)
            } else {
                byFile.append((source.manifest, [change], [name]))
            }
        }
        for (file, changes, names) in byFile {
            do throws(JSONFileEdit.Failure) {
                guard let edited = try JSONFileEdit.edited(file, changes: changes) else { continue }
                try JSONFileEdit.write(edited, to: file)
                writtenFiles.append(file)
                writeLines.append("updated \(file) (\(names.joined(separator: ", ")))")
            } catch {
                problems.append("cannot update \(file): \(error)")
            }
        }
        writeLines += problems.map(redactor.redact)
    }
}
