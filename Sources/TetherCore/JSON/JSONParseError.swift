/// Why bytes could not be read as JSON, in words a person can act on.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure, for code that must tell them apart (a structure check reports each differently).
    public enum Reason: Sendable, Equatable {
        /// No bytes, or only whitespace.
        case empty
        /// Not JSON: bad structure, literal, string or number syntax.
        case invalid
        /// Nested deeper than the parser's depth limit.
        case tooDeep
        /// An integer beyond 64 bits, or a number such as `1e400` that no `Double` holds.
        case numberOutOfRange
        /// Bytes that are not UTF-8.
        case invalidUTF8
        /// More bytes than the parser handles (4 GB).
        case tooLarge
        /// Memory ran out.
        case outOfMemory
    }

    /// The kind of failure.
    public var reason: Reason
    /// What went wrong, without the location: `not valid JSON: a string is not closed (missing quote)`.
    public var detail: String
    /// The 1-based line of the failure, where it could be found.
    public var line: Int?
    /// The 1-based column (in characters) of the failure, where it could be found.
    public var column: Int?
    /// The 0-based byte offset of the failure, where it could be found (invalid UTF-8).
    public var byteOffset: Int?

    /// The detail of invalid UTF-8: the first byte that is not, and where it is.
    package static func invalidUTF8(_ byte: UInt8, at offset: Int) -> String {
        let hex = String(byte, radix: 16, uppercase: true)
        return "not valid UTF-8 (byte 0x\(hex.count == 1 ? "0" + hex : hex) at offset \(offset))"
    }

    /// - Parameters:
    ///   - reason: The kind of failure.
    ///   - detail: The message, lower-case, without location.
    ///   - line: The 1-based line, if known.
    ///   - column: The 1-based column, if known.
    ///   - byteOffset: The 0-based byte offset, if known.
    public init(reason: Reason, detail: String, line: Int? = nil, column: Int? = nil, byteOffset: Int? = nil) {
        self.reason = reason
        self.detail = detail
        self.line = line
        self.column = column
        self.byteOffset = byteOffset
    }

    /// The description without its leading `not valid JSON: `, for messages that already say the bytes are not JSON.
    public var problem: String {
        let prefix = "not valid JSON: "
        return description.hasPrefix(prefix) ? String(description.dropFirst(prefix.count)) : description
    }

    /// The detail, then the location when known: `not valid JSON: improper structure (…) around line 3, column 7`.
    public var description: String {
        guard let line, let column else { return detail }
        return "\(detail) around line \(line), column \(column)"
    }
}
