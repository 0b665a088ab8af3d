#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Follows a `$ref` for a check that walks a schema: given the reference's string and the place it is written at
/// (its file decides what a relative file part is relative to), returns the value it names with its place, following
/// on through references to references; throws a `SpecError` naming the reference and the place (unresolved, or a
/// cycle that never reaches a value).
///
/// A recursive schema (a tree node whose children are nodes) resolves fine: each call follows one `$ref` to its
/// value, and the caller decides how deep to walk. The resolver reads no file: every file the document's references
/// reach was read by `SpecDocument.load`.
public typealias SpecResolver = @Sendable (_ reference: String, _ place: SpecPlace) throws(SpecError) -> SpecNode

/// An OpenAPI document (Swagger 2.0, OpenAPI 3.0.x or 3.1.x, JSON or YAML), read with the place of every value, every
/// `$ref` checked, and its operations modelled for matching requests and checking stubs.
///
/// ```swift
/// let spec = try SpecDocument.load(contentsOf: "openapi.yaml")
/// let schema = try spec.resolve("#/components/schemas/repository", at: spec.root.place)
/// if case .found(let route) = spec.match(method: "GET", url: "https://api.github.com/repos/apple/swift") {
///     print(route.operation.name, route.pathParameters)  // GET /repos/{owner}/{repo} [owner: apple, repo: swift]
/// }
/// ```
public struct SpecDocument: Sendable {
    /// The root file, as given.
    public let file: String
    /// The version.
    public let version: SpecVersion
    /// The version as written: `2.0`, `3.0.3`, `3.1.0`.
    public let versionText: String
    /// The root file's value.
    public let root: SpecNode
    /// The document's servers (3.x `servers`, with variables' defaults; 2.0 `schemes`/`host`/`basePath`); a relative
    /// `/` when it declares none.
    public let servers: [SpecServer]
    /// Every operation, in document order.
    public let operations: [SpecOperation]
    /// Keywords the model does not read (`security`, `callbacks`, `links`, `encoding`, `webhooks`, …), by place.
    public let uncheckedKeywords: [SpecUncheckedKeyword]
    let store: SpecStore
    /// The operations' path templates, indexed for matching.
    let routes: SpecRouteIndex

    /// Reads a document from disk, with every file its references reach.
    /// - Parameters:
    ///   - path: The document (`.json` is read as JSON, anything else as YAML).
    ///   - limits: Bounds on nesting, YAML aliases and the number of files.
    /// - Returns: The document.
    /// - Throws: `SpecError` with every problem found (syntax, duplicate keys, unresolved `$ref`s, reference cycles,
    ///   an unsupported version, values of the wrong kind), each with its file, line and column.
    public static func load(contentsOf path: String, limits: SpecLimits = SpecLimits()) throws(SpecError)
        -> SpecDocument
    {
        try load(file: path, limits: limits) { file in
            try Data(contentsOf: URL(fileURLWithPath: file))
        }
    }

