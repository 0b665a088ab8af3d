import Foundation
import FuzzSupport
import TetherKit

// `tether learn`'s proposals on arbitrary stubs and answers. Input: a stub, then (each after a `=====` line) up to
// eight live bodies; parts that are not JSON are left out. Besides not crashing, learning keeps its promises:
// - every proposal is a rule the stub accepts (`ContractRules.problems` finds nothing: a path that names a key of
//   the stub, never a typo), and no path is proposed twice for one rule;
// - the proposals only ever take findings away: with them applied, every drift against an answer was a drift
//   without them (maps aside, which move findings into the map's values);
// - learning is idempotent: with its proposals applied, learning from the same answers proposes nothing more;
// - the evidence never quotes a live value: it is counts and the stub's own keys.

/// libFuzzer's entry: one input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var parts: [Data] = []
    var rest = fuzzData(bytes, size)
    while parts.count < 9 {
        let (first, remainder) = splitParts(rest)
        parts.append(first)
        guard !remainder.isEmpty else { break }
        rest = remainder
    }
    guard let stub = try? JSONValue.parse(parts[0]) else { return 0 }
    let answers = parts.dropFirst().compactMap { part in (try? JSONValue.parse(part)).map { (part, $0) } }
    let proposals = RuleLearner.proposals(stub: stub, rules: ContractRules(), samples: answers.map(\.1))

    var seen = Set<String>()
    for proposal in proposals where !seen.insert("\(proposal.rule) \(proposal.path)").inserted {
        violated("no path is proposed twice for one rule", "\(proposals)")
    }
    let rules = applied(proposals, to: ContractRules())
    let problems = rules.problems(stub: .json(stub))
    if !problems.isEmpty { violated("every proposal is a rule the stub accepts", "\(problems)\n\(proposals)") }
    for proposal in proposals {
        guard (try? JSONPathPattern(proposal.path.description))?.steps == proposal.path.steps else {
            violated("a proposed path reads back as itself", "\(proposal.path)")
        }
        for (bytes, value) in answers where isQuotable(value) {
            // A string value of 3+ characters that the stub does not have must not show in the evidence, quoted as
            // the evidence quotes what it names (the stub's keys). Unquoted, a live ": 2" was "found" in the
            // evidence's own words ("one shape: 2 different key sets"), a fault of this oracle that CI hit.
            for text in strings(in: value) where text.count >= 3 && !strings(in: stub).contains(text) {
                if proposal.evidence.contains("\"" + text + "\"") {
                    violated(
                        "the evidence never quotes a live value",
                        "\(proposal.evidence)\n\(String(decoding: bytes, as: UTF8.self))")
                }
            }
        }
    }

    if !proposals.contains(where: { $0.rule == .maps }) {
        for (bytes, _) in answers {
            let before = Set(drifts(stub, bytes, ContractRules()))
            let after = drifts(stub, bytes, rules)
            if let added = after.first(where: { !before.contains($0) }) {
                violated("proposals only take findings away", "\(added)\nproposals: \(proposals)")
            }
        }
    }
    let again = RuleLearner.proposals(stub: stub, rules: rules, samples: answers.map(\.1))
    if !again.isEmpty { violated("learning is idempotent", "first: \(proposals)\nthen: \(again)") }
    return 0
}

private func applied(_ proposals: [RuleProposal], to base: ContractRules) -> ContractRules {
    var rules = base
    for proposal in proposals {
        switch proposal.rule {
        case .optional: rules.optional.append(proposal.path)
        case .nullable: rules.nullable.append(proposal.path)
        case .maps: rules.maps.append(proposal.path)
        }
    }
    return rules
}

private func drifts(_ stub: JSONValue, _ live: Data, _ rules: ContractRules) -> [String] {
    ShapeCheck.findings(stub: stub, live: live, strict: false, rules: rules).filter(\.isDrift).map {
        "\($0.path): \($0.message)"
    }
}

/// Whether checking the evidence for a value's strings is cheap enough (small answers only).
private func isQuotable(_ value: JSONValue) -> Bool { strings(in: value).count < 64 }

private func strings(in value: JSONValue) -> Set<String> {
    var found = Set<String>()
    var pending = [value]
    while let next = pending.popLast() {
        switch next {
        case .string(let text): found.insert(text)
        case .array(let elements): pending += elements
        case .object(let members): pending += members.map(\.value)
        default: continue
        }
    }
    return found
}
