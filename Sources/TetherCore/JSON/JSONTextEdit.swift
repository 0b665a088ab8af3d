#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Rewrites values inside a JSON text with the smallest byte edits, so that a person reviewing the change sees only
/// what changed (`tether update`): a changed value's bytes are replaced, a removed member goes with its comma (and its
/// line, when it sits on one), a new member is inserted after the last surviving sibling, in the text's own style.
/// Every byte outside those edits stays as it was: indentation, key order, number spellings (`1.0e3`), escapes, line
/// endings (CRLF too), the trailing newline or its absence.
///
/// New text is written in the style found in the file: the indent unit (spaces or a tab, by the smallest step
/// between lines), the line ending, the text between a key and its value (`": "`), and in one-line (compact) text the
/// text between members (`", "`). `/` is never escaped, nor non-ASCII characters.
package enum JSONTextEdit {
    /// One value to rewrite: where it is and what it becomes.
    package struct Change: Sendable, Equatable {
        /// The JSON location of the value in the document, as the manifest loader writes it (`targets[2].sampleData.json`);
        /// empty for the whole document.
        package var location: String
        /// The new value.
        package var value: JSONValue

        /// - Parameters: as the properties.
        package init(location: String, value: JSONValue) {
            self.location = location
            self.value = value
        }
    }

    /// Why a text could not be edited.
    package enum Failure: Error, Equatable, CustomStringConvertible {
        /// The text is not JSON.
        case unreadable(JSONParseError)
        /// No value at this location.
        case noValue(location: String)

        /// The message, after the file's name.
        package var description: String {
            switch self {
            case .unreadable(let error): "\(error)"
            case .noValue(let location): "no value at \(location.isEmpty ? "the root" : location)"
            }
        }
    }

    /// `bytes` with each change applied as minimal edits.
    /// - Parameters:
    ///   - changes: Values to rewrite, at disjoint locations.
    ///   - bytes: The JSON text.
    /// - Returns: The new text; `bytes` itself when no value changes.
    /// - Throws: `Failure` when the text is not JSON or a location names no value.
    package static func applying(_ changes: [Change], to bytes: Data) throws(Failure) -> Data {
        let document: JSONDocument
        do {
            document = try JSONReader().document(bytes)
        } catch {
            throw .unreadable(error)
        }
        let text = Array(bytes)
        var editor = Editor(text: text, positions: document.positions, style: TextStyle(text, document.positions))
        for change in changes {
            guard let (index, old) = Self.find(change.location, in: document.root) else {
                throw .noValue(location: change.location)
            }
            editor.isPretty = text[document.positions.span(of: index)].contains(0x0A)
            editor.diff(old, change.value, at: index)
        }
        return Data(editor.result())
    }

    /// The pre-order number and value at `location` (`targets[2].sampleData.json`, `a["b c"][0]`).
    package static func find(_ location: String, in root: JSONValue) -> (Int, JSONValue)? {
        // A walk that builds each value's location as the manifest loader does and follows only matching prefixes.
        var stack: [(value: JSONValue, index: Int, path: String)] = [(root, 0, "")]
        while let (value, index, path) = stack.popLast() {
            if path == location { return (index, value) }
            guard location.hasPrefix(path) else { continue }
            var child = index + 1
            switch value {
            case .object(let members):
                for member in members {
                    var childPath = path
                    JSONPath.appendKey(member.key, to: &childPath)
                    if path.isEmpty && childPath.hasPrefix(".") { childPath.removeFirst() }
                    stack.append((member.value, child, childPath))
                    child += member.value.valueCount
                }
            case .array(let elements):
                for (offset, element) in elements.enumerated() {
                    stack.append((element, child, "\(path)[\(offset)]"))
                    child += element.valueCount
                }
            default: continue
            }
        }
        return nil
    }
}

extension JSONValue {
    /// How many values this one is in pre-order numbering: itself and everything inside it.
    var valueCount: Int {
        switch self {
        case .object(let members): 1 + members.reduce(0) { $0 + $1.value.valueCount }
        case .array(let elements): 1 + elements.reduce(0) { $0 + $1.valueCount }
        default: 1
        }
    }
}

/// How a JSON text is laid out, read from the text itself, so that new text looks like the old.
struct TextStyle {
    /// `\r\n` when the text has one, else `\n`.
    var newline: [UInt8] = Array("\n".utf8)
    /// One level of indentation: a tab, or the smallest step in spaces between a line and the next (default two).
    var indentUnit: [UInt8] = Array("  ".utf8)
    /// What lies between a key's closing quote and its value (`": "` without the quote).
    var colon: [UInt8] = Array(": ".utf8)
    /// What follows a comma between members or elements in one-line text (`" "` or nothing).
    var compactGap: [UInt8] = []

