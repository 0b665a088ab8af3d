#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A value inside a manifest together with where it is, so every error can name the file, the JSON location, and
/// the line and column in the file's bytes.
struct ManifestNode: Sendable {
    let value: JSONValue
    let file: String
    /// The document the value was read from, and the value's number in it (see `JSONPositions`).
    let document: JSONDocument
    let index: Int
    /// Where the value is: a location, the key in it of the value's parent, and the value's key in its parent
    /// (`nil` for an array element or the root, whose location is `outerLocation` itself, and `outerKey` is `nil`
    /// then too). Spelled only when asked for (an error, a stub's source): most values are read and never named, and
    /// a member of a member (a target's `sampleData.json`) is made without spelling its parent's location.
    private let outerLocation: String
    private let outerKey: String?
    private let key: String?

    /// The root of a manifest read from `file`.
    init(root document: JSONDocument, file: String) {
        self.init(value: document.root, file: file, outerLocation: "", document: document, index: 0)
    }

    /// Element `offset` of `array`, read on its own as `document` (see `JSONReader.document(of:in:deferring:)`).
    init(element offset: Int, of array: ManifestNode, document: JSONDocument) {
        self.init(
            value: document.root, file: array.file, outerLocation: Self.elementLocation(offset, in: array.location),
            document: document, index: 0)
    }

    private init(
        value: JSONValue, file: String, outerLocation: String, outerKey: String? = nil, key: String? = nil,
        document: JSONDocument, index: Int
    ) {
        self.value = value
        self.file = file
        self.outerLocation = outerLocation
        self.outerKey = outerKey
        self.key = key
        self.document = document
        self.index = index
    }

    /// This node with references of its own to what every node under it shares (the document, the file's name):
    /// the parts of a manifest built on several threads then never count references on the same object, whose
    /// cache line the cores would pass back and forth for each node made or dropped.
    func withOwnReferences() -> ManifestNode {
        ManifestNode(
            value: value, file: file.withOwnStorage, outerLocation: outerLocation.withOwnStorage, outerKey: outerKey,
            key: key, document: document.sharingContents(), index: index)
    }

    /// `targets[2].sampleData`; empty at the root.
    var location: String { Self.location(Self.location(outerLocation, outerKey), key) }

    /// `location` with `.key` (or `["key"]`) after it, when there is a key.
    private static func location(_ location: String, _ key: String?) -> String {
        guard let key else { return location }
        var path = location
        JSONPath.appendKey(key, to: &path)
        if location.isEmpty && path.hasPrefix(".") { path.removeFirst() }  // `service`, not `.service`, at the root
        return path
    }

    /// The node of a member of this object: its value, key and number.
    private func member(_ value: JSONValue, key: String, index: Int) -> ManifestNode {
        // This node's key becomes the member's outer key; only a member of a member of a member spells a location.
        let outer = Self.location(outerLocation, outerKey)
        return ManifestNode(
            value: value, file: file, outerLocation: outer, outerKey: self.key, key: key, document: document,
            index: index)
    }

    /// The value's text when the reader deferred it (see `JSONReader.document(_:deferring:)`): `value` is `null` then.
    var deferredText: Data? { document.deferredText(of: index) }

    /// The value's text as the manifest writes it: a slice that shares the document's bytes.
    var text: Data {
        let span = document.positions.span(of: index)
        let bytes = document.bytes
        return bytes[(bytes.startIndex + span.lowerBound)..<(bytes.startIndex + span.upperBound)]
    }

    /// The text of each member of an object, each after its key and a zero byte, but of the members named in
    /// `except`; empty for a value that is not an object.
    func membersText(except: Set<String>) -> Data {
        var text = Data()
        try? forEachMember { key, node in
            guard !except.contains(key) else { return }
            text.append(contentsOf: key.utf8)
            text.append(0)
            text.append(node.text)
            text.append(0)
        }
        return text
    }

    /// An error at this value (its first character).
    func error(_ message: String) -> ContractError {
        let (line, column) = document.lineAndColumn(ofValue: index)
        return ContractError(file: file, line: line, column: column, location: location, message)
    }

