/// Which OpenAPI version's Schema Object a schema is read as.
///
/// The dialects differ in a few keywords: `nullable` (3.0), `x-nullable` (2.0), `prefixItems`, boolean schemas and
/// `$ref` beside other keywords (3.1, JSON Schema 2020-12), and whether a number written `1.0` is an integer (3.1:
/// yes; 2.0 and 3.0, whose Schema Object is JSON Schema draft 4's: no).
public enum SchemaDialect: String, Sendable, CaseIterable {
    /// Swagger 2.0's Schema Object (JSON Schema draft 4, plus `discriminator` as a property name, `x-nullable`).
    case openAPI20 = "2.0"
    /// OpenAPI 3.0's Schema Object (JSON Schema draft 4 adjusted: `nullable`, `discriminator`).
    case openAPI30 = "3.0"
    /// OpenAPI 3.1's Schema Object: JSON Schema 2020-12 with `discriminator`.
    case openAPI31 = "3.1"

    /// Whether `$ref` replaces the object it is in (2.0 and 3.0: its siblings are ignored) rather than being one
    /// keyword among others (3.1).
    var refReplacesSiblings: Bool { self != .openAPI31 }
}

/// A value of an OpenAPI document together with where it is: what a `SchemaSource` gives for a `$ref`.
public struct SchemaValue: Sendable {
    /// The value.
    public var value: JSONValue
    /// Where it is.
    public var place: SpecPlace

    /// - Parameters: as the properties.
    public init(_ value: JSONValue, at place: SpecPlace) {
        self.value = value
        self.place = place
    }
}

/// What the schema check asks of the document a schema comes from, while it compiles the schema (never while it
/// checks a value): the value a `$ref` names, and the place of each part of a schema.
///
/// The spec reader implements it over its documents; a test implements it over one JSON file and its neighbours.
public protocol SchemaSource {
    /// The value that `reference` names, with its place.
    /// - Parameters:
    ///   - reference: The `$ref` string as written: `#/components/schemas/repo`, `common.yaml#/User`,
    ///     `user.json`.
    ///   - place: Where the `$ref` is (its file is what a relative reference is relative to).
    /// - Returns: The referenced value and its place.
    /// - Throws: Any error that says why it does not resolve; the compiler reports it with the `$ref`'s place.
    func resolve(_ reference: String, at place: SpecPlace) throws -> SchemaValue

    /// The place of the member `key` of the object at `parent`.
    /// - Parameters:
    ///   - key: The member's key.
    ///   - parent: The object's place.
    /// - Returns: The member value's place: the pointer extended by `key`, with its own line and column.
    func place(ofMember key: String, in parent: SpecPlace) -> SpecPlace

    /// The place of element `index` of the array at `parent`.
    /// - Parameters:
    ///   - index: The element's index, from 0.
    ///   - parent: The array's place.
    /// - Returns: The element's place.
    func place(ofElement index: Int, in parent: SpecPlace) -> SpecPlace
}

extension SchemaSource {
    /// The pointer extended by `key`, at the parent's line and column (a source that cannot tell better).
    public func place(ofMember key: String, in parent: SpecPlace) -> SpecPlace {
        SpecPlace(
            file: parent.file, pointer: parent.pointer + "/" + SpecPlace.escaped(key), line: parent.line,
            column: parent.column)
    }

    /// The pointer extended by `index`, at the parent's line and column.
    public func place(ofElement index: Int, in parent: SpecPlace) -> SpecPlace {
        SpecPlace(file: parent.file, pointer: parent.pointer + "/\(index)", line: parent.line, column: parent.column)
    }
}

extension SpecPlace {
    /// `key` as one JSON pointer token (RFC 6901): `~` as `~0`, `/` as `~1`, every one of them, also where a
    /// combining mark follows it (`SpecNode.escape`, as the document's own pointers are made).
    /// - Parameter key: A member's key.
    /// - Returns: The escaped token: `~1users~1{id}` for `/users/{id}`.
    public static func escaped(_ key: String) -> String { SpecNode.escape(key) }
}

/// A schema that cannot be compiled: a `$ref` that does not resolve, or a cycle that no value could end.
///
/// A keyword whose value is malformed (`required: true`, `minimum: "1"`) is not an error: it is a "not checked" note
/// at that keyword, as any keyword Tether does not check.
public struct SchemaError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where: the `$ref`, or the first schema of the cycle.
    public var place: SpecPlace
    /// What is wrong and what to do, lower case.
    public var message: String

    /// - Parameters: as the properties.
    public init(at place: SpecPlace, _ message: String) {
        self.place = place
        self.message = message
    }

    /// `openapi.yaml:12:9: #/components/schemas/a/properties/b: $ref '#/components/schemas/c' does not resolve: …`.
    public var description: String { "\(place): \(place.pointer): \(message)" }

    /// In the compiler's form, as `SpecProblem.diagnostic`: `openapi.yaml:12:9: error: #/components/…: $ref …`.
    public var diagnostic: String { "\(place): error: \(place.pointer): \(message)" }
}
