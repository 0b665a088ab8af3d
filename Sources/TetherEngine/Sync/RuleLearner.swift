#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One rule `tether learn` proposes for a target, with the evidence for it.
public struct RuleProposal: Sendable, Equatable {
    /// The only rules learning proposes: what varies between answers of one API without changing its types.
    public enum Rule: String, Sendable, Equatable, CaseIterable {
        /// A key absent from some answers.
        case optional
        /// A value `null` in some answers, typed in the others.
        case nullable
        /// An object keyed by ids: its keys differ between answers, its values keep one shape.
        case maps
    }

    /// Which rule.
    public var rule: Rule
    /// Where.
    public var path: JSONPathPattern
    /// Why, in counts of the answers: `absent in 2 of 5 responses (3 of 12 values)`. Never a live value.
    public var evidence: String
}

/// Proposes the rules that make a stub hold against a set of live answers of its target, and nothing else: a key
/// absent in some answers (and present in others) is `optional`, a value `null` in some (and typed in others) is
/// `nullable`, an object whose keys all look like ids and differ between answers is a map (`maps`), and so is one
/// whose keys differ between answers as ids do while its values keep one shape (`u7`, then `u9` and `u3`, then none
/// at all: `{}`), even when the stub's own key never comes back. A key absent
/// from every answer, a value `null` in every answer, a changed type: these are changes of the API, not variation,
/// and no rule is proposed for them (the structure check reports them); `ignore` is never proposed.
///
/// The walk follows the stub as the structure check compiles it: array elements (the stub's and the live ones)
/// merge at `[*]`, a map's values at `[*]`; the target's own rules are respected (an ignored path is not entered,
/// a path already optional or nullable is not proposed again, an existing map is walked as one).
public enum RuleLearner {
    /// The proposals for one target, in the stub's order (outer before inner).
    /// - Parameters:
    ///   - stub: The target's JSON stub.
    ///   - rules: The rules it is checked with today (service defaults merged).
    ///   - samples: The live bodies, parsed, one per answer.
    public static func proposals(stub: JSONValue, rules: ContractRules, samples: [JSONValue]) -> [RuleProposal] {
        var walk = Walk(rules: rules, responseCount: samples.count)
        walk.visit(
            stubs: [stub], live: samples.enumerated().map { Occurrence(response: $0.offset, value: $0.element) },
            path: [])
        return walk.proposals
    }

    /// A live value at a position, and which answer it came from.
    struct Occurrence {
        var response: Int
        var value: JSONValue
    }

    /// Whether a map key looks like an id rather than a field name: digits (`1017`), a UUID, 8 or more hex
    /// characters with a digit (`9f86d081`), or a word, a separator and digits (`user_42`, `sku-1001`).
    public static func isIDLike(_ key: String) -> Bool {
        let bytes = Array(key.utf8)
        guard !bytes.isEmpty else { return false }
        func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
        if bytes.allSatisfy(isDigit) { return true }
        if bytes.count == 36,
            bytes.enumerated().allSatisfy({
                [8, 13, 18, 23].contains($0.offset) ? $0.element == 0x2D : $0.element.isASCIIHexDigit
            })
        {
            return true
        }
        if bytes.count >= 8, bytes.allSatisfy(\.isASCIIHexDigit), bytes.contains(where: isDigit) { return true }
        if let separator = bytes.lastIndex(where: { $0 == 0x5F || $0 == 0x2D || $0 == 0x3A }), separator > 0,
            separator < bytes.count - 1, bytes[(separator + 1)...].allSatisfy(isDigit)
        {
            return bytes[..<separator].allSatisfy { ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || isDigit($0) }
        }
        return false
    }

    private struct Walk {
        let rules: ContractRules
        let responseCount: Int
        var proposals: [RuleProposal] = []

        init(rules: ContractRules, responseCount: Int) {
            self.rules = rules
            self.responseCount = responseCount
        }