    init(_ text: [UInt8], _ positions: JSONPositions) {
        var hasCRLF = false
        var smallestStep = Int.max
        var usesTabs = false
        var previousIndent = 0
        var lineStart = 0
        var index = 0
        while index <= text.count {
            if index == text.count || text[index] == 0x0A {
                if index > 0 && index < text.count && text[index - 1] == 0x0D { hasCRLF = true }
                var indent = lineStart
                while indent < index, text[indent] == 0x20 || text[indent] == 0x09 { indent += 1 }
                let isBlank = indent == index || (indent == index - 1 && text[indent] == 0x0D)
                if !isBlank {
                    let width = indent - lineStart
                    if width > previousIndent {
                        smallestStep = min(smallestStep, width - previousIndent)
                        if text[lineStart] == 0x09 { usesTabs = true }
                    }
                    previousIndent = width
                }
                lineStart = index + 1
            }
            index += 1
        }
        if hasCRLF { newline = Array("\r\n".utf8) }
        if usesTabs {
            indentUnit = [0x09]
        } else if smallestStep != .max {
            indentUnit = Array(repeating: 0x20, count: smallestStep)
        }
        // The first key's colon, and the first gap after a comma on one line.
        for value in 0..<positions.count {
            let key = positions.offset(of: value, key: true)
            guard key != positions.offset(of: value, key: false) else { continue }
            let keyEnd = Self.stringEnd(text, from: key)
            colon = Array(text[keyEnd..<positions.offset(of: value, key: false)])
            break
        }
        var index2 = 0
        while index2 < text.count {
            if text[index2] == UInt8(ascii: ",") {
                var end = index2 + 1
                while end < text.count, text[end] == 0x20 || text[end] == 0x09 { end += 1 }
                if end < text.count, text[end] != 0x0A, text[end] != 0x0D {
                    compactGap = Array(text[(index2 + 1)..<end])
                    break
                }
            }
            index2 = Self.skipString(text, at: index2)
        }
    }

    /// The offset just past the string that starts at `start` (its opening quote).
    static func stringEnd(_ text: [UInt8], from start: Int) -> Int {
        var index = start + 1
        while index < text.count {
            if text[index] == UInt8(ascii: "\\") {
                index += 2
                continue
            }
            if text[index] == UInt8(ascii: "\"") { return index + 1 }
            index += 1
        }
        return text.count
    }

    /// `index + 1`, or past the string when one starts at `index`.
    private static func skipString(_ text: [UInt8], at index: Int) -> Int {
        text[index] == UInt8(ascii: "\"") ? stringEnd(text, from: index) : index + 1
    }
}

/// Collects byte edits for one document, then applies them in one forward pass.
private struct Editor {
    let text: [UInt8]
    let positions: JSONPositions
    let style: TextStyle
    /// Whether new containers are written one member per line: the value being changed spans several lines.
    var isPretty = false
    /// Byte ranges of the original text and what replaces each; disjoint (an insertion is an empty range).
    var edits: [(range: Range<Int>, bytes: [UInt8])] = []

    init(text: [UInt8], positions: JSONPositions, style: TextStyle) {
        self.text = text
        self.positions = positions
        self.style = style
    }

    /// The pre-order numbers of the children of container `index`.
    func children(of index: Int, count: Int) -> [Int] {
        var result: [Int] = []
        var child = index + 1
        for _ in 0..<count {
            result.append(child)
            child = positions.next(after: child)
        }
        return result
    }

    /// Adds the edits that turn `old` (value `index`) into `new`.
    mutating func diff(_ old: JSONValue, _ new: JSONValue, at index: Int) {
        guard old != new else { return }
        switch (old, new) {
        case (.object(let oldMembers), .object(let newMembers)) where !oldMembers.isEmpty:
            diffObject(oldMembers, newMembers, at: index)
        case (.array(let oldElements), .array(let newElements))
        where !oldElements.isEmpty && oldElements.count == newElements.count:
            for (child, pair) in zip(children(of: index, count: oldElements.count), zip(oldElements, newElements)) {
                diff(pair.0, pair.1, at: child)
            }
        default:
            replace(index, with: new)
        }
    }

