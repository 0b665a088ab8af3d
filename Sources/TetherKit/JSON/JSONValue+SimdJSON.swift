import Foundation

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
    /// index (`JSONParser.document(_:)`): the tape gives the values, the index where each value and key starts, in
    /// the same order. `nil` when the two do not line up (they always do; the caller then reads with `JSONReader`).
    /// - Parameters:
    ///   - tape: The parsed document.
    ///   - structurals: simdjson's structural index of it, offsets from the first byte parsed.
    ///   - bytes: The whole input.
    ///   - skipped: How many bytes at its start were not parsed (a byte order mark).
    static func build(tape: JSONTape, structurals: UnsafeBufferPointer<UInt32>, bytes: Data, skipped: Int)
        -> JSONDocument?
    {
        struct Frame {
            var isObject: Bool
            var position: Int
            var elements: [JSONValue] = []
            var members: [JSONMember] = []
            var key: String?
        }
        var positions = JSONPositions()
        let root: JSONValue? = bytes.withUnsafeBytes { raw in
            var stack: [Frame] = []
            var index = JSONTape.rootIndex
            var structural = 0  // the next entry of `structurals`
            var keyOffset = -1
            // The byte offset of the next structural, taken when its byte `matches`, else nil.
            func take(_ matches: (UInt8) -> Bool) -> Int? {
                guard structural < structurals.count else { return nil }
                let offset = Int(structurals[structural]) + skipped
                guard offset < raw.count, matches(raw[offset]) else { return nil }
                structural += 1
                return offset
            }
            // A scalar's place: from `start` to the next structural (or the end), less the whitespace before it.
            func scalar(at start: Int) {
                let position = positions.begin(at: start, keyOffset: keyOffset)
                keyOffset = -1
                var end = structural < structurals.count ? Int(structurals[structural]) + skipped : raw.count
                while end > start + 1, JSONParser.isWhitespace(raw[end - 1]) { end -= 1 }
                positions.end(position, at: end)
            }
            while true {
                let tag = tape.tag(index)
                let value: JSONValue
                switch tag {
                case JSONTape.objectStart, JSONTape.arrayStart:
                    guard let start = take({ $0 == tag }) else { return nil }
                    let position = positions.begin(at: start, keyOffset: keyOffset)
                    keyOffset = -1
                    var frame = Frame(isObject: tag == JSONTape.objectStart, position: position)
                    if frame.isObject {
                        frame.members.reserveCapacity(tape.containerCount(index))
                    } else {
                        frame.elements.reserveCapacity(tape.containerCount(index))
                    }
                    stack.append(frame)
                    index += 1
                    continue
                case JSONTape.objectEnd, JSONTape.arrayEnd:
                    guard let close = take({ $0 == tag }), let frame = stack.popLast() else { return nil }
                    positions.end(frame.position, at: close + 1)
                    value = frame.isObject ? .object(frame.members) : .array(frame.elements)
                    index += 1
                case JSONTape.string:
                    guard let start = take({ $0 == UInt8(ascii: "\"") }) else { return nil }
                    if let last = stack.indices.last, stack[last].isObject, stack[last].key == nil {
                        guard take({ $0 == UInt8(ascii: ":") }) != nil else { return nil }
                        stack[last].key = tape.string(index)
                        keyOffset = start
                        index += 1
                        continue
                    }
                    value = .string(tape.string(index))
                    scalar(at: start)
                    index += 1
                default:
                    // A number's first byte is '-' or a digit; true, false and null start with their tags' letters.
                    let isNumber = tag == JSONTape.int64 || tag == JSONTape.uint64 || tag == JSONTape.double
                    guard
                        let start = take({
                            isNumber
                                ? $0 == UInt8(ascii: "-") || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
                                : $0 == tag
                        })
                    else { return nil }
                    switch tag {
                    case JSONTape.int64: value = .integer(tape.int64Value(index))
                    case JSONTape.uint64: value = .unsignedInteger(tape.uint64Value(index))
                    case JSONTape.double: value = .double(tape.doubleValue(index))
                    case JSONTape.true: value = .bool(true)
                    case JSONTape.false: value = .bool(false)
                    default: value = .null
                    }
                    scalar(at: start)
                    index = tape.next(index)
                }
                guard let last = stack.indices.last else { return structural == structurals.count ? value : nil }
                if stack[last].isObject {
                    stack[last].members.append(JSONMember(stack[last].key ?? "", value))
                    stack[last].key = nil
                } else {
                    stack[last].elements.append(value)
                }
                _ = take({ $0 == UInt8(ascii: ",") })
            }
        }
        guard let root else { return nil }
        return JSONDocument(root: root, positions: positions, bytes: bytes)
    }
}
