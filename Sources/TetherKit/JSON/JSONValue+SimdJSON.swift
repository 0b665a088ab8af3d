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