    /// An error at this value's key (`"qurey": …` points at `"qurey"`), or at the value when it has no key.
    func keyError(_ message: String) -> ContractError {
        let (line, column) = document.lineAndColumn(ofValue: index, key: true)
        return ContractError(file: file, line: line, column: column, location: location, message)
    }

    /// Where this value's key is (`"name": …` gives the place of `"name"`): where an annotation points.
    var keyPlace: SourcePlace {
        let (line, column) = document.lineAndColumn(ofValue: index, key: true)
        return SourcePlace(file: file, line: line, column: column)
    }

    /// Each member of an object with its node, in document order; an error when the value is not an object.
    private func forEachMember(_ body: (String, ManifestNode) -> Void) throws(ContractError) {
        guard case .object(let members) = value else { throw error("expected an object, got \(value.typeName)") }
        var childIndex = index + 1
        for member in members {
            body(member.key, self.member(member.value, key: member.key, index: childIndex))
            childIndex = document.positions.next(after: childIndex)
        }
    }

    /// The members of an object, after checking that every key is one of `allowed` (a typo never silently
    /// disables a check) and that none repeats. Every unknown or repeated key is added to `errors`, and left out.
    func members(allowed: [String], reporting errors: inout [ContractError]) throws(ContractError)
        -> ManifestMembers
    {
        guard case .object(let members) = value else { throw error("expected an object, got \(value.typeName)") }
        // The keys are checked as the object has them; a member's node is made only for an error, or when it is
        // asked for (a node for every member, kept in an array of its own, was most of reading a target's keys).
        var kept: [Int]?
        for offset in members.indices {
            let key = members[offset].key
            var problem: String?
            if !allowed.contains(key) {
                let suggestion = didYouMean(key, in: allowed)
                problem =
                    "unknown key"
                    + (suggestion.isEmpty ? " (expected one of: \(allowed.joined(separator: ", ")))" : suggestion)
            } else if let first = Self.offset(of: key, in: members, among: kept, before: offset) {
                let place = member(first, of: members).keyPlace
                problem = "key appears twice (first at \(place.line):\(place.column)): keep one"
            }
            if let problem {
                errors.append(member(offset, of: members).keyError(problem))
                if kept == nil { kept = Array(0..<offset) }
            } else {
                kept?.append(offset)
            }
        }
        return ManifestMembers(object: self, members: members, kept: kept)
    }

    /// The offset in `members` of the first member named `key`: among `kept` when some were left out, and before
    /// `end` when given. Lengths first: a manifest's keys are ASCII names, which differ in length far more often
    /// than not (and ASCII strings are equal only byte for byte).
    fileprivate static func offset(
        of key: String, in members: [JSONMember], among kept: [Int]?, before end: Int? = nil
    ) -> Int? {
        let count = key.utf8.count
        let end = end ?? members.count
        if let kept {
            for offset in kept where offset < end && members[offset].key.utf8.count == count {
                if members[offset].key == key { return offset }
            }
            return nil
        }
        for offset in 0..<end where members[offset].key.utf8.count == count {
            if members[offset].key == key { return offset }
        }
        return nil
    }

    /// The node of `members[offset]`, this object's member.
    fileprivate func member(_ offset: Int, of members: [JSONMember]) -> ManifestNode {
        var childIndex = index + 1
        for _ in 0..<offset { childIndex = document.positions.next(after: childIndex) }
        return member(members[offset].value, key: members[offset].key, index: childIndex)
    }

    /// As `members(allowed:reporting:)`, throwing the first unknown or repeated key.
    func members(allowed: [String]) throws(ContractError) -> ManifestMembers {
        var errors: [ContractError] = []
        let result = try members(allowed: allowed, reporting: &errors)
        if let first = errors.first { throw first }
        return result
    }

    /// An object whose keys are free (headers, query, parameters), in document order.
    func freeMembers() throws(ContractError) -> [(String, ManifestNode)] {
        var nodes: [(String, ManifestNode)] = []
        if case .object(let members) = value { nodes.reserveCapacity(members.count) }
        try forEachMember { nodes.append(($0, $1)) }
        return nodes
    }

    func string() throws(ContractError) -> String {
        guard case .string(let text) = value else { throw error("expected a string, got \(value.given)") }
        return text
    }

