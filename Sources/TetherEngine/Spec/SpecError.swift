/// Why an OpenAPI document could not be read: every problem found, each with its file, line and column, so that a run
/// can list them all before anything is sent (exit 2 in the CLI).
///
/// The one error type of the spec layer: the YAML and JSON readers, the `$ref` resolver and the model throw it.
public struct SpecError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The problems, in the order found (one for a syntax error, which stops a file's reading).
    public var problems: [SpecProblem]

    /// - Parameter problems: at least one.
    public init(_ problems: [SpecProblem]) {
        self.problems = problems
    }

    /// One problem, as an error.
    public init(_ problem: SpecProblem) {
        self.problems = [problem]
    }

    /// One line per problem: `openapi.yaml:12:5: duplicate key 'get' …`.
    public var description: String { problems.map(\.description).joined(separator: "\n") }
}

/// One problem of a document: where, what, and what to do.
public struct SpecProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of problem, for code (and tests) that must tell them apart.
    public enum Reason: Sendable, Equatable {
        /// The file could not be read (missing, a folder, no permission).
        case unreadable
        /// Not valid YAML or JSON (libyaml's or `JSONReader`'s own words).
        case syntax
        /// No document in the file, or a document that is not an object.
        case empty
        /// A YAML stream with a second document (`---`).
        case multipleDocuments
        /// A key written twice in one mapping or object.
        case duplicateKey
        /// A YAML key that is a mapping, a sequence or an alias.
        case nonScalarKey
        /// Aliases that expand beyond the reader's limit (the YAML "billion laughs").
        case aliasLimit
        /// Collections nested deeper than the reader's limit.
        case tooDeep
        /// A YAML tag outside the core schema (`!!binary`, `!custom`), or a YAML 1.1 merge key (`<<`).
        case unsupportedYAML
        /// A number no `Int64`, `UInt64` or `Double` holds.
        case numberOutOfRange
        /// A scalar whose explicit tag it does not fit (`!!int abc`).
        case invalidScalar
        /// `openapi`/`swagger` missing or not 2.0, 3.0.x or 3.1.x.
        case unsupportedVersion
        /// A `$ref` whose file or value does not exist, or that Tether cannot follow (a URL, a non-pointer fragment).
        case unresolvedReference
        /// References that lead only to each other and never reach a value.
        case referenceCycle
        /// A value of the wrong kind where the OpenAPI model reads it (`paths` a list, a status `ok`).
        case invalidValue
    }

    /// The kind of problem.
    public var reason: Reason
    /// The file, as given or as reached from the document (`specs/common.yaml`).
    public var file: String
    /// 1-based line, when the problem has a place in the file.
    public var line: Int?
    /// 1-based column in characters, when the problem has a place in the file.
    public var column: Int?
    /// The JSON pointer of the value concerned (`#/paths/~1users/get`), when known.
    public var pointer: String?
    /// What is wrong, lower-case, quoting the value: `duplicate key 'get' (first at line 8, column 5)`.
    public var message: String
    /// What to do: `remove or rename one of them`.
    public var hint: String?

    /// - Parameters: as the properties.
    public init(
        _ reason: Reason, file: String, line: Int? = nil, column: Int? = nil, pointer: String? = nil,
        message: String, hint: String? = nil
    ) {
        self.reason = reason
        self.file = file
        self.line = line
        self.column = column
        self.pointer = pointer
        self.message = message
        self.hint = hint
    }

    /// A problem at a place of a document.
    init(_ reason: Reason, at place: SpecPlace, message: String, hint: String? = nil) {
        self.init(
            reason, file: place.file, line: place.line, column: place.column, pointer: place.pointer,
            message: message, hint: hint)
    }

    /// `openapi.yaml:12:5: duplicate key 'get' (first at line 8, column 5) at #/paths/~1users; remove one of them`.
    public var description: String { text(kind: nil) }

    /// The problem in the compiler's form that editors, Xcode and CI problem matchers read, as a contract error is
    /// printed: `openapi.yaml:12:5: error: duplicate key 'get' …`.
    public var diagnostic: String { text(kind: "error") }

    private func text(kind: String?) -> String {
        var text = file
        if let line, let column { text += ":\(line):\(column)" }
        text += ": " + (kind.map { $0 + ": " } ?? "") + message
        if let pointer, !pointer.isEmpty, pointer != "#" { text += " at \(pointer)" }
        if let hint { text += "; " + hint }
        return text
    }
}

extension String {
    /// The string in single quotes for a message, shortened past 80 characters: `'#/components/schemas/Usr'`.
    var specQuoted: String {
        let limit = 80
        let shown = count > limit ? String(prefix(limit)) + "…" : self
        return "'" + shown + "'"
    }
}