    /// Reads a document through `read`, which gives the bytes of a file by its path (the root's as given, the others
    /// relative to the file that refers to them): for documents held in memory.
    /// - Parameters:
    ///   - file: The root file's path.
    ///   - limits: Bounds on nesting, YAML aliases and the number of files.
    ///   - read: The bytes of a file; throws when there is none.
    /// - Returns: The document.
    /// - Throws: `SpecError`, as `load(contentsOf:limits:)`.
    public static func load(
        file: String, limits: SpecLimits = SpecLimits(), reading read: @escaping (String) throws -> Data
    ) throws(SpecError) -> SpecDocument {
        var loader = SpecLoader(limits: limits, read: read)
        let rootSource: SpecSource
        switch loader.source(file) {
        case .success(let source): rootSource = source
        case .failure(let problem): throw SpecError(problem)
        }
        let root = SpecNode(root: rootSource)
        let (version, versionText) = try Self.version(of: root)
        let references = SpecReferences(version: version)
        loader.references = references
        // The reference walk and the model are made at once, on both cores: one thread walks and then helps with
        // the model, the other makes the model, path items a part at a time, the parts put together in order. Both
        // only read the files. The model follows references among the files read so far (the root); when the walk
        // reads others, the model is made again with every file.
        let rootOnly = SpecStore(sources: loader.sources, references: references)
        var builder = SpecModelBuilder(root: root, version: version, store: rootOnly)
        let work = LoadWork(loader: loader, items: builder.buildTop(), start: builder.continuation())
        if work.isLarge {
            DeepStack.concurrentPerform(name: "tether-spec-load", iterations: 2) { thread in
                if thread == 0 {
                    // The model asks for places: a JSON file's line checkpoints are counted here first, beside it.
                    _ = rootSource.lineAndColumn(of: 0)
                    work.loader.walkAll(root: rootSource)
                }
                work.buildParts()
            }
        } else {
            work.loader.walkAll(root: rootSource)
            if work.loader.sources.count == rootOnly.sources.count { work.buildParts() }
        }
        loader = work.loader
        let store = SpecStore(sources: loader.sources, references: references)
        if loader.sources.count > rootOnly.sources.count {
            builder = SpecModelBuilder(root: root, version: version, store: store)
            builder.build()
        } else {
            for part in work.parts { builder.append(part) }
        }
        // The loader walked every reference the model follows: a reference the model could not follow was reported
        // there already, in its words.
        var problems = loader.problems
        for problem in builder.problems
        where !problems.contains(where: {
            $0.file == problem.file && $0.line == problem.line && $0.column == problem.column
        }) {
            problems.append(problem)
        }
        guard problems.isEmpty else { throw SpecError(problems) }
        return SpecDocument(
            file: file, version: version, versionText: versionText, root: root, servers: builder.servers,
            operations: builder.operations, uncheckedKeywords: builder.unchecked, store: store,
            routes: SpecRouteIndex(builder.operations, servers: builder.servers))
    }

    /// Follows a `$ref` written at `place` (see `SpecResolver`).
    /// - Parameters:
    ///   - reference: The `$ref` string: `#/components/schemas/User`, `common.yaml#/Error`, `other.json`.
    ///   - place: Where it is written (its file is what a file part is relative to).
    /// - Returns: The value it names, following on through references to references.
    /// - Throws: `SpecError` naming the reference and `place`: unresolved, or a cycle.
    public func resolve(_ reference: String, at place: SpecPlace) throws(SpecError) -> SpecNode {
        try store.resolve(reference, at: place)
    }

    /// `resolve(_:at:)` as a function value, for the schema check.
    public var resolver: SpecResolver {
        let store = store
        return { (reference: String, place: SpecPlace) throws(SpecError) -> SpecNode in
            try store.resolve(reference, at: place)
        }
    }

    /// `node` itself, or, when it is a reference object (an object with a `$ref` string), the value it names.
    /// - Throws: `SpecError` when the reference does not resolve.
    public func resolved(_ node: SpecNode) throws(SpecError) -> SpecNode {
        guard let reference = node["$ref"], case .string(let text) = reference.value else { return node }
        return try resolve(text, at: reference.place)
    }

    /// The files read: the root and every file its references reach.
    public var files: [String] { store.sources.keys.sorted() }