    func integer(in range: ClosedRange<Int>) throws(ContractError) -> Int {
        guard case .integer(let number) = value else { throw error("expected an integer, got \(value.given)") }
        guard range.contains(Int(number)) else {
            throw error("\(number) is out of range \(range.lowerBound)...\(range.upperBound)")
        }
        return Int(number)
    }

    func array() throws(ContractError) -> [ManifestNode] {
        var nodes: [ManifestNode] = []
        nodes.reserveCapacity(try elementCount())
        forEachElement { _, node in nodes.append(node) }
        return nodes
    }

    /// How many elements the array has; an error when the value is not an array.
    func elementCount() throws(ContractError) -> Int {
        guard case .array(let elements) = value else { throw error("expected an array, got \(value.typeName)") }
        return elements.count
    }

    /// The array's elements with their offsets, each node made as it is visited (all of a manifest's 100,000
    /// targets at once were 7 MB); nothing for a value that is not an array (`elementCount()` says so).
    func forEachElement(_ body: (Int, ManifestNode) -> Void) {
        guard case .array(let elements) = value else { return }
        forEachElement(in: elements.indices, body)
    }

    /// As `forEachElement(_:)`, for the elements `range` only (the ones before are stepped over, not made).
    func forEachElement(in range: Range<Int>, _ body: (Int, ManifestNode) -> Void) {
        guard case .array(let elements) = value, !range.isEmpty else { return }
        let location = location
        var childIndex = index + 1
        for _ in 0..<range.lowerBound { childIndex = document.positions.next(after: childIndex) }
        for offset in range {
            body(
                offset,
                ManifestNode(
                    value: elements[offset], file: file, outerLocation: Self.elementLocation(offset, in: location),
                    document: document, index: childIndex))
            childIndex = document.positions.next(after: childIndex)
        }
    }

    /// The location of element `offset` of this array: `targets[3]`.
    func elementLocation(_ offset: Int) -> String { Self.elementLocation(offset, in: location) }

    private static func elementLocation(_ offset: Int, in location: String) -> String { "\(location)[\(offset)]" }

    /// An object that must have exactly one of `cases` as its key (`{"networkResponse": {...}}`), or a bare string
    /// naming a case that takes no value (`"requestPlain"`).
    func oneOf(_ cases: [String]) throws(ContractError) -> (String, ManifestNode?) {
        if case .string(let name) = value {
            guard cases.contains(name) else {
                let hint = didYouMean(name, in: cases)
                throw error("unknown case '\(name)'\(hint); expected one of: \(cases.joined(separator: ", "))")
            }
            return (name, nil)
        }
        let members = try members(allowed: cases)
        guard members.count == 1, let (name, node) = members.first else {
            throw error("expected exactly one of: \(cases.joined(separator: ", "))")
        }
        return (name, node)
    }
}

/// The checked members of a manifest object (`ManifestNode.members(allowed:reporting:)`), in document order, found
/// by key with a linear search: a manifest's objects have a dozen keys at most, and a dictionary per object (hashing
/// every key of every target) cost more than comparing them. A view of the object's own members: a member's node is
/// made when it is asked for.
struct ManifestMembers {
    private let object: ManifestNode
    private let members: [JSONMember]
    /// The offsets in `members` of the members kept, when some were left out (unknown or repeated keys); `nil`: all.
    private let kept: [Int]?

    fileprivate init(object: ManifestNode, members: [JSONMember], kept: [Int]?) {
        self.object = object
        self.members = members
        self.kept = kept
    }

    /// The member named `key`, or `nil`.
    subscript(key: String) -> ManifestNode? {
        ManifestNode.offset(of: key, in: members, among: kept).map { object.member($0, of: members) }
    }

    /// How many members there are.
    var count: Int { kept?.count ?? members.count }

    /// The first member, in document order.
    var first: (key: String, value: ManifestNode)? {
        guard let offset = kept == nil ? members.indices.first : kept?.first else { return nil }
        return (members[offset].key, object.member(offset, of: members))
    }
}

extension String {
    /// The same text in a buffer of its own: a copy of a string of more than 15 UTF-8 bytes shares the buffer, and
    /// its reference count, with the original (see `ManifestNode.withOwnReferences()`).
    var withOwnStorage: String { String(decoding: Array(utf8), as: UTF8.self) }
}