        mutating func visit(stubs: [JSONValue], live: [Occurrence], path: [JSONPathPattern.Step]) {
            guard !rules.ignore.namesShapePosition(path) else { return }
            let typedStubs = stubs.filter { $0 != .null }
            // A stub that is only null shows no type to hold the live value to: nothing to learn below it.
            guard let first = typedStubs.first else { return }
            let typed = live.filter { $0.value != .null }
            let nulls = live.count - typed.count
            if nulls > 0, !typed.isEmpty, typedStubs.count == stubs.count, !rules.nullable.namesShapePosition(path) {
                propose(
                    .nullable, path, "null in " + evidence(live.filter { $0.value == .null }, of: live, path: path))
            }
            switch first {
            case .object:
                let objects = typedStubs.compactMap(\.members)
                let liveObjects = typed.compactMap { occurrence in
                    occurrence.value.members.map { (occurrence.response, $0) }
                }
                var isMap = rules.maps.namesShapePosition(path)
                if !isMap, let evidence = mapEvidence(stub: objects, live: liveObjects.map(\.1)) {
                    propose(.maps, path, evidence)
                    isMap = true
                }
                if isMap {
                    visit(
                        stubs: objects.flatMap { $0.map(\.value) },
                        live: liveObjects.flatMap { response, members in
                            members.map { Occurrence(response: response, value: $0.value) }
                        },
                        path: path + [.any])
                    return
                }
                let liveByKey = liveObjects.map { response, members in
                    (response, Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first }))
                }
                var keys: [String] = []
                var seen: Set<String> = []
                for members in objects {
                    for member in members where seen.insert(member.key).inserted { keys.append(member.key) }
                }
                for key in keys {
                    let keyPath = path + [.key(key)]
                    let stubValues = objects.compactMap { members in members.first { $0.key == key }?.value }
                    var present: [Occurrence] = []
                    var absent: [Occurrence] = []
                    for (response, byKey) in liveByKey {
                        if let value = byKey[key] {
                            present.append(Occurrence(response: response, value: value))
                        } else {
                            absent.append(Occurrence(response: response, value: .null))
                        }
                    }
                    // A key only some stub elements have is optional already (the elements' shapes merge).
                    let isOptional =
                        stubValues.count < objects.count || rules.optional.namesShapePosition(keyPath)
                        || rules.ignore.namesShapePosition(keyPath)
                    if !isOptional, !absent.isEmpty, !present.isEmpty {
                        let all = present + absent
                        propose(.optional, keyPath, "absent in " + evidence(absent, of: all, path: keyPath))
                    }
                    visit(stubs: stubValues, live: present, path: keyPath)
                }
            case .array:
                let elements = typedStubs.flatMap { $0.elements ?? [] }
                guard !elements.isEmpty else { return }
                visit(
                    stubs: elements,
                    live: typed.flatMap { occurrence in
                        (occurrence.value.elements ?? []).map { Occurrence(response: occurrence.response, value: $0) }
                    },
                    path: path + [.any])
            default:
                return
            }
        }

        mutating func propose(_ rule: RuleProposal.Rule, _ path: [JSONPathPattern.Step], _ evidence: String) {
            proposals.append(RuleProposal(rule: rule, path: JSONPathPattern(steps: path), evidence: evidence))
        }

        /// `2 of 5 responses`, and for a position inside arrays or maps (many values per answer) also
        /// `(3 of 12 values)`.
        func evidence(_ some: [Occurrence], of all: [Occurrence], path: [JSONPathPattern.Step]) -> String {
            let responses = Set(some.map(\.response)).count
            var text = "\(responses) of \(responseCount) \(responseCount == 1 ? "response" : "responses")"
            if path.contains(.any) { text += " (\(some.count) of \(all.count) values)" }
            return text
        }

        /// Why the object at a position is a map, or `nil`. Either every key of the stub's objects and the live ones
        /// looks like an id and the live key sets are not all the stub's; or, whatever the keys look like, they
        /// differ between answers as a map's do while every value has one shape: the live answers have at least two
        /// different key sets, bring keys the stub lacks, no key is in every object (the stub's and the live ones),
        /// and the values (the stub's and the live ones) merge into one shape (`isOneShape`). An empty answer (`{}`)
        /// and a stub key that never comes back are a map's nature then, not a missing key.
        func mapEvidence(stub: [[JSONMember]], live: [[JSONMember]]) -> String? {
            let stubKeys = Set(stub.flatMap { $0.map(\.key) })
            guard !stubKeys.isEmpty, !live.isEmpty else { return nil }
            let liveKeySets = live.map { Set($0.map(\.key)) }
            let distinct = Set(liveKeySets).count
            let why: String
            if stubKeys.allSatisfy(RuleLearner.isIDLike),
                liveKeySets.allSatisfy({ $0.allSatisfy(RuleLearner.isIDLike) }),
                liveKeySets.contains(where: { $0 != stubKeys })
            {
                why = "keys look like ids and differ"
            } else if distinct > 1, liveKeySets.contains(where: { !$0.isSubset(of: stubKeys) }),
                (stub.map { Set($0.map(\.key)) } + liveKeySets).reduce(stubKeys, { $0.intersection($1) }).isEmpty,
                RuleLearner.isOneShape(stub.flatMap { $0.map(\.value) } + live.flatMap { $0.map(\.value) })
            {
                why = "keys differ between answers and every value has one shape"
            } else {
                return nil
            }
            let example = stubKeys.sorted().prefix(2).map { "\"\($0)\"" }.joined(separator: ", ")
            let objects = live.count == 1 ? "1 object" : "\(live.count) objects"
            return "\(why): \(distinct) different key \(distinct == 1 ? "set" : "sets") in "
                + "\(objects) (the stub's: \(example)\(stubKeys.count > 2 ? ", …" : ""))"
        }
    }

    /// Whether values merge into one shape, as a map's values must: every value that is not `null` has one type
    /// (integers and fractions are both numbers), and so, all the way down, do the values under each key of the
    /// objects and the elements of the arrays.
    static func isOneShape(_ values: [JSONValue]) -> Bool {
        guard !values.isEmpty else { return true }
        var type: String?
        var members: [String: [JSONValue]] = [:]
        var elements: [JSONValue] = []
        for value in values {
            let name: String
            switch value {
            case .null: continue
            case .bool: name = "boolean"
            case .integer, .unsignedInteger, .double: name = "number"
            case .string: name = "string"
            case .array(let items):
                name = "array"
                elements += items
            case .object(let pairs):
                name = "object"
                for pair in pairs { members[pair.key, default: []].append(pair.value) }
            }
            guard type == nil || type == name else { return false }
            type = name
        }
        return isOneShape(elements) && members.values.allSatisfy(isOneShape)
    }
}

extension JSONValue {
    /// An object's members, or `nil`.
    fileprivate var members: [JSONMember]? {
        guard case .object(let members) = self else { return nil }
        return members
    }

    /// An array's elements, or `nil`.
    fileprivate var elements: [JSONValue]? {
        guard case .array(let elements) = self else { return nil }
        return elements
    }
}
