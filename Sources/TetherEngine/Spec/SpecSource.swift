#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One file of a spec, read: its value and where each part of it is, the values numbered in pre-order (a container
/// before its contents, the root 0) as `JSONDocument` numbers them, so that a walk over the value finds any part's
/// place without a second tree. Immutable once read.
final class SpecSource: Sendable {
    /// The file, as given or as reached from the root document (`specs/common.yaml`).
    let file: String
    /// The file's value.
    let root: JSONValue
    private let places: Places

    /// Where the places come from: `JSONReader`'s positions (computed on demand from byte offsets) or the marks that
    /// libyaml gave each event.
    enum Places: Sendable {
        case json(JSONDocument)
        case yaml(YAMLPlaces)
    }

    /// The members of large objects by key, made when a reference first looks into one.
    private let memberIndexes = MemberIndexes()

    init(file: String, root: JSONValue, places: Places) {
        self.file = file
        self.root = root
        self.places = places
    }

    /// The position and number of the first member `key` of the object numbered `index`, whose members are
    /// `members`; `nil` when it has none. An object of more than 16 members is indexed on first use: references
    /// into a `components/schemas` of thousands of schemas each looked for their key among all of them, and counted
    /// the values before it.
    func member(_ key: String, of index: Int, in members: [JSONMember]) -> (position: Int, index: Int)? {
        guard members.count > 16 else {
            guard let position = members.firstIndex(where: { $0.key == key }) else { return nil }
            return (position, child(of: index, at: position))
        }
        return memberIndexes.member(key, of: index, in: members, source: self)
    }

    /// The number of the member or element at `position` of the container numbered `index`: the values before it
    /// are counted past.
    func child(of index: Int, at position: Int) -> Int {
        var child = firstChild(of: index)
        for _ in 0..<position { child = value(after: child) }
        return child
    }

    /// The 1-based line and column of value `index`, or of its key when `key` is true and it has one.
    func lineAndColumn(of index: Int, key: Bool = false) -> (line: Int, column: Int) {
        switch places {
        case .json(let document): return document.lineAndColumn(ofValue: index, key: key)
        case .yaml(let places): return places.lineAndColumn(of: index, key: key)
        }
    }

    /// The number of the value after value `index` and everything inside it.
    func value(after index: Int) -> Int {
        switch places {
        case .json(let document): return document.value(after: index)
        case .yaml(let places): return places.value(after: index)
        }
    }

    /// The number of the anchored value when value `index` is a YAML alias (its contents are numbered there), else
    /// `nil`.
    func aliasTarget(of index: Int) -> Int? {
        guard case .yaml(let places) = places else { return nil }
        return places.aliasTarget(of: index)
    }

    /// The number of the first value inside container `index` (inside its anchor when it is an alias).
    func firstChild(of index: Int) -> Int { (aliasTarget(of: index) ?? index) + 1 }

    /// Whether this file was read as YAML.
    var isYAML: Bool {
        if case .yaml = places { return true }
        return false
    }
}

/// `SpecSource.member(_:of:in:)`'s indexes, shared by the threads that load a document and check against it.
private final class MemberIndexes: @unchecked Sendable {
    private struct Index {
        /// The first position of each key.
        var positions: [String: Int]
        /// The number of each member's value, by position.
        var children: [Int]
    }

    private let lock = Lock()
    private var indexes: [Int: Index] = [:]

    func member(_ key: String, of index: Int, in members: [JSONMember], source: SpecSource) -> (
        position: Int, index: Int
    )? {
        lock.lock()
        defer { lock.unlock() }
        if indexes[index] == nil {
            var positions: [String: Int] = [:]
            positions.reserveCapacity(members.count)
            var children: [Int] = []
            children.reserveCapacity(members.count)
            var child = source.firstChild(of: index)
            for (position, member) in members.enumerated() {
                if positions[member.key] == nil { positions[member.key] = position }
                children.append(child)
                child = source.value(after: child)
            }
            indexes[index] = Index(positions: positions, children: children)
        }
        guard let found = indexes[index], let position = found.positions[key] else { return nil }
        return (position, found.children[position])
    }
}

