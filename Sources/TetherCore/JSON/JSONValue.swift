/// A JSON document as a Swift value: object members keep their order, and integers stay apart from fractions,
/// because "an `Int` here" versus "a `Double` here" is exactly what a contract check must see.
///
/// Not `indirect`: arrays and objects already hold their contents in one heap buffer, so a value is stored inline
/// (24 bytes) instead of in a box of its own. A manifest of 100,000 inline stubs has millions of values: the boxes
/// were about a third of its memory and most of its load time (one allocation, retain and release per value).
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A number written without fraction or exponent that fits in 64 bits.
    case integer(Int64)
    /// A non-negative integer above `Int64.max`.
    case unsignedInteger(UInt64)
    /// A number written with a fraction or an exponent.
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([JSONMember])
}

/// One member of a JSON object, in document order.
public struct JSONMember: Sendable, Equatable {
    /// The member's key, as written (unescaped).
    public var key: String
    /// The member's value.
    public var value: JSONValue

    /// - Parameters: the key and the value.
    public init(_ key: String, _ value: JSONValue) {
        self.key = key
        self.value = value
    }
}

extension JSONValue {
    /// The member named `key` of an object (the first one, if a document repeats a key), or `nil`.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// The value's type, and the value itself when it is a short scalar, for a message: `string "401"`, `integer
    /// 42`, `array`. A string is quoted as JSON writes it, cut after 40 characters.
    package var given: String {
        switch self {
        case .string(let text):
            let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
            return "string " + String(decoding: JSONValue.string(shown).serialized(), as: UTF8.self)
        case .integer(let number): return "integer \(number)"
        case .unsignedInteger(let number): return "integer \(number)"
        case .double(let number): return "number \(number)"
        case .bool(let flag): return "boolean \(flag)"
        case .null, .array, .object: return typeName
        }
    }

    /// A one-word name of the value's JSON type, as findings print it: `string`, `number`, `boolean`, ….
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .integer, .unsignedInteger: "integer"
        case .double: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}