    private static func version(of root: SpecNode) throws(SpecError) -> (SpecVersion, String) {
        guard case .object = root.value else {
            throw SpecError(
                SpecProblem(
                    .empty, at: root.place,
                    message: "not an OpenAPI document: the top is \(SpecText.a(root.value.typeName))",
                    hint: "an OpenAPI document is an object with 'openapi' (or 'swagger') and 'paths'"))
        }
        if let swagger = root["swagger"] {
            switch swagger.value {
            case .string("2.0"), .double(2.0): return (.swagger20, "2.0")
            default:
                throw SpecError(
                    SpecProblem(
                        .unsupportedVersion, at: swagger.place,
                        message: "swagger \(SpecModelBuilder.shown(swagger.value)) is not a version tether reads",
                        hint: "Swagger documents are 'swagger: \"2.0\"'; tether also reads OpenAPI 3.0.x and 3.1.x"))
            }
        }
        guard let openapi = root["openapi"] else {
            throw SpecError(
                SpecProblem(
                    .unsupportedVersion, at: root.place,
                    message: "not an OpenAPI document: no 'openapi' or 'swagger' at its top",
                    hint: "add 'openapi: 3.1.0' (or the version it follows)"))
        }
        guard case .string(let text) = openapi.value else {
            throw SpecError(
                SpecProblem(
                    .unsupportedVersion, at: openapi.place,
                    message:
                        "openapi \(SpecModelBuilder.shown(openapi.value)) is \(SpecText.a(openapi.value.typeName)), not"
                        + " a version string",
                    hint: "write the whole version in quotes: 'openapi: \"3.1.0\"'"))
        }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 3, parts[0] == "3", parts[2].allSatisfy(\.isNumber), !parts[2].isEmpty {
            if parts[1] == "0" { return (.openAPI30, text) }
            if parts[1] == "1" { return (.openAPI31, text) }
        }
        throw SpecError(
            SpecProblem(
                .unsupportedVersion, at: openapi.place,
                message: "openapi \(text.specQuoted) is not a version tether reads (2.0, 3.0.x, 3.1.x)",
                hint: "write the version the document follows, such as '3.1.0'"))
    }
}

/// What the two threads of `SpecDocument.load` share: the walk (one thread's), and the path items, handed out a part
/// at a time, each part's model kept by its number.
private final class LoadWork: @unchecked Sendable {
    var loader: SpecLoader
    private let items: [(template: String, item: SpecNode)]
    private let start: SpecModelBuilder
    private var made: [SpecModelBuilder?]
    private var next = 0
    private let lock = Lock()
    /// Path items per part: small enough that the thread done first is not left waiting for a long last part.
    private static let partSize = 32

    init(loader: SpecLoader, items: [(template: String, item: SpecNode)], start: SpecModelBuilder) {
        self.loader = loader
        self.items = items
        self.start = start
        made = Array(repeating: nil, count: (items.count + Self.partSize - 1) / Self.partSize)
    }

    /// Whether the document has enough path items for two threads to be worth starting (two parts or more): a small
    /// one is loaded on the calling thread, one step after the other.
    var isLarge: Bool { made.count >= 2 }

    /// The parts' models, in order (once every thread's `buildParts` has returned).
    var parts: [SpecModelBuilder] { made.compactMap { $0 } }

    /// Makes the model of the next part not taken, until there is none.
    func buildParts() {
        while true {
            lock.lock()
            let number = next
            next += 1
            lock.unlock()
            guard number < made.count else { return }
            var builder = start.continuation()
            let lower = number * Self.partSize
            builder.buildPaths(items[lower..<min(items.count, lower + Self.partSize)])
            lock.lock()
            made[number] = builder
            lock.unlock()
        }
    }
}

/// The files of a loaded document, shared by its copies; immutable.
final class SpecStore: Sendable {
    let sources: [String: SpecSource]
    let references: SpecReferences

    init(sources: [String: SpecSource], references: SpecReferences) {
        self.sources = sources
        self.references = references
    }

    func resolve(_ reference: String, at place: SpecPlace) throws(SpecError) -> SpecNode {
        guard let source = sources[place.file] else {
            throw SpecError(
                SpecProblem(
                    .unresolvedReference, at: place,
                    message: "unresolved $ref \(reference.specQuoted): \(place.file.specQuoted) is not a file of this"
                        + " document", hint: "give the place of the $ref as the document reported it"))
        }
        let lookup: (String) -> Result<SpecSource, SpecProblem> = { file in
            if let found = self.sources[file] { return .success(found) }
            return .failure(
                SpecProblem(
                    .unresolvedReference, file: file, message: "\(file.specQuoted) was not read with the document",
                    hint: "refer to it from a part of the document that is read (not from an example)"))
        }
        switch references.resolve(reference, from: source, at: place, lookup: lookup) {
        case .success(let target):
            return SpecNode(value: target.value, pointer: target.pointer, origin: .source(target.source, target.index))
        case .failure(let problem):
            throw SpecError(problem)
        }
    }
}
