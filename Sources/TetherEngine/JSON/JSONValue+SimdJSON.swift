#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

extension JSONValue {
    /// Checks that `bytes` are one JSON document without building a value (simdjson's parse alone).
    /// - Parameters:
    ///   - bytes: The document, UTF-8.
    ///   - maxDepth: How deeply arrays and objects may nest.
    /// - Throws: `JSONParseError`, as `parse(_:maxDepth:)` does.
    public static func validate(_ bytes: Data, maxDepth: Int = 1024) throws(JSONParseError) {
        try JSONParser(maxDepth: maxDepth).validate(bytes)
    }

    /// Builds the value at `start` of a tape, without recursion (a stack of open containers instead).
    static func build(tape: JSONTape, at start: Int) -> JSONValue {
        struct Frame {
            var isObject: Bool
            var elements: [JSONValue] = []
            var members: [JSONMember] = []
            var key: String?
        }
        var stack: [Frame] = []
        var index = start
        while true {
            let value: JSONValue
            switch tape.tag(index) {
            case JSONTape.objectStart:
                var frame = Frame(isObject: true)
                frame.members.reserveCapacity(tape.containerCount(index))
                stack.append(frame)
                index += 1
                continue
            case JSONTape.arrayStart:
                var frame = Frame(isObject: false)
                frame.elements.reserveCapacity(tape.containerCount(index))
                stack.append(frame)
                index += 1
                continue
            case JSONTape.objectEnd, JSONTape.arrayEnd:
                let frame = stack.removeLast()
                value = frame.isObject ? .object(frame.members) : .array(frame.elements)
                index += 1
            case JSONTape.string:
                if let last = stack.indices.last, stack[last].isObject, stack[last].key == nil {
                    stack[last].key = tape.string(index)
                    index += 1
                    continue
                }
                value = .string(tape.string(index))
                index += 1
            case JSONTape.int64:
                value = .integer(tape.int64Value(index))
                index += 2
            case JSONTape.uint64:
                value = .unsignedInteger(tape.uint64Value(index))
                index += 2
            case JSONTape.double:
                value = .double(tape.doubleValue(index))
                index += 2
            case JSONTape.true:
                value = .bool(true)
                index += 1
            case JSONTape.false:
                value = .bool(false)
                index += 1
            default:  // 'n'; a root 'r' cannot occur inside a value
                value = .null
                index += 1
            }
            guard let last = stack.indices.last else { return value }
            if stack[last].isObject {
                stack[last].members.append(JSONMember(stack[last].key ?? "", value))
                stack[last].key = nil
            } else {
                stack[last].elements.append(value)
            }
        }
    }
}

extension JSONDocument {
    /// The document `JSONReader.document(_:)` reads from `bytes`, made from simdjson's tape of them and its structural
    /// index (`JSONParser.document(_:)`): the tape gives the values, the index where each value and key starts (see
    /// `positions(of:structurals:skipped:)`). A large document is read on two threads: one builds the values, the
    /// other the places and then the line checkpoints, which the places' lines and columns are counted from.
    /// - Parameters:
    ///   - tape: The parsed document.
    ///   - structurals: simdjson's structural index of it, offsets from the first byte parsed.
    ///   - bytes: The whole input.
    ///   - skipped: How many bytes at its start were not parsed (a byte order mark).
    /// - Returns: The document, or `nil` when the index is not that of a JSON document (it always is; the caller
    ///   then reads with `JSONReader`).
    static func build(tape: JSONTape, structurals: UnsafeBufferPointer<UInt32>, bytes: Data, skipped: Int)
        -> JSONDocument?
    {
        final class Parts: @unchecked Sendable {  // each written by one thread, read after both have ended
            var root = JSONValue.null
            var positions: JSONPositions?
        }
        let parts = Parts()
        let checkpoints = JSONLineCheckpoints()
        let isLarge = bytes.count >= Self.twoThreadBytes
        let work = { (part: Int) in
            if part == 0 {
                parts.root = JSONValue.build(tape: tape, at: JSONTape.rootIndex)
            } else {
                parts.positions = positions(of: bytes, structurals: structurals, skipped: skipped)
                // (A small document's are counted when a place is first asked for, if ever.)
                if isLarge && parts.positions != nil { checkpoints.count(bytes) }
            }
        }
        if isLarge {
            DeepStack.concurrentPerform(name: "tether-json-document", iterations: 2, work)
        } else {
            work(1)
            if parts.positions != nil { work(0) }
        }
        guard let positions = parts.positions else { return nil }
        return JSONDocument(root: parts.root, positions: positions, bytes: bytes, checkpoints: checkpoints)
    }

    /// From how many bytes a document is read on two threads (below, starting them costs more than it saves).
    private static let twoThreadBytes = 1 << 20

    /// The places of every value of a valid JSON document, in pre-order, as `JSONReader.document(_:)` records them,
    /// from simdjson's structural index alone: a `{` or `[` starts a container and its close ends it; a string followed
    /// by a `:` is a key (its opening quote the key's place); any other string, number, `true`, `false` or `null` is a
    /// scalar, which ends before the whitespace in front of the next structural (or the end).
    /// - Returns: The places, or `nil` when the index is not that of a JSON document.
    private static func positions(of bytes: Data, structurals: UnsafeBufferPointer<UInt32>, skipped: Int)
        -> JSONPositions?
    {
        bytes.withUnsafeBytes { raw -> JSONPositions? in
            var positions = JSONPositions()
            // At most one value per two structurals (a scalar and its comma), and one more.
            positions.reserveCapacity(structurals.count / 2 + 1)
            var open: [Int] = []  // the numbers of the containers not yet closed
            var keyOffset = -1
            var index = 0
            while index < structurals.count {
                let offset = Int(structurals[index]) + skipped
                guard offset < raw.count else { return nil }
                index += 1
                switch raw[offset] {
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    open.append(positions.begin(at: offset, keyOffset: keyOffset))
                    keyOffset = -1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    guard let container = open.popLast(), keyOffset < 0 else { return nil }
                    positions.end(container, at: offset + 1)
                case UInt8(ascii: ","):
                    continue
                case UInt8(ascii: "\""):
                    let next = index < structurals.count ? Int(structurals[index]) + skipped : raw.count
                    if next < raw.count, raw[next] == UInt8(ascii: ":") {
                        guard keyOffset < 0 else { return nil }
                        keyOffset = offset
                        index += 1
                        continue
                    }
                    fallthrough
                default:
                    guard raw[offset] != UInt8(ascii: ":") else { return nil }
                    let position = positions.begin(at: offset, keyOffset: keyOffset)
                    keyOffset = -1
                    var end = index < structurals.count ? Int(structurals[index]) + skipped : raw.count
                    while end > offset + 1, JSONParser.isWhitespace(raw[end - 1]) { end -= 1 }
                    positions.end(position, at: end)
                }
            }
            return open.isEmpty && keyOffset < 0 && positions.count > 0 ? positions : nil
        }
    }
}
