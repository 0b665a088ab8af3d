#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// How `tether learn --write` and `tether update` add rules to a target in the manifest that declares it: the target's
/// object with its `"rules"` gaining the paths (lists created where missing, after the keys already there), written
/// as a minimal edit of the target (`JSONFileEdit`), so that its line gains `"rules": {"nullable": ["$.company"]}` and
/// every other byte stays. The one home of that policy.
enum ManifestRuleEdit {
    /// The location in its manifest of the target that declares `source` (`targets[2]`), or `nil` when the stub is not
    /// declared by a manifest's target.
    static func targetLocation(of source: StubSource?) -> String? {
        guard let source, source.manifestLocation.hasSuffix(".sampleData") else { return nil }
        return String(source.manifestLocation.dropLast(".sampleData".count))
    }

    /// A target's `"rules"` object with `paths` added to its `optional`, `nullable` and `maps` lists (created where
    /// missing, after the keys already there; a path already listed is not added again).
    /// - Parameters:
    ///   - paths: The rules to add, in order.
    ///   - rules: The target's `"rules"` as written, or `nil`.
    /// - Returns: The new `"rules"` object.
    static func adding(_ paths: [(rule: RuleProposal.Rule, path: JSONPathPattern)], to rules: JSONValue?) -> JSONValue {
        var members: [JSONMember] = []
        if case .object(let existing) = rules { members = existing }
        for rule in RuleProposal.Rule.allCases {
            var added: [JSONValue] = []
            for entry in paths where entry.rule == rule {
                let text = JSONValue.string(entry.path.description)
                if !added.contains(text) { added.append(text) }
            }
            guard !added.isEmpty else { continue }
            if let position = members.firstIndex(where: { $0.key == rule.rawValue }),
                case .array(let listed) = members[position].value
            {
                members[position].value = .array(listed + added.filter { !listed.contains($0) })
            } else {
                members.append(JSONMember(rule.rawValue, .array(added)))
            }
        }
        return .object(members)
    }

    /// A target's object (as its manifest declares it) with `paths` added to its `"rules"`, or `nil` when it is not
    /// an object.
    static func target(_ declared: JSONValue, adding paths: [(rule: RuleProposal.Rule, path: JSONPathPattern)])
        -> JSONValue?
    {
        guard case .object(var members) = declared else { return nil }
        let rules = adding(paths, to: members.first { $0.key == "rules" }?.value)
        if let position = members.firstIndex(where: { $0.key == "rules" }) {
            members[position].value = rules
        } else {
            members.append(JSONMember("rules", rules))
        }
        return .object(members)
    }

    /// `value` with the value at `location` (relative to `value`, as `JSONTextEdit.find` reads locations:
    /// `targets[2].sampleData.json`) replaced by `new`; `value` itself when nothing is there.
    static func replacing(_ location: String, in value: JSONValue, with new: JSONValue, at path: String = "")
        -> JSONValue
    {
        if path == location { return new }
        guard location.hasPrefix(path) else { return value }
        switch value {
        case .object(let members):
            return .object(
                members.map { member in
                    var childPath = path
                    JSONPath.appendKey(member.key, to: &childPath)
                    if path.isEmpty && childPath.hasPrefix(".") { childPath.removeFirst() }
                    return JSONMember(member.key, replacing(location, in: member.value, with: new, at: childPath))
                })
        case .array(let elements):
            return .array(
                elements.enumerated().map { offset, element in
                    replacing(location, in: element, with: new, at: "\(path)[\(offset)]")
                })
        default:
            return value
        }
    }

    /// Whether `location` lies inside the value at `outer` (`targets[2].sampleData.json` inside `targets[2]`).
    static func isInside(_ location: String, _ outer: String) -> Bool {
        location.hasPrefix(outer + ".") || location.hasPrefix(outer + "[")
    }
}
