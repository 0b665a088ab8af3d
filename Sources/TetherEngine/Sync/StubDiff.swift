#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A structural diff of a stub and its update, as swift-custom-dump draws one: the tree's shape, `-` for the stub's
/// lines, `+` for the new (live) ones, and each run of unchanged siblings collapsed as `… (4 unchanged)`.
public enum StubDiff {
    /// What the legend after a diff says.
    public static let legend = "(- stub, + live)"
    /// Longer values are cut here, with `…`.
    static let widestValue = 100

    /// The diff of `old` and `new`, one string per line, without the legend; empty when they are equal.
    /// - Parameters:
    ///   - old: The stub as it is.
    ///   - new: The stub as `update` would write it.
    /// - Returns: The lines.
    public static func lines(old: JSONValue, new: JSONValue) -> [String] {
        guard old != new else { return [] }
        var lines: [String] = []
        render(old, new, label: "", depth: 0, isLast: true, into: &lines)
        return lines
    }

    private static func render(
        _ old: JSONValue, _ new: JSONValue, label: String, depth: Int, isLast: Bool, into lines: inout [String]
    ) {
        let pad = String(repeating: "  ", count: depth)
        let comma = isLast ? "" : ","
        switch (old, new) {
        case (.object(let oldMembers), .object(let newMembers)) where !oldMembers.isEmpty || !newMembers.isEmpty:
            lines.append("  \(pad)\(label){")
            var rows: [Row] = []
            // Keys compare by their bytes, as the check compares them; a key the stub repeats is removed (the
            // update keeps its first).
            func named(_ name: String) -> (JSONMember) -> Bool { { $0.key.utf8.elementsEqual(name.utf8) } }
            for (offset, member) in oldMembers.enumerated() {
                if !oldMembers[..<offset].contains(where: named(member.key)),
                    let newValue = newMembers.first(where: named(member.key))?.value
                {
                    rows.append(newValue == member.value ? .same : .changed(member.key, member.value, newValue))
                } else {
                    rows.append(.removed(key(member.key), member.value))
                }
            }
            for member in newMembers where !oldMembers.contains(where: named(member.key)) {
                rows.append(.added(key(member.key), member.value))
            }
            emit(rows, depth: depth + 1, into: &lines)
            lines.append("  \(pad)}\(comma)")
        case (.array(let oldElements), .array(let newElements))
        where !oldElements.isEmpty && oldElements.count == newElements.count:
            lines.append("  \(pad)\(label)[")
            emit(
                zip(oldElements, newElements).map { $0 == $1 ? Row.same : .changed(nil, $0, $1) }, depth: depth + 1,
                into: &lines)
            lines.append("  \(pad)]\(comma)")
        default:
            lines.append("- \(pad)\(label)\(text(old))\(comma)")
            lines.append("+ \(pad)\(label)\(text(new))\(comma)")
        }
    }

    private enum Row {
        case same
        case changed(String?, JSONValue, JSONValue)
        case removed(String, JSONValue)
        case added(String, JSONValue)
    }

    private static func emit(_ rows: [Row], depth: Int, into lines: inout [String]) {
        let pad = String(repeating: "  ", count: depth)
        var unchanged = 0
        for (offset, row) in rows.enumerated() {
            let isLast = offset == rows.count - 1
            if case .same = row {
                unchanged += 1
                continue
            }
            if unchanged > 0 { lines.append("  \(pad)… (\(unchanged) unchanged)") }
            unchanged = 0
            switch row {
            case .same: break
            case .changed(let name, let old, let new):
                render(old, new, label: name.map(key) ?? "", depth: depth, isLast: isLast, into: &lines)
            case .removed(let label, let value):
                lines.append("- \(pad)\(label)\(text(value))\(isLast ? "" : ",")")
            case .added(let label, let value):
                lines.append("+ \(pad)\(label)\(text(value))\(isLast ? "" : ",")")
            }
        }
        if unchanged > 0 { lines.append("  \(pad)… (\(unchanged) unchanged)") }
    }

    private static func key(_ name: String) -> String {
        String(decoding: JSONValue.string(name).serialized(), as: UTF8.self) + ": "
    }

    /// A value on one line, cut at `widestValue` characters.
    private static func text(_ value: JSONValue) -> String {
        let whole = String(decoding: value.serialized(), as: UTF8.self)
        return whole.count <= widestValue ? whole : whole.prefix(widestValue - 1) + "…"
    }
}
