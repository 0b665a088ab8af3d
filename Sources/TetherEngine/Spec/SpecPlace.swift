/// Where a value of an OpenAPI document is: its file, its JSON pointer, and its line and column in the file's bytes
/// (JSON and YAML alike), as findings and errors name it: `openapi.yaml:812:9`,
/// `#/components/schemas/repository/properties/owner`.
public struct SpecPlace: Sendable, Hashable, CustomStringConvertible {
    /// The document's path, as given (`openapi.yaml`, `specs/common.yaml`).
    public var file: String
    /// The JSON pointer of the value in its document, with `#` (RFC 6901 escaping: `~0`, `~1`): `#/paths/~1users`.
    public var pointer: String
    /// 1-based line of the value's first character.
    public var line: Int
    /// 1-based column of the value's first character, in characters.
    public var column: Int

    /// - Parameters: as the properties.
    public init(file: String, pointer: String, line: Int, column: Int) {
        self.file = file
        self.pointer = pointer
        self.line = line
        self.column = column
    }

    /// `openapi.yaml:812:9`.
    public var description: String { "\(file):\(line):\(column)" }
}
