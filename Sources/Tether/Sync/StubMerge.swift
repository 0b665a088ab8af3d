import Foundation

/// The new stub for a drifted target (`tether update`): the stub, changed only where the live body drifted from it.
///
/// The rules mirror the structure check's (`ShapeCheck`), so that the result holds against the live body:
/// - a stub key the live object lacks is removed;
/// - a type drift takes the live value (a stub integer where the live value is a fraction takes the fraction; a stub
///   fraction where the live value is an integer still holds and stays);
/// - a live `null` where the stub has a value takes the `null` (a `nullable` rule once `ContractRules` has rules);
/// - a stub `null` accepts anything and stays;
/// - each stub array element is merged with every live element in turn, so that it accepts all of them (an empty
///   stub or live array stays as it is);
/// - live keys the stub lacks are added (at the end, live value) only when `isStrict`, where they are drifts;
/// - everything else keeps the stub's own, curated value.
public enum StubMerge {
    /// The merge of `stub` and `live`.
    /// - Parameters:
    ///   - stub: The stub body.
    ///   - live: The live body, already redacted.
    ///   - isStrict: Whether extra live keys are drifts (and so are added).
    /// - Returns: The new stub body.
    public static func merged(stub: JSONValue, live: JSONValue, isStrict: Bool) -> JSONValue {
        switch (stub, live) {
        case (.null, _): return stub
        case (_, .null): return live
        case (.object(let stubMembers), .object(let liveMembers)):
            var members: [JSONMember] = []
            for member in stubMembers {
                guard let liveValue = liveMembers.first(where: { $0.key.utf8.elementsEqual(member.key.utf8) })?.value
                else { continue }
                members.append(JSONMember(member.key, merged(stub: member.value, live: liveValue, isStrict: isStrict)))
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
            return .array(
                stubElements.map { element in
                    liveElements.reduce(element) { merged(stub: $0, live: $1, isStrict: isStrict) }
                })
        case (.double, .integer), (.double, .unsignedInteger), (.double, .double): return stub
        case (.integer, .integer), (.integer, .unsignedInteger), (.unsignedInteger, .integer),
            (.unsignedInteger, .unsignedInteger), (.bool, .bool), (.string, .string):
            return stub
        default: return live
        }
    }
}
