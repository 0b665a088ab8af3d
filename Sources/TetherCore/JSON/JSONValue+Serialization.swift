#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

extension JSONValue {
    /// The value written as JSON text, UTF-8.
    ///
    /// Members keep their order; strings escape `"`, `\` and control characters (`\n`, `\t`, … or `\u00XX`);
    /// integers are written exactly, doubles in their shortest round-trip form (with a `.0` when whole, so they read
    /// back as doubles). Non-finite doubles, which JSON cannot hold, are written as `null`.
    /// - Parameter pretty: Indent by two spaces, one member or element per line, `": "` after keys, and end with a
    ///   newline (the form of exported sample files). Otherwise no whitespace at all.
    /// - Returns: The JSON text.
    public func serialized(pretty: Bool = false) -> Data {
        var writer = JSONWriter(pretty: pretty)
        writer.write(self)
        if pretty { writer.output.append(UInt8(ascii: "\n")) }
        return Data(writer.output)
    }

    /// A string's UTF-8 bytes as `serialized()` writes them between the quotes (`"` and `\` escaped, control
    /// characters as `\n`, `\t`, … or `\u00XX`), appended to `output`: the redactor hides a secret in this form too.
    package static func appendEscaped(_ text: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        for byte in text {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
            case 0x0A: output.append(contentsOf: #"\n"#.utf8)
            case 0x0D: output.append(contentsOf: #"\r"#.utf8)
            case 0x09: output.append(contentsOf: #"\t"#.utf8)
            case 0x08: output.append(contentsOf: #"\b"#.utf8)
            case 0x0C: output.append(contentsOf: #"\f"#.utf8)
            case 0..<0x20:
                output.append(contentsOf: #"\u00"#.utf8)
                output.append(lowerHexDigits[Int(byte >> 4)])
                output.append(lowerHexDigits[Int(byte & 0xF)])
            default: output.append(byte)
            }
        }
    }

    private static let lowerHexDigits = Array("0123456789abcdef".utf8)
}

/// Writes values without recursion: a stack of the containers still open.
private struct JSONWriter {
    let pretty: Bool
    var output: [UInt8] = []

    private enum Frame {
        case array([JSONValue], next: Int)
        case object([JSONMember], next: Int)
    }

    init(pretty: Bool) {
        self.pretty = pretty
    }

    mutating func write(_ root: JSONValue) {
        var stack: [Frame] = []
        if let frame = open(root) { stack.append(frame) }
        while let frame = stack.popLast() {
            switch frame {
            case .array(let elements, let next):
                guard next < elements.count else {
                    close(UInt8(ascii: "]"), depth: stack.count)
                    continue
                }
                stack.append(.array(elements, next: next + 1))
                separate(first: next == 0, depth: stack.count)
                if let child = open(elements[next]) { stack.append(child) }
            case .object(let members, let next):
                guard next < members.count else {
                    close(UInt8(ascii: "}"), depth: stack.count)
                    continue
                }
                stack.append(.object(members, next: next + 1))
                separate(first: next == 0, depth: stack.count)
                writeString(members[next].key)
                output.append(UInt8(ascii: ":"))
                if pretty { output.append(UInt8(ascii: " ")) }
                if let child = open(members[next].value) { stack.append(child) }
            }
        }
    }

    /// Writes a scalar or an empty container whole; for a non-empty container writes its opening and returns its frame.
    private mutating func open(_ value: JSONValue) -> Frame? {
        switch value {
        case .null: append("null")
        case .bool(let flag): append(flag ? "true" : "false")
        case .integer(let number): append(String(number))
        case .unsignedInteger(let number): append(String(number))
        case .double(let number):
            // Swift's description is the shortest text that reads back as the same Double ("1.0", "1e-07", "1e+100").
            append(number.isFinite ? number.description : "null")
        case .string(let text): writeString(text)
        case .array(let elements):
            if elements.isEmpty {
                append("[]")
                return nil
            }
            output.append(UInt8(ascii: "["))
            return .array(elements, next: 0)
        case .object(let members):
            if members.isEmpty {
                append("{}")
                return nil
            }
            output.append(UInt8(ascii: "{"))
            return .object(members, next: 0)
        }
        return nil
    }

    /// Before a member or element: a comma unless first, then in pretty form a newline and the indent.
    private mutating func separate(first: Bool, depth: Int) {
        if !first { output.append(UInt8(ascii: ",")) }
        newline(depth: depth)
    }

    private mutating func close(_ bracket: UInt8, depth: Int) {
        newline(depth: depth)
        output.append(bracket)
    }

    private mutating func newline(depth: Int) {
        guard pretty else { return }
        output.append(UInt8(ascii: "\n"))
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth))
    }

    private mutating func append(_ text: String) {
        output.append(contentsOf: text.utf8)
    }

    private mutating func writeString(_ text: String) {
        output.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { JSONValue.appendEscaped($0, to: &output) }
        output.append(UInt8(ascii: "\""))
    }
}
