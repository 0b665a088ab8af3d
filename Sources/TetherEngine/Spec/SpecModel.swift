#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The OpenAPI versions Tether reads.
public enum SpecVersion: Sendable, Equatable {
    /// Swagger 2.0 (`swagger: "2.0"`).
    case swagger20
    /// OpenAPI 3.0.x (`openapi: 3.0.3`).
    case openAPI30
    /// OpenAPI 3.1.x (`openapi: 3.1.0`).
    case openAPI31
}

/// A server a document's operations are served from: 3.x `servers` (with each variable's default put in), or 2.0's
/// `schemes`, `host` and `basePath`.
public struct SpecServer: Sendable, Equatable {
    /// The URL as written (`https://{region}.example.com/v1`, `/api/v3`).
    public var template: String
    /// The URL with every variable's default: `https://eu.example.com/v1`; relative when written so (`/api/v3`).
    public var url: String
    /// The host (and port) of `url`, lower-case, or `nil` for a relative URL: `eu.example.com`.
    public var host: String?
    /// The path of `url` without a trailing `/`: `/v1`, or empty for none.
    public var basePath: String
    /// Where it is written.
    public var place: SpecPlace
}

/// Where a parameter goes.
public enum SpecParameterLocation: String, Sendable, Equatable {
    case path, query, header, cookie
    /// Swagger 2.0 form fields (`in: formData`).
    case formData
}

/// A parameter of an operation, after path-level and operation-level ones are merged and `$ref`s followed.
public struct SpecParameter: Sendable {
    /// Its name (`owner`, `per_page`, `X-GitHub-Api-Version`).
    public var name: String
    /// Where it goes.
    public var location: SpecParameterLocation
    /// Whether a request must have it (path parameters always do).
    public var isRequired: Bool
    /// Its schema: 3.x `schema`; in 2.0 a schema made of the parameter's own `type`, `format`, `items`, `enum`,
    /// bounds and `pattern` (placed at the parameter). `nil` when it has none (3.x `content` instead).
    public var schema: SpecNode?
    /// 3.x `content` instead of `schema`: the schema by media type.
    public var content: [SpecMediaType]
    /// 3.x `style` (`form`, `simple`, …) and `explode` as written; 2.0 `collectionFormat` as `style`.
    public var style: String?
    /// 3.x `explode` as written.
    public var explode: Bool?
    /// The parameter object (after `$ref`).
    public var node: SpecNode
}

/// A request body: 3.x `requestBody`, or 2.0's `in: body` parameter with the operation's `consumes`.
public struct SpecRequestBody: Sendable {
    /// Whether a request must have a body.
    public var isRequired: Bool
    /// The body's schema by media type.
    public var content: [SpecMediaType]
    /// The request body object (or the 2.0 body parameter).
    public var node: SpecNode

    /// The media type for a request's `Content-Type` (see `SpecMediaType.best(for:in:)`).
    public func mediaType(for contentType: String?) -> SpecMediaType? {
        SpecMediaType.best(for: contentType, in: content)
    }
}

/// One media type of a body: its schema and its examples.
public struct SpecMediaType: Sendable {
    /// The media type as written: `application/json`, `application/*`, `*/*`.
    public var name: String
    /// Its schema (not followed when it is a `$ref`: the schema check resolves), or `nil` for none.
    public var schema: SpecNode?
    /// Its examples: 3.x `example` and `examples` (references followed), 2.0 response `examples` for this type.
    public var examples: [SpecExample]
    /// Where it is written (the media type object; in 2.0 the response or body parameter).
    public var place: SpecPlace

    /// The media type that describes a body of `contentType` (parameters such as `charset` ignored): the exact one,
    /// then `type/*`, then `*/*`; with no content type, the first.
    public static func best(for contentType: String?, in types: [SpecMediaType]) -> SpecMediaType? {
        guard let contentType else { return types.first }
        let wanted = essence(contentType)
        if let exact = types.first(where: { essence($0.name) == wanted }) { return exact }
        let major = wanted.split(separator: "/").first.map(String.init) ?? wanted
        if let range = types.first(where: { essence($0.name) == major + "/*" }) { return range }
        return types.first { essence($0.name) == "*/*" }
    }

