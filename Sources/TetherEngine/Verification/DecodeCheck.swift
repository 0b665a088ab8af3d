#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The decode check: the live body through the app's own `Decodable` model and `JSONDecoder`. It catches what a
/// structure check cannot see: enum raw values, date formats, key strategies.
public enum DecodeCheck {
    /// The findings of decoding `body` as `Model`: none when it decodes, else one drift at the coding path.
    /// - Parameters:
    ///   - model: The app's model type, e.g. `[Repository].self`.
    ///   - body: The live body.
    ///   - decoder: The app's decoder, with its strategies.
    /// - Returns: At most one finding.
    public static func findings<Model: Decodable>(
        decoding model: Model.Type, from body: Data, using decoder: JSONDecoder
    )
        -> [Finding]
    {
        do {
            _ = try decoder.decode(Model.self, from: body)
            return []
        } catch let error as DecodingError {
            let keys = KeyResolver(document: try? JSONValue.parse(body), strategy: decoder.keyDecodingStrategy)
            return [finding(error, model: "\(Model.self)", keys: keys)]
        } catch {
            return [
                Finding(
                    .drift, .decode, at: .json(.root), "\(Model.self) does not decode: \(error)",
                    expected: "\(Model.self)")
            ]
        }
    }

    static func finding(_ error: DecodingError, model: String, keys: KeyResolver = KeyResolver()) -> Finding {
        let at = { (codingPath: [any CodingKey], missing: (any CodingKey)?) -> Finding.Location in
            .json(keys.location(codingPath, missing: missing))
        }
        switch error {
        case .typeMismatch(let type, let context):
            return Finding(
                .drift, .decode, at: at(context.codingPath, nil),
                "\(model) does not decode (typeMismatch, \(type)): \(reason(context))", expected: model)
        case .valueNotFound(let type, let context):
            return Finding(
                .drift, .decode, at: at(context.codingPath, nil),
                "\(model) does not decode (valueNotFound, \(type)): \(reason(context))", expected: model)
        case .keyNotFound(let key, let context):
            return Finding(
                .drift, .decode, at: at(context.codingPath, key),
                "\(model) does not decode (keyNotFound): \(reason(context))", expected: model)
        case .dataCorrupted(let context):
            return Finding(
                .drift, .decode, at: at(context.codingPath, nil),
                "\(model) does not decode (dataCorrupted): \(reason(context))", expected: model)
        @unknown default:
            return Finding(
                .drift, .decode, at: .json(.root), "\(model) does not decode: \(error)", expected: model)
        }
    }

    static func reason(_ context: DecodingError.Context) -> String {
        var text = context.debugDescription
        if let underlying = context.underlyingError { text += " (\(underlying))" }
        return text
    }

    /// `$.items[3].price` from a coding path: array indices as `[3]`, identifier keys as `.key`, others as `["key"]`.
    public static func path(_ codingPath: [any CodingKey]) -> String {
        location(codingPath).description
    }

    /// The place in the document a coding path names.
    /// - Parameter codingPath: The decoder's coding path.
    /// - Returns: Its keys and indices.
    public static func location(_ codingPath: [any CodingKey]) -> JSONLocation {
        JSONLocation(
            codingPath.map { key in
                // Foundation names an array element's key "Index 3".
                if let index = key.intValue, key.stringValue == "Index \(index)" { return .index(index) }
                return .key(key.stringValue)
            })
    }
}

/// Turns a coding path into the JSON path of the live document: a key the decoder converted (snake_case keys read as
/// camelCase properties) is shown as the document spells it.
struct KeyResolver {
    var document: JSONValue?
    var isSnakeCase = false

    init() {}

    init(document: JSONValue?, strategy: JSONDecoder.KeyDecodingStrategy) {
        self.document = document
        if case .convertFromSnakeCase = strategy { isSnakeCase = true }
    }

    /// The place of `codingPath` (then `missing`, a key that is not there) in the document.
    func location(_ codingPath: [any CodingKey], missing: (any CodingKey)?) -> JSONLocation {
        var keys: [any CodingKey] = []
        var node = document
        for key in codingPath {
            if let index = key.intValue, key.stringValue == "Index \(index)" {
                keys.append(key)
                if case .array(let elements) = node, elements.indices.contains(index) {
                    node = elements[index]
                } else {
                    node = nil
                }
            } else {
                let name = documentKey(for: key.stringValue, in: node)
                keys.append(PathKey(stringValue: name))
                node = node?[name]
            }
        }
        if let missing {
            keys.append(PathKey(stringValue: isSnakeCase ? Self.snakeCase(missing.stringValue) : missing.stringValue))
        }
        return DecodeCheck.location(keys)
    }

    /// The member of `node` the decoder read as `key`: itself, else the one that differs only by `_` and case.
    private func documentKey(for key: String, in node: JSONValue?) -> String {
        guard case .object(let members) = node, !members.contains(where: { $0.key == key }) else { return key }
        let folded = key.lowercased()
        let matches = members.filter { $0.key.replacingText("_", with: "").lowercased() == folded }
        return matches.count == 1 ? matches[0].key : key
    }

    /// `stargazersCount` → `stargazers_count`, as `JSONEncoder.KeyEncodingStrategy.convertToSnakeCase` writes it.
    static func snakeCase(_ key: String) -> String {
        var result = ""
        for character in key {
            if character.isUppercase, !result.isEmpty { result += "_" }
            result += character.lowercased()
        }
        return result
    }
}

private struct PathKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }

    init(stringValue: String) {
        self.stringValue = stringValue
    }

    init?(intValue: Int) {
        nil
    }
}