/// The places of a YAML file's values, from libyaml's marks: 24 bytes per value.
struct YAMLPlaces: Sendable {
    struct Entry: Sendable {
        var line: UInt32
        var column: UInt32
        /// The place of the value's key, 0 when it is not a mapping member.
        var keyLine: UInt32
        var keyColumn: UInt32
        /// The number of the first value after this one and everything inside it.
        var subtreeEnd: UInt32
        /// For an alias, the number of the anchored value; `noAlias` otherwise.
        var alias: UInt32
    }

    static let noAlias = UInt32.max
    var entries: [Entry] = []

    func lineAndColumn(of index: Int, key: Bool) -> (line: Int, column: Int) {
        guard entries.indices.contains(index) else { return (1, 1) }
        let entry = entries[index]
        if key, entry.keyLine > 0 { return (Int(entry.keyLine), Int(entry.keyColumn)) }
        return (Int(entry.line), Int(entry.column))
    }

    func value(after index: Int) -> Int {
        entries.indices.contains(index) ? Int(entries[index].subtreeEnd) : index + 1
    }

    func aliasTarget(of index: Int) -> Int? {
        guard entries.indices.contains(index), entries[index].alias != Self.noAlias else { return nil }
        return Int(entries[index].alias)
    }
}

extension SpecSource {
    /// Reads a file's bytes: JSON (`JSONReader`, exact places of keys and values) when the name ends in `.json`,
    /// YAML (libyaml) otherwise.
    /// - Throws: `SpecError` with the file, line and column of the first problem.
    static func read(_ bytes: Data, file: String, limits: SpecLimits) throws(SpecError) -> SpecSource {
        if file.lowercased().hasSuffix(".json") {
            return try readJSON(bytes, file: file, limits: limits)
        }
        return try YAMLReader(limits: limits).read(bytes, file: file)
    }

    private static func readJSON(_ bytes: Data, file: String, limits: SpecLimits) throws(SpecError) -> SpecSource {
        // simdjson reads it; `JSONReader` reads what simdjson refuses, to say where and why (or, should it accept
        // what simdjson refused, to read it as it reads every other JSON file).
        if let document = (try? JSONParser(maxDepth: limits.maxDepth))?.document(bytes) {
            return SpecSource(file: file, root: document.root, places: .json(document))
        }
        let document: JSONDocument
        do {
            document = try JSONReader(maxDepth: limits.maxDepth).document(bytes)
        } catch {
            let reason: SpecProblem.Reason =
                switch error.reason {
                case .empty: .empty
                case .tooDeep: .tooDeep
                case .numberOutOfRange: .numberOutOfRange
                default: .syntax
                }
            throw SpecError(
                SpecProblem(
                    reason, file: file, line: error.line, column: error.column,
                    message: error.detail.hasPrefix("not valid JSON")
                        ? error.detail : "not valid JSON: " + error.detail,
                    hint: reason == .empty ? "write the OpenAPI document into it" : "fix the JSON at that place"))
        }
        return SpecSource(file: file, root: document.root, places: .json(document))
    }
}

/// How much a spec file may hold before it is refused (never a crash or a runaway).
public struct SpecLimits: Sendable, Equatable {
    /// How deeply collections may nest (as `JSONReader`'s `maxDepth`).
    public var maxDepth: Int
    /// How many values the YAML aliases of one file may expand to in all (the "billion laughs": a few lines whose
    /// aliases of aliases stand for a billion values).
    public var maxAliasValues: Int
    /// How many bytes of text (scalars and keys) the YAML aliases of one file may expand to in all: a few aliases of
    /// a long string stand for gigabytes that `import --spec` would write out.
    public var maxAliasBytes: Int
    /// How many files a document may reach through `$ref`.
    public var maxFiles: Int

    /// - Parameters: as the properties.
    public init(
        maxDepth: Int = 1024, maxAliasValues: Int = 1_000_000, maxAliasBytes: Int = 16 << 20, maxFiles: Int = 1000
    ) {
        self.maxDepth = max(1, maxDepth)
        self.maxAliasValues = max(0, maxAliasValues)
        self.maxAliasBytes = max(0, maxAliasBytes)
        self.maxFiles = max(1, maxFiles)
    }
}
