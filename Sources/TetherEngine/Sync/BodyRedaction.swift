#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What `record` (and `update`) hide in a live exchange before any of it is written to a file: the run's secrets, as
/// `Redactor` finds them in every encoding, and the values that `--redact-json '$.path'` names (personal data).
///
/// JSON bodies are redacted value by value, so the result is still JSON of the same structure and replays with the
/// same verdicts: a secret that stands as a word in a string becomes `<redacted>` within it (also in keys; a short
/// credential inside a longer word is left, `Redactor.redactWords`), a number that is one keeps its type (`0`), and a
/// value a pattern names
/// keeps its type: a string becomes `"<redacted>"`, an integer `0`, a fraction `0.0`, a boolean `false`, `null` stays,
/// and in an object or array every such value inside it. A body that is not JSON is redacted as bytes. A body with
/// nothing to hide is kept byte for byte; a redacted JSON body is written compactly.
public struct BodyRedaction: Sendable {
    /// The run's secrets.
    public var secrets: Redactor
    /// `--redact-json` patterns.
    public var patterns: [JSONPathPattern]

    /// - Parameters: as the properties.
    public init(secrets: Redactor, patterns: [JSONPathPattern] = []) {
        self.secrets = secrets
        self.patterns = patterns
    }

    /// `body` without secrets and without the values the patterns name.
    /// - Parameter body: A request or response body, decoded (not gzip).
    /// - Returns: The body to store (the same bytes when there is nothing to hide).
    public func redact(body: Data) -> Data {
        guard !body.isEmpty, !(secrets.isEmpty && patterns.isEmpty) else { return body }
        // Not JSON (an image, a form): every occurrence, since bytes around a secret say nothing of words.
        guard let value = try? JSONReader().value(body) else { return secrets.redact(body) }
        let (redacted, isChanged) = redact(value)
        return isChanged ? redacted.serialized() : body
    }

    /// A JSON value without secrets and without the values the patterns name.
    /// - Parameter value: The value.
    /// - Returns: The redacted value, and whether anything changed.
    public func redact(_ value: JSONValue) -> (value: JSONValue, isChanged: Bool) {
        var path: [JSONPathPattern.Step] = []
        var isChanged = false
        let result = walk(value, path: &path, isChanged: &isChanged)
        return (result, isChanged)
    }

    /// Recursive: JSONReader bounds the depth (1,024), so the stack is bounded too.
    private func walk(_ value: JSONValue, path: inout [JSONPathPattern.Step], isChanged: inout Bool) -> JSONValue {
        if patterns.contains(where: { $0.matches(path) }) {
            let hidden = Self.hidden(value)
            if hidden != value { isChanged = true }
            return hidden
        }
        switch value {
        case .string(let text):
            let redacted = secrets.redactWords(text)
            if redacted != text { isChanged = true }
            return .string(redacted)
        case .integer, .unsignedInteger, .double:
            // A secret spelled as a number (an account id from `${ACCOUNT}`) cannot become text: keep the type.
            let spelling = String(decoding: value.serialized(), as: UTF8.self)
            guard secrets.redactWords(spelling) != spelling else { return value }
            isChanged = true
            return Self.hidden(value)
        case .null, .bool:
            return value
        case .array(let elements):
            var result: [JSONValue] = []
            result.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                path.append(.index(index))
                result.append(walk(element, path: &path, isChanged: &isChanged))
                path.removeLast()
            }
            return .array(result)
        case .object(let members):
            var result: [JSONMember] = []
            result.reserveCapacity(members.count)
            for member in members {
                path.append(.key(member.key))
                let key = secrets.redactWords(member.key)
                if key != member.key { isChanged = true }
                result.append(JSONMember(key, walk(member.value, path: &path, isChanged: &isChanged)))
                path.removeLast()
            }
            return .object(result)
        }
    }

    /// The same structure with every value replaced by its type's placeholder.
    static func hidden(_ value: JSONValue) -> JSONValue {
        switch value {
        case .null: .null
        case .bool: .bool(false)
        case .integer, .unsignedInteger: .integer(0)
        case .double: .double(0)
        case .string: .string(Redactor.marker)
        case .array(let elements): .array(elements.map(hidden))
        case .object(let members): .object(members.map { JSONMember($0.key, hidden($0.value)) })
        }
    }
}
