/// How a value is read against a schema.
public enum SchemaCheckMode: Sendable, Equatable {
    /// JSON Schema's own semantics (what the JSON-Schema-Test-Suite and other validators check).
    case standard
    /// As the app that decodes the value needs it: a member the schema does not declare (in `properties`,
    /// `patternProperties`, a schema-valued `additionalProperties`, or a branch of `allOf`/`anyOf`/`oneOf` that
    /// applies) is a violation whatever `additionalProperties` allows, because the app would read a field the spec
    /// never promised; a `required` member the value lacks is a note (the app may not read it); `null` fits a schema
    /// with `nullable: true` even without `type` beside it (3.0.3 says it adds to `type` only; generators and apps read
    /// such a property as optional). Everything else is as `standard`.
    case consumer
}

/// One thing a schema check found in a value: a violation of the schema, or a note (a keyword not checked, a
/// required member the consumer's reading lets pass).
public struct SchemaViolation: Sendable, Equatable, CustomStringConvertible {
    /// Whether it breaks the schema or only informs.
    public enum Severity: Sendable, Equatable {
        /// The value does not fit the schema.
        case violation
        /// Worth knowing, not a failure: a keyword not checked, or (consumer mode) a missing required member.
        case note
    }

    /// Violation or note.
    public var severity: Severity
    /// Where in the value: `$.items[3].state`.
    public var location: JSONLocation
    /// The keyword that found it, as the schema writes it: `enum`, `type`, `required`, `oneOf`; `properties` for
    /// a member the consumer's reading finds undeclared.
    public var keyword: String
    /// Where in the schema: the keyword's own place where it has one (`#/components/schemas/pr/properties/state/enum`),
    /// else the schema's.
    public var place: SpecPlace
    /// What the schema asks for, for tools: `one of ["open","closed"]`, `string`, `member "login"`; `nil` for a
    /// note that compares nothing.
    public var expected: String?
    /// What the value has, excerpted: `"merged"`, `integer 12`, `absent`.
    public var actual: String?
    /// The whole sentence, lower case: `expected one of ["open","closed"], got "merged"`.
    public var message: String
    /// For `oneOf` and `anyOf`: each branch tried and why it failed (with a discriminator: only the chosen one).
    public var branches: [SchemaBranch]

    /// - Parameters: as the properties.
    public init(
        _ severity: Severity, at location: JSONLocation, keyword: String, place: SpecPlace, expected: String?,
        actual: String?, message: String, branches: [SchemaBranch] = []
    ) {
        self.severity = severity
        self.location = location
        self.keyword = keyword
        self.place = place
        self.expected = expected
        self.actual = actual
        self.message = message
        self.branches = branches
    }

    /// Whether it is a violation (not a note).
    public var isViolation: Bool { severity == .violation }

    /// `$.state: expected one of ["open","closed"], got "merged" (openapi.yaml:812:9, #/…/state/enum)`.
    public var description: String { "\(location): \(message) (\(place), \(place.pointer))" }
}

/// One branch of a `oneOf` or `anyOf` as the check tried it.
public struct SchemaBranch: Sendable, Equatable {
    /// Its index in the keyword's list, from 0.
    public var index: Int
    /// The branch's schema (a `$ref` branch: the schema it names).
    public var place: SpecPlace
    /// Whether the value fits it.
    public var isMatch: Bool
    /// Why it does not fit: its first few violations (empty for a match).
    public var reasons: [SchemaViolation]

    /// - Parameters: as the properties.
    public init(index: Int, place: SpecPlace, isMatch: Bool, reasons: [SchemaViolation]) {
        self.index = index
        self.place = place
        self.isMatch = isMatch
        self.reasons = reasons
    }
}

/// Values as the schema check's messages quote them: compact JSON cut after about 60 characters, as the structure
/// check's findings do.
enum SchemaText {
    /// `"merged"`, `12`, `{"a":1,"b":…`.
    static func excerpt(_ value: JSONValue, limit: Int = 60) -> String {
        var text = ""
        if append(value, to: &text, limit: limit) { return text }
        return String(text.prefix(limit)) + "…"
    }

    /// The value with its JSON type: `string "12"`, `integer 12`, `number 1.5`, `object {"a":1}`, `null`.
    static func typed(_ value: JSONValue) -> String {
        if case .null = value { return "null" }
        return "\(value.typeName) \(excerpt(value))"
    }

    /// Appends `value` as compact JSON; `false` once the text passed `limit` (the rest left out).
    private static func append(_ value: JSONValue, to text: inout String, limit: Int) -> Bool {
        if text.count > limit { return false }
        switch value {
        case .array(let items):
            text += "["
            for (offset, item) in items.enumerated() {
                if offset > 0 { text += "," }
                if !append(item, to: &text, limit: limit) { return false }
            }
            text += "]"
        case .object(let members):
            text += "{"
            for (offset, member) in members.enumerated() {
                if offset > 0 { text += "," }
                text += quoted(member.key, limit: limit) + ":"
                if !append(member.value, to: &text, limit: limit) { return false }
            }
            text += "}"
        case .string(let string): text += quoted(string, limit: limit)
        default: text += ContractRules.describe(value)
        }
        return text.count <= limit
    }

    /// A string as JSON writes it, at most `limit` characters of it.
    private static func quoted(_ string: String, limit: Int) -> String {
        ContractRules.describe(.string(string.count > limit ? String(string.prefix(limit + 1)) : string))
    }

    /// A list of values: `["open","closed"]`, cut as `excerpt`.
    static func list(_ values: [JSONValue]) -> String { excerpt(.array(values), limit: 120) }

    /// A number as a bound prints it: `1`, `0.5`, `1e+30`.
    static func number(_ number: SchemaNumber) -> String {
        switch number {
        case .integer(let value): String(value)
        case .unsignedInteger(let value): String(value)
        case .double(let value):
            if value == value.rounded(), abs(value) < 1e15 { String(Int64(value)) } else { "\(value)" }
        }
    }

    /// `"a", "b" and "c"`.
    static func names(_ names: [String]) -> String {
        let quoted = names.map { ContractRules.describe(.string($0)) }
        guard quoted.count > 1 else { return quoted.first ?? "" }
        return quoted.dropLast().joined(separator: ", ") + " and " + quoted[quoted.count - 1]
    }
}
