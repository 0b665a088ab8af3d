import Foundation

/// The decode check: the live body through the app's own `Decodable` model and `JSONDecoder`. It catches what a
/// structure check cannot see: enum raw values, date formats, key strategies.
public enum DecodeCheck {
    /// The findings of decoding `body` as `Model`: none when it decodes, else one drift at the coding path.
    /// - Parameters:
    ///   - model: The app's model type, e.g. `[Repository].self`.
    ///   - body: The live body.
    ///   - decoder: The app's decoder, with its strategies.
    /// - Returns: At most one finding.
    public static func findings<Model: Decodable>(decoding model: Model.Type, from body: Data, using decoder: JSONDecoder)
        -> [Finding]
    {
        do {
            _ = try decoder.decode(Model.self, from: body)
            return []
        } catch let error as DecodingError {
            return [finding(error, model: "\(Model.self)")]
        } catch {
            return [Finding(.drift, "$", "\(Model.self) does not decode: \(error)")]
        }
    }

    static func finding(_ error: DecodingError, model: String) -> Finding {
        switch error {
        case .typeMismatch(let type, let context):
            return Finding(.drift, path(context.codingPath), "\(model) does not decode (typeMismatch, \(type)): \(reason(context))")
        case .valueNotFound(let type, let context):
            return Finding(.drift, path(context.codingPath), "\(model) does not decode (valueNotFound, \(type)): \(reason(context))")
        case .keyNotFound(let key, let context):
            return Finding(
                .drift, path(context.codingPath + [key]), "\(model) does not decode (keyNotFound): \(reason(context))")
        case .dataCorrupted(let context):
            return Finding(.drift, path(context.codingPath), "\(model) does not decode (dataCorrupted): \(reason(context))")
        @unknown default:
            return Finding(.drift, "$", "\(model) does not decode: \(error)")
        }
    }

    static func reason(_ context: DecodingError.Context) -> String {
        var text = context.debugDescription
        if let underlying = context.underlyingError { text += " (\(underlying))" }
        return text
    }

    /// `$.items[3].price` from a coding path: array indices as `[3]`, identifier keys as `.key`, others as `["key"]`.
    public static func path(_ codingPath: [any CodingKey]) -> String {
        var path = "$"
        for key in codingPath {
            if let index = key.intValue, key.stringValue == "Index \(index)" {  // an array element, as Foundation names it
                path += "[\(index)]"
            } else {
                JSONPath.appendKey(key.stringValue, to: &path)
            }
        }
        return path
    }
}