    private mutating func diffObject(_ oldMembers: [JSONMember], _ newMembers: [JSONMember], at index: Int) {
        let childIndices = children(of: index, count: oldMembers.count)
        // A member survives when the new object has its key (the first of repeated keys only).
        var newByKey: [String: Int] = [:]
        for (offset, member) in newMembers.enumerated() where newByKey[member.key] == nil {
            newByKey[member.key] = offset
        }
        var seen = Set<String>()
        var survivors: [(old: Int, new: Int)] = []
        for (offset, member) in oldMembers.enumerated() {
            guard let target = newByKey[member.key], seen.insert(member.key).inserted else { continue }
            survivors.append((offset, target))
        }
        // Survivors must keep their order and come first, as the merge makes them; anything else is rewritten whole.
        guard !survivors.isEmpty, survivors.map(\.new) == Array(0..<survivors.count) else {
            replace(index, with: .object(newMembers))
            return
        }
        let surviving = Set(survivors.map(\.old))
        let keyStarts = childIndices.map { positions.offset(of: $0, key: true) }
        let valueEnds = childIndices.map { positions.span(of: $0).upperBound }
        let keyStart = { (offset: Int) in keyStarts[offset] }
        let valueEnd = { (offset: Int) in valueEnds[offset] }
        // Runs of removed members: after a surviving member, from its end; else up to the next survivor's key.
        var offset = 0
        while offset < oldMembers.count {
            guard !surviving.contains(offset) else {
                offset += 1
                continue
            }
            var last = offset
            while last + 1 < oldMembers.count, !surviving.contains(last + 1) { last += 1 }
            if offset > 0 {
                edits.append((valueEnd(offset - 1)..<valueEnd(last), []))
            } else {
                edits.append((keyStart(offset)..<keyStart(last + 1), []))
            }
            offset = last + 1
        }
        for (old, new) in survivors {
            diff(oldMembers[old].value, newMembers[new].value, at: childIndices[old])
        }
        let added = newMembers[survivors.count...]
        guard !added.isEmpty, let lastSurvivor = survivors.last?.old else { return }
        // The separator between the first two members as written (comma, line break, indent), or after `{`.
        let separator: [UInt8]
        if oldMembers.count >= 2 {
            separator = Array(text[valueEnd(0)..<keyStart(1)])
        } else {
            // `{ "a": 1` gives `, `; `{"a": 1` has nothing there to copy: the gap after commas elsewhere on a line.
            let afterBrace = Array(text[(positions.span(of: index).lowerBound + 1)..<keyStart(0)])
            separator = [UInt8(ascii: ",")] + (afterBrace.isEmpty ? style.compactGap : afterBrace)
        }
        let indent = lineIndent(at: keyStart(lastSurvivor))
        let isPretty = separator.contains(0x0A)
        var insertion: [UInt8] = []
        for member in added {
            insertion += separator
            insertion += memberText(member, indent: indent, isPretty: isPretty)
        }
        let at = valueEnd(lastSurvivor)
        edits.append((at..<at, insertion))
    }

    private func memberText(_ member: JSONMember, indent: [UInt8], isPretty: Bool) -> [UInt8] {
        Array(JSONValue.string(member.key).serialized()) + style.colon
            + serialized(member.value, indent: indent, isPretty: isPretty)
    }

    private mutating func replace(_ index: Int, with value: JSONValue) {
        let span = positions.span(of: index)
        edits.append((span, serialized(value, indent: lineIndent(at: span.lowerBound), isPretty: isPretty)))
    }

    /// The spaces and tabs at the start of the line that holds `offset`.
    private func lineIndent(at offset: Int) -> [UInt8] {
        var start = offset
        while start > 0, text[start - 1] != 0x0A { start -= 1 }
        var end = start
        while end < offset, text[end] == 0x20 || text[end] == 0x09 { end += 1 }
        return Array(text[start..<end])
    }

    /// `value` in the text's style; lines after the first start with `indent`.
    func serialized(_ value: JSONValue, indent: [UInt8], isPretty: Bool) -> [UInt8] {
        var output: [UInt8] = []
        write(value, indent: indent, isPretty: isPretty, into: &output)
        return output
    }

    private func write(_ value: JSONValue, indent: [UInt8], isPretty: Bool, into output: inout [UInt8]) {
        let inner = indent + style.indentUnit
        switch value {
        case .object(let members) where !members.isEmpty:
            output.append(UInt8(ascii: "{"))
            for (offset, member) in members.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                if isPretty {
                    output += style.newline + inner
                } else if offset > 0 {
                    output += style.compactGap
                }
                output += Array(JSONValue.string(member.key).serialized()) + style.colon
                write(member.value, indent: inner, isPretty: isPretty, into: &output)
            }
            if isPretty { output += style.newline + indent }
            output.append(UInt8(ascii: "}"))
        case .array(let elements) where !elements.isEmpty:
            output.append(UInt8(ascii: "["))
            for (offset, element) in elements.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                if isPretty {
                    output += style.newline + inner
                } else if offset > 0 {
                    output += style.compactGap
                }
                write(element, indent: inner, isPretty: isPretty, into: &output)
            }
            if isPretty { output += style.newline + indent }
            output.append(UInt8(ascii: "]"))
        default:
            output += Array(value.serialized())
        }
    }

    /// The text with every edit applied.
    func result() -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(text.count)
        var cursor = 0
        let ordered = edits.sorted {
            ($0.range.lowerBound, $0.range.upperBound) < ($1.range.lowerBound, $1.range.upperBound)
        }
        for edit in ordered {
            output += text[cursor..<edit.range.lowerBound]
            output += edit.bytes
            cursor = edit.range.upperBound
        }
        output += text[cursor...]
        return output
    }
}