    /// A media type without its parameters, lower-cased: `application/json; charset=utf-8` → `application/json`.
    static func essence(_ text: String) -> String {
        (text.split(separator: ";").first.map(String.init) ?? text).trimmingWhitespace().lowercased()
    }
}

/// An example of a body, for `tether import --spec` and for checks.
public struct SpecExample: Sendable {
    /// Its name under `examples` (`default`, `octocat`), or `nil` for `example`.
    public var name: String?
    /// Its `summary`, if any.
    public var summary: String?
    /// The example value, or `nil` when it has only `externalValue`.
    public var value: SpecNode?
    /// 3.x `externalValue`: a URL or path of the example, not read.
    public var externalValue: String?
    /// Where it is written (after following a `$ref`).
    public var place: SpecPlace
}

/// A response header.
public struct SpecHeader: Sendable {
    /// Its name, as written.
    public var name: String
    /// Whether the response must have it.
    public var isRequired: Bool
    /// Its schema (2.0: made of the header's own keywords).
    public var schema: SpecNode?
    /// The header object (after `$ref`).
    public var node: SpecNode
}

/// A documented response of an operation.
public struct SpecResponse: Sendable {
    /// The status as written, ranges upper-cased: `200`, `2XX`, `default`.
    public var status: String
    /// Its `description`.
    public var description: String?
    /// The body by media type: 3.x `content`; in 2.0 the one `schema` under each of the operation's `produces`
    /// (`*/*` when the document declares none), with `examples` by type.
    public var content: [SpecMediaType]
    /// Its headers.
    public var headers: [SpecHeader]
    /// The response object (after `$ref`).
    public var node: SpecNode

    /// The media type for a response's `Content-Type` (see `SpecMediaType.best(for:in:)`).
    public func mediaType(for contentType: String?) -> SpecMediaType? {
        SpecMediaType.best(for: contentType, in: content)
    }

    /// Whether this response is for `status`: its exact code, its range (`2XX`) or `default`.
    func covers(_ status: Int) -> Bool {
        status == Int(self.status) || self.status == "\(status / 100)XX" || self.status == "default"
    }
}

/// One operation: a method on a path template.
public struct SpecOperation: Sendable {
    /// The method, upper-case: `GET`.
    public var method: String
    /// The path template as written under `paths`: `/repos/{owner}/{repo}`.
    public var path: String
    /// Its `operationId`, if any.
    public var operationId: String?
    /// Its `summary`, if any.
    public var summary: String?
    /// Its `tags`.
    public var tags: [String]
    /// Whether it is `deprecated`.
    public var isDeprecated: Bool
    /// Path-level and operation-level parameters merged (the operation's win by name and location; header names
    /// compared without case), `$ref`s followed; the 2.0 body parameter is `requestBody` instead.
    public var parameters: [SpecParameter]
    /// The request body, if the operation takes one.
    public var requestBody: SpecRequestBody?
    /// The responses, in document order.
    public var responses: [SpecResponse]
    /// The servers that apply: the operation's own, else its path's, else the document's (3.x); 2.0's from
    /// `schemes`, `host` and `basePath`.
    public var servers: [SpecServer]
    /// The operation object.
    public var node: SpecNode

    /// The response documented for `status`: the exact code, then its range (`2XX`), then `default`.
    public func response(for status: Int) -> SpecResponse? {
        responses.first { Int($0.status) == status } ?? responses.first { $0.status == "\(status / 100)XX" }
            ?? responses.first { $0.status == "default" }
    }

    /// `GET /repos/{owner}/{repo}`.
    public var name: String { "\(method) \(path)" }
}

/// A keyword of the document that the model does not read, so that a run can say it was not checked instead of
/// passing in silence: `security`, `callbacks`, `links`, `encoding`, `webhooks`, ….
public struct SpecUncheckedKeyword: Sendable, Equatable {
    /// The keyword: `security`.
    public var keyword: String
    /// Where it is (its pointer says in which operation or response).
    public var place: SpecPlace
}
