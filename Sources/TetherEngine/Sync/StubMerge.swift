#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The new stub for a drifted target (`tether update`): the stub, changed only where the live body drifted from it.
///
/// The rules mirror the structure check's (`ShapeCheck`), so that the result holds against the live body:
/// - a stub key the live object lacks is removed;
/// - a type drift takes the live value (a stub integer where the live value is a fraction takes the fraction; a stub
///   fraction where the live value is an integer still holds and stays);
/// - a live `null` where the stub has a value leaves the stub's value, and its type: the target needs a `nullable`
///   rule there instead (`nullablePaths(stub:live:rules:)` names them; `tether update` writes them into the target's
///   rules), so that a stub shared by several targets never takes one target's `null`;
/// - a stub `null` accepts anything and stays;
/// - each stub array element is merged with every live element in turn, so that it accepts all of them (an empty
///   stub or live array stays as it is); in an array of elements of several kinds (a union), each with the live
///   elements of its kind, and a kind only the live array has is added;
/// - live keys the stub lacks are added (at the end, live value) only when `isStrict`, where they are drifts;
/// - a key a stub object has twice keeps its first value, the one the check reads;
/// - everything else keeps the stub's own, curated value.
///
/// The target's rules are kept true: an ignored value stays as it is, a key an `optional` rule allows to be absent
/// stays, a `null` where a `nullable` rule allows it leaves the stub's value, and a map (`maps`) keeps its keys,
/// each value merged with every live value as an array element is (a rule's path must still name something in the
/// stub, or the next run stops at a contract error).
public enum StubMerge {
    /// The merge of `stub` and `live`.
    /// - Parameters:
    ///   - stub: The stub body.
    ///   - live: The live body, already redacted.
    ///   - isStrict: Whether extra live keys are drifts (and so are added).
    ///   - rules: The target's rules.
    /// - Returns: The new stub body.
    public static func merged(
        stub: JSONValue, live: JSONValue, isStrict: Bool, rules: ContractRules = ContractRules()
    ) -> JSONValue {
        var merge = Merge(isStrict: isStrict, rules: rules)
        return merge.merged(stub, live, at: [])
    }

    /// Where `live` is `null` and `stub` has a value that `rules` do not let be `null`: the `nullable` rules the
    /// target needs for its stub to hold (once merged with `live`), as the structure check walks them (array
    /// elements and a map's values at `[*]`), each once, in the stub's order.
    /// - Parameters:
    ///   - stub: The stub body, usually already merged with `live`.
    ///   - live: The live body, already redacted.
    ///   - rules: The target's rules.
    /// - Returns: The paths, none of them already `nullable` (or ignored) under `rules`.
    public static func nullablePaths(stub: JSONValue, live: JSONValue, rules: ContractRules = ContractRules())
        -> [JSONPathPattern]
    {
        var merge = Merge(isStrict: false, rules: rules)
        _ = merge.merged(stub, live, at: [])
        return merge.nulls.map { JSONPathPattern(steps: $0) }
    }

    private struct Merge {
        let isStrict: Bool
        let rules: ContractRules
        /// Where a live `null` met a stub value no rule lets be `null`, each once.
        var nulls: [[JSONPathPattern.Step]] = []

        /// The kinds of JSON values, as the structure check tells them apart (every number is one kind).
        enum Kind: Hashable { case object, array, string, number, bool }

        /// An object's members without a key's repeats: the first of each, as the check reads the stub.
        static func firstOfEachKey(_ members: [JSONMember]) -> [JSONMember] {
            var kept: [JSONMember] = []
            for member in members where !kept.contains(where: { $0.key.utf8.elementsEqual(member.key.utf8) }) {
                kept.append(member)
            }
            return kept
        }

        /// A value's kind; `nil` for `null`, which the check reads as no kind.
        static func kind(_ value: JSONValue) -> Kind? {
            switch value {
            case .null: nil
            case .object: .object
            case .array: .array
            case .string: .string
            case .bool: .bool
            default: .number
            }
        }

        mutating func merged(_ stub: JSONValue, _ live: JSONValue, at path: [JSONPathPattern.Step]) -> JSONValue {
            if !rules.ignore.isEmpty, rules.ignore.namesShapePosition(path) { return stub }
            switch (stub, live) {
            case (.null, _): return stub
            case (_, .null):
                if !rules.nullable.namesShapePosition(path), !nulls.contains(path) { nulls.append(path) }
                return stub
            case (.object(let members), .object(let liveMembers)):
                let stubMembers = Self.firstOfEachKey(members)
                if !rules.maps.isEmpty, rules.maps.namesShapePosition(path) {
                    return .object(
                        stubMembers.map { member in
                            JSONMember(
                                member.key,
                                liveMembers.reduce(member.value) { merged($0, $1.value, at: path + [.any]) })
                        })
                }
                var members: [JSONMember] = []
                for member in stubMembers {
                    let keyPath = path + [.key(member.key)]
                    guard
                        let liveValue = liveMembers.first(where: { $0.key.utf8.elementsEqual(member.key.utf8) })?.value
                    else {
                        if rules.optional.namesShapePosition(keyPath) || rules.ignore.namesShapePosition(keyPath) {
                            members.append(member)
                        }
                        continue
                    }
                    members.append(JSONMember(member.key, merged(member.value, liveValue, at: keyPath)))
                }
                if isStrict {
                    for member in liveMembers
                    where !stubMembers.contains(where: { $0.key.utf8.elementsEqual(member.key.utf8) })
                        && !members.contains(where: { $0.key.utf8.elementsEqual(member.key.utf8) })
                    {
                        members.append(member)
                    }
                }
                return .object(members)
            case (.array(let stubElements), .array(let liveElements)):
                guard !stubElements.isEmpty, !liveElements.isEmpty else { return stub }
                let elementPath = path + [.any]
                let stubKinds = Set(stubElements.compactMap(Self.kind))
                let liveKinds = Set(liveElements.compactMap(Self.kind))
                guard stubKinds.count > 1 || liveKinds.count > 1 else {
                    // Elements of one kind: each merged with every live element (a type drift takes the live type).
                    return .array(
                        stubElements.map { element in liveElements.reduce(element) { merged($0, $1, at: elementPath) } }
                    )
                }
                // Elements of several kinds, a union as the check reads them (a number or a string): each stub element
                // merged with the live elements of its kind (and the nulls), a kind the live array lacks kept, and a
                // live kind the stub lacks added, its first element merged with the others of its kind. Merged with
                // every live element, each stub element became the last live one's kind, and the union was lost.
                var elements = stubElements.map { element in
                    liveElements.filter { Self.kind($0) == nil || Self.kind($0) == Self.kind(element) }
                        .reduce(element) { merged($0, $1, at: elementPath) }
                }
                if !stubElements.contains(.null) {
                    var added = Set<Kind>()
                    for live in liveElements {
                        guard let kind = Self.kind(live), !stubKinds.contains(kind), added.insert(kind).inserted
                        else { continue }
                        elements.append(
                            liveElements.filter { Self.kind($0) == kind }.dropFirst()
                                .reduce(live) { merged($0, $1, at: elementPath) })
                    }
                }
                return .array(elements)
            case (.double, .integer), (.double, .unsignedInteger), (.double, .double): return stub
            case (.integer, .integer), (.integer, .unsignedInteger), (.unsignedInteger, .integer),
                (.unsignedInteger, .unsignedInteger), (.bool, .bool), (.string, .string):
                return stub
            default: return live
            }
        }
    }
}
