#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A path pattern into a JSON document, in the one syntax Tether's options and rules use:
/// `$` (the root), `.key`, `["odd key"]` (a JSON string, escapes allowed), `[*]` (every element or member) and `[n]`
/// (element `n`, from 0): `$.user.email`, `$.items[*].owner["e-mail"]`, `$.list[0]`.
///
/// A pattern names values, not text: `--redact-json '$.email'` hides the value of the root object's `email`, whatever
/// it holds (an object's every leaf). Written patterns are parsed once and matched against the walk of a document.
public struct JSONPathPattern: Sendable, Equatable, CustomStringConvertible {
    /// One step from a value to a value inside it.
    public enum Step: Sendable, Equatable {
        /// An object member by key.
        case key(String)
        /// An array element by position (from 0).
        case index(Int)
        /// Every element of an array and every member of an object.
        case any
    }

    /// The steps after `$`, in order.
    public let steps: [Step]
    /// The pattern as written.
    public let description: String

    /// Parses a written pattern.
    /// - Parameter text: `$.a.b`, `$["a b"][*]`, `$.list[2]`; a leading `$` is required.
    /// - Throws: `JSONPathPatternError` quoting the pattern and the column (1-based, in characters) where it goes
    ///   wrong, saying what was expected.
    public init(_ text: String) throws(JSONPathPatternError) {
        let characters = Array(text)
        var steps: [Step] = []
        var index = 0
        func fail(_ problem: String) -> JSONPathPatternError {
            JSONPathPatternError(pattern: text, column: index + 1, problem: problem)
        }
        guard characters.first == "$" else { throw fail("'$' (the root) first, as in $.user.email") }
        index = 1
        while index < characters.count {
            switch characters[index] {
            case ".":
                index += 1
                let start = index
                while index < characters.count, Self.isKeyCharacter(characters[index]) { index += 1 }
                guard index > start else {
                    throw fail("a key after '.' (letters, digits, _ or $); write [\"odd key\"] for any other key")
                }
                steps.append(.key(String(characters[start..<index])))
            case "[":
                index += 1
                guard index < characters.count else { throw fail("*, a number or a quoted key after '['") }
                if characters[index] == "*" {
                    index += 1
                    steps.append(.any)
                } else if characters[index] == "\"" {
                    let start = index
                    index += 1
                    while index < characters.count, characters[index] != "\"" {
                        index += characters[index] == "\\" ? 2 : 1
                    }
                    guard index < characters.count else {
                        index = start
                        throw fail("a closing '\"' for the key that starts here")
                    }
                    index += 1
                    let literal = String(characters[start..<index])
                    guard case .string(let key) = try? JSONValue.parse(Array(literal.utf8)) else {
                        index = start
                        throw fail("a JSON string key such as [\"odd key\"]")
                    }
                    steps.append(.key(key))
                } else {
                    let start = index
                    while index < characters.count, characters[index].isASCII, characters[index].isNumber { index += 1 }
                    guard index > start, let position = Int(String(characters[start..<index])) else {
                        throw fail("*, a number or a quoted key after '['")
                    }
                    steps.append(.index(position))
                }
                guard index < characters.count, characters[index] == "]" else { throw fail("']'") }
                index += 1
            default:
                throw fail("'.' or '[' (write [\"odd key\"] for a key with other characters)")
            }
        }
        self.steps = steps
        self.description = text
    }

    /// The pattern of `steps`, written in the syntax `init(_:)` reads (`.key` where the key allows it, else
    /// `["odd key"]`): what a tool that proposes a path (`tether learn`) writes into a manifest.
    /// - Parameter steps: The steps after `$`.
    public init(steps: [Step]) {
        var text = "$"
        for step in steps {
            switch step {
            case .key(let key):
                if let first = key.first, !first.isNumber, key.allSatisfy(Self.isKeyCharacter) {
                    text += "." + key
                } else {
                    text += "[" + String(decoding: JSONValue.string(key).serialized(), as: UTF8.self) + "]"
                }
            case .index(let position): text += "[\(position)]"
            case .any: text += "[*]"
            }
        }
        self.steps = steps
        self.description = text
    }

    private static func isKeyCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || character == "_" || character == "$")
    }

    /// Whether the value reached by `path` (the steps from the root, concrete keys and indexes) is the one this
    /// pattern names.
    public func matches(_ path: [Step]) -> Bool {
        guard path.count == steps.count else { return false }
        return zip(steps, path).allSatisfy { pattern, step in pattern == .any || pattern == step }
    }

    /// Whether this pattern names a position of a stub's merged shape, where every array element and every value of a
    /// map is the one step `.any`: keys must be equal, and `[*]` or `[n]` names an `.any` step (the stub's elements
    /// merge, so `[n]` in the live check applies to every element). The one reading of rule paths against the shape,
    /// for the structure check, `tether update`'s merge and `tether learn`.
    /// - Parameter position: The keys and `.any` steps from the root.
    public func namesShapePosition(_ position: [Step]) -> Bool {
        steps.count == position.count
            && zip(steps, position).allSatisfy { written, step in
                switch (written, step) {
                case (.key(let a), .key(let b)): a == b
                case (.any, .any), (.index, .any): true
                default: false
                }
            }
    }

    /// Whether some value below the one reached by `path` could match (the pattern is longer and agrees so far):
    /// a walk that looks for matches need not enter a value for which this is false.
    public func mayMatchBelow(_ path: [Step]) -> Bool {
        guard path.count < steps.count else { return false }
        return zip(steps, path).allSatisfy { pattern, step in pattern == .any || pattern == step }
    }
}

extension [JSONPathPattern] {
    /// Whether one of these patterns names the position (`JSONPathPattern.namesShapePosition`): whether a rule list
    /// (`ignore`, `optional`, `nullable`, `maps`) applies there.
    /// - Parameter position: The keys and `.any` steps from the root.
    public func namesShapePosition(_ position: [JSONPathPattern.Step]) -> Bool {
        contains { $0.namesShapePosition(position) }
    }
}

/// A JSON path pattern that could not be read.
public struct JSONPathPatternError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The pattern as written.
    public var pattern: String
    /// The 1-based column (in characters) of the problem.
    public var column: Int
    /// What was expected there.
    public var problem: String

    /// `'$.a..b' is not a JSON path (column 4: expected …)`.
    public var description: String {
        "'\(pattern)' is not a JSON path (column \(column): expected \(problem))"
    }
}

extension JSONValue {
    fileprivate static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        try JSONReader().value(Data(bytes))
    }
}
