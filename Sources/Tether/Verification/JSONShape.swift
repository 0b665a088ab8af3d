import Foundation

/// A stub's JSON structure, compiled once so that many live bodies can be checked against it quickly.
///
/// Each position of the stub becomes one node, named by its index-free path (`$.items[].price`): the elements of a stub
/// array merge into one element shape (a key missing from some elements is optional, elements of different types
/// accept any of those types, a `null` element makes elements nullable), keys keep the stub's order and their bytes
/// are kept side by side for comparison without hashing.
public struct JSONShape: Sendable, Equatable {
    /// The JSON types a node accepts.
    struct Kinds: OptionSet, Sendable, Equatable {
        let rawValue: UInt8
        static let boolean = Kinds(rawValue: 1)
        static let integer = Kinds(rawValue: 2)
        static let fraction = Kinds(rawValue: 4)
        static let string = Kinds(rawValue: 8)
        static let array = Kinds(rawValue: 16)
        static let object = Kinds(rawValue: 32)
    }

    struct Node: Sendable, Equatable {
        var kinds: Kinds = []
        /// The stub has `null` here (besides other types): a live `null` is fine.
        var isNullable = false
        /// The stub has only `null` here: any live value is accepted (with a note).
        var isUnchecked: Bool { kinds.isEmpty }
        /// The node of the merged array element shape, or -1 when every stub array here is empty.
        var element: Int32 = -1
        /// The node's keys: `keys[firstKey ..< firstKey + keyCount]`.
        var firstKey: Int32 = 0
        var keyCount: Int32 = 0
        /// Bit i set: key `firstKey + i` (i < 64) is in every stub object here.
        var requiredMask: UInt64 = 0
        /// Whether some key at index 64 or beyond is required (checked one by one, rarely needed).
        var hasRequiredBeyond64 = false
        /// `rules.maps`: an object whose keys are free; `element` is the merged shape of its values.
        var isMap = false
        /// The node's entry in `nodeRules`, or -1 (kept last, in the padding).
        var rule: Int32 = -1
        /// The walk's one test before the type switch: the node has rules or accepts anything.
        var isExceptional: Bool { rule >= 0 || kinds.isEmpty }
    }

    /// What `rules` say about one node beyond its kinds and nullability (those are set on the node itself).
    struct NodeRule: Sendable, Equatable {
        /// `rules.ignore`: neither presence nor type is checked.
        var isIgnored = false
        var format: ContractRules.Format?
        var values: [JSONValue]?
    }

    /// A stub key; plain data (its name is in `keyNames`) so that reading one in the walk copies no reference.
    struct Key: Sendable, Equatable {
        /// The key's UTF-8 bytes: `keyBytes[byteOffset ..< byteOffset + byteCount]`.
        var byteOffset: Int32
        var byteCount: Int32
        var node: Int32
        var isRequired: Bool
    }

    /// Node 0 is the root.
    var nodes: [Node] = []
    var keys: [Key] = []
    var keyNames: [String] = []
    var keyBytes: [UInt8] = []
    var nodeRules: [NodeRule] = []
    /// The rules compiled in, for the walk's strictness hints.
    let rules: ContractRules

    /// Stub values nested deeper than this are not compiled: what lies below accepts anything.
    static let maxDepth = 1024

    /// Compiles a stub's structure.
    /// - Parameter stub: The stub body, as parsed from `sampleData`.
    public init(stub: JSONValue) {
        self.init(stub: stub, rules: ContractRules())
    }

    /// Compiles a stub's structure with the contract's path rules applied at their nodes: `maps` change what is
    /// compiled, `ignore`/`optional` make keys not required, `nullable` makes nodes nullable, `formats`/`values` are
    /// checked at their nodes. Paths the stub lacks are left out here (the manifest loader refuses them).
    /// - Parameters:
    ///   - stub: The stub body, as parsed from `sampleData`.
    ///   - rules: The contract's rules.
    public init(stub: JSONValue, rules: ContractRules) {
        self.init(source: stub, rules: rules)
    }

    /// Compiles a stub's structure straight from a parsed document's tape (a stub kept as text, read by simdjson):
    /// the same shape as from the document's `JSONValue`, without building one.
    init(stubTape tape: JSONTape, rules: ContractRules) {
        self.init(source: TapeValue(tape: tape, index: JSONTape.rootIndex), rules: rules)
    }

    private init(source stub: some ShapeSource, rules: ContractRules) {
        self.rules = rules
        _ = compile(CollectionOfOne(stub), depth: 0, path: rules.maps.isEmpty ? nil : [], maps: rules.maps)
        guard rules.hasPathRules else { return }
        for pattern in rules.ignore + rules.optional {
            for place in resolve(pattern) where place.key >= 0 { makeOptional(key: place.key, of: place.parent) }
        }
        for pattern in rules.ignore {
            for place in resolve(pattern) { updateRule(place.node) { $0.isIgnored = true } }
        }
        for pattern in rules.nullable {
            for place in resolve(pattern) { nodes[Int(place.node)].isNullable = true }
        }
        for rule in rules.formats {
            for place in resolve(rule.path) { updateRule(place.node) { $0.format = rule.format } }
        }
        for rule in rules.values {
            for place in resolve(rule.path) { updateRule(place.node) { $0.values = rule.values } }
        }
    }

    /// Whether two strings have the same UTF-8 bytes. Not Swift's `==`, which takes canonically equivalent strings
    /// (`"é"` and `"e\u{301}"`) for one; compared as contiguous bytes, which every string the readers make has
    /// (iterating two `UTF8View`s was a fifth of compiling a stub). Lengths first: most keys differ in length.
    static func sameBytes(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        let contiguous = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in
                x.isEmpty || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0
            }
        }
        return (contiguous ?? nil) ?? a.utf8.elementsEqual(b.utf8)
    }

    /// Whether `bytes` is already a key in `keys[firstKey...]`: lengths first, then the bytes in `keyBytes`, with no
    /// string touched (comparing against the stub's members retained and released each one, per comparison).
    private func hasKey(_ bytes: UnsafeBufferPointer<UInt8>, from firstKey: Int) -> Bool {
        keyBytes.withUnsafeBufferPointer { all in
            for key in keys[firstKey...] where Int(key.byteCount) == bytes.count {
                if bytes.isEmpty || bytesEqual(all.baseAddress! + Int(key.byteOffset), bytes.baseAddress!, bytes.count)
                {
                    return true
                }
            }
            return false
        }
    }

    /// Appends a string's UTF-8 bytes in one copy (appending a `UTF8View` went byte by byte).
    private static func append(_ text: String, to bytes: inout [UInt8]) {
        if text.utf8.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil {
            bytes.append(contentsOf: text.utf8)
        }
    }

    /// Where a path leads in the compiled shape: each node, with the object node and key index it is reached by
    /// (-1 for an element). `[n]` leads to the element shape, as `[*]`; a map's values are reached by `[*]`.
    private func resolve(_ pattern: JSONPathPattern) -> [(parent: Int32, key: Int32, node: Int32)] {
        var places: [(parent: Int32, key: Int32, node: Int32)] = [(-1, -1, 0)]
        for step in pattern.steps {
            var next: [(parent: Int32, key: Int32, node: Int32)] = []
            for place in places {
                let node = nodes[Int(place.node)]
                switch step {
                case .key(let name):
                    guard node.kinds.contains(.object), !node.isMap else { continue }
                    for offset in 0..<node.keyCount
                    where Self.sameBytes(keyNames[Int(node.firstKey + offset)], name) {
                        next.append((place.node, node.firstKey + offset, keys[Int(node.firstKey + offset)].node))
                    }
                case .any, .index:
                    if node.element >= 0, node.isMap || node.kinds.contains(.array) {
                        next.append((place.node, -1, node.element))
                    }
                    if case .any = step, node.kinds.contains(.object), !node.isMap {
                        for offset in 0..<node.keyCount {
                            next.append((place.node, node.firstKey + offset, keys[Int(node.firstKey + offset)].node))
                        }
                    }
                }
            }
            places = next
        }
        return places
    }

    private mutating func makeOptional(key: Int32, of parent: Int32) {
        keys[Int(key)].isRequired = false
        let offset = key - nodes[Int(parent)].firstKey
        if offset < 64 { nodes[Int(parent)].requiredMask &= ~(1 << UInt64(offset)) }
    }

    private mutating func updateRule(_ node: Int32, _ change: (inout NodeRule) -> Void) {
        if nodes[Int(node)].rule < 0 {
            nodes[Int(node)].rule = Int32(nodeRules.count)
            nodeRules.append(NodeRule())
        }
        change(&nodeRules[Int(nodes[Int(node)].rule)])
    }

    /// Compiles the merge of `values` (one stub position, or all elements of the stub arrays at one position) into a
    /// new node and returns its index. Recursion is bounded by `maxDepth`. `path` (only tracked when there are
    /// `maps` rules) is the position's index-free path, for finding the maps.
    ///
    /// Generic over the collection so that the common case, one stub object whose members each hold one value, is
    /// compiled without an array per member (`CollectionOfOne`) and without grouping the members of several objects.
    private mutating func compile<Value: ShapeSource>(
        _ values: some Collection<Value>, depth: Int, path: [JSONPathPattern.Step]?, maps: [JSONPathPattern]
    ) -> Int32 {
        let index = Int32(nodes.count)
        nodes.append(Node())
        guard depth < JSONShape.maxDepth else { return index }
        var node = Node()
        var elements: [Value] = []
        var objects: [[ShapeMember<Value>]] = []
        for value in values {
            switch value.shapeKind {
            case .null: node.isNullable = true
            case .boolean: node.kinds.insert(.boolean)
            case .integer: node.kinds.insert(.integer)
            // A stub fraction accepts a live integer (a `Double` property decodes from both).
            case .fraction: node.kinds.formUnion([.fraction, .integer])
            case .string: node.kinds.insert(.string)
            case .array:
                node.kinds.insert(.array)
                value.appendElements(to: &elements)
            case .object:
                node.kinds.insert(.object)
                objects.append(value.members)
            }
        }
        if !elements.isEmpty {
            node.element = compile(elements, depth: depth + 1, path: path.map { $0 + [.any] }, maps: maps)
        }
        if !objects.isEmpty, let path, maps.namesShapePosition(path) {
            // A dictionary: no keys of its own, every value of the merge of all the stub's values here.
            node.isMap = true
            let mapValues = objects.flatMap { $0.map(\.value) }
            if !mapValues.isEmpty {
                node.element = compile(mapValues, depth: depth + 1, path: path + [.any], maps: maps)
            }
        } else if objects.count == 1 {
            compileMembers(of: objects[0], into: &node, depth: depth, path: path, maps: maps)
        } else if !objects.isEmpty {
            // Keys in first-seen order, each with the values the stub objects give it (first one if repeated).
            let (names, valuesByName) = Self.groupedMembers(objects)
            // Reserve this node's key range first so that it stays contiguous while children add theirs.
            let firstKey = keys.count
            node.firstKey = Int32(firstKey)
            node.keyCount = Int32(names.count)
            for (offset, name) in names.enumerated() {
                let isRequired = valuesByName[offset].count == objects.count
                keys.append(
                    Key(
                        byteOffset: Int32(keyBytes.count), byteCount: Int32(name.utf8.count), node: -1,
                        isRequired: isRequired))
                keyNames.append(name)
                Self.append(name, to: &keyBytes)
                if isRequired {
                    if offset < 64 {
                        node.requiredMask |= 1 << UInt64(offset)
                    } else {
                        node.hasRequiredBeyond64 = true
                    }
                }
            }
            for offset in names.indices {
                keys[firstKey + offset].node = compile(
                    valuesByName[offset], depth: depth + 1, path: path.map { $0 + [.key(names[offset])] }, maps: maps)
            }
        }
        nodes[Int(index)] = node
        return index
    }

    /// The keys of one stub object (the only one at its position) in order, each required, with its value (the first
    /// one where the object repeats a key): what `groupedMembers` gives for one object, without its arrays.
    private mutating func compileMembers<Value: ShapeSource>(
        of members: [ShapeMember<Value>], into node: inout Node, depth: Int, path: [JSONPathPattern.Step]?,
        maps: [JSONPathPattern]
    ) {
        let firstKey = keys.count
        node.firstKey = Int32(firstKey)
        var kept: [Int] = []  // indices into members: the first of each key
        kept.reserveCapacity(members.count)
        // Past 64 keys a set finds a repeat; below, comparing lengths, then bytes, is cheaper than hashing arrays.
        var keptBytes: Set<[UInt8]> = []
        for (position, member) in members.enumerated() {
            let count = member.key.utf8.count
            if kept.count > 64 {
                if keptBytes.isEmpty { keptBytes = Set(kept.map { Array(members[$0].key.utf8) }) }
                guard keptBytes.insert(Array(member.key.utf8)).inserted else { continue }
            } else if member.key.utf8.withContiguousStorageIfAvailable({ hasKey($0, from: firstKey) })
                ?? kept.contains(where: { Self.sameBytes(members[$0].key, member.key) })
            {
                continue
            }
            let offset = kept.count
            kept.append(position)
            keys.append(
                Key(byteOffset: Int32(keyBytes.count), byteCount: Int32(count), node: -1, isRequired: true))
            keyNames.append(member.key)
            Self.append(member.key, to: &keyBytes)
            if offset < 64 {
                node.requiredMask |= 1 << UInt64(offset)
            } else {
                node.hasRequiredBeyond64 = true
            }
        }
        node.keyCount = Int32(kept.count)
        for (offset, position) in kept.enumerated() {
            let member = members[position]
            keys[firstKey + offset].node = compile(
                CollectionOfOne(member.value), depth: depth + 1, path: path.map { $0 + [.key(member.key)] }, maps: maps)
        }
    }

    /// The keys of the stub objects at one position in first-seen order, each with the values the objects give it
    /// (the first one where an object repeats a key). Stub objects are small, so a linear search finds a key; a
    /// dictionary takes over for wide ones. Compiling runs once per contract, and hashing every key was most of it.
    /// Keys are compared by their UTF-8 bytes, as the walk compares live keys and as JSON tells keys apart: Swift's
    /// `String` equality would take `"é"` and `"e\u0301"` for one key, and the second would then never be checked.
    private static func groupedMembers<Value: ShapeSource>(_ objects: [[ShapeMember<Value>]]) -> (
        names: [String], values: [[Value]]
    ) {
        var names: [String] = []
        var values: [[Value]] = []
        var indexByName: [[UInt8]: Int] = [:]
        for members in objects {
            var seenHere = [Bool](repeating: false, count: names.count)
            for member in members {
                let found: Int?
                if names.count > 32 {
                    if indexByName.isEmpty {
                        for (offset, name) in names.enumerated() { indexByName[Array(name.utf8)] = offset }
                    }
                    found = indexByName[Array(member.key.utf8)]
                } else {
                    // Lengths first: most keys differ in length, and comparing UTF-8 views element by element is slow.
                    found = names.firstIndex { Self.sameBytes($0, member.key) }
                }
                if let found {
                    guard !seenHere[found] else { continue }
                    seenHere[found] = true
                    values[found].append(member.value)
                } else {
                    seenHere.append(true)
                    if !indexByName.isEmpty { indexByName[Array(member.key.utf8)] = names.count }
                    names.append(member.key)
                    values.append([member.value])
                }
            }
        }
        return (names, values)
    }

    /// The stub's type at `node` in words: `string`, `integer`, `number`, `string or boolean`, `null`.
    func expectedDescription(_ node: Node) -> String {
        var names: [String] = []
        if node.kinds.contains(.object) { names.append("object") }
        if node.kinds.contains(.array) { names.append("array") }
        if node.kinds.contains(.string) { names.append("string") }
        if node.kinds.contains(.fraction) {
            names.append("number")
        } else if node.kinds.contains(.integer) {
            names.append("integer")
        }
        if node.kinds.contains(.boolean) { names.append("boolean") }
        if names.isEmpty { return "null" }
        return names.joined(separator: " or ")
    }
}

// MARK: - What a shape compiles from

/// A stub value as the shape compiler reads it: a `JSONValue`, or a place in a parsed document's tape.
private protocol ShapeSource {
    var shapeKind: ShapeSourceKind { get }
    /// An array's elements, appended in order.
    func appendElements(to elements: inout [Self])
    /// An object's members, in document order (repeated keys included).
    var members: [ShapeMember<Self>] { get }
}

private enum ShapeSourceKind { case null, boolean, integer, fraction, string, array, object }

private struct ShapeMember<Value> {
    var key: String
    var value: Value
}

extension JSONValue: ShapeSource {
    fileprivate var shapeKind: ShapeSourceKind {
        switch self {
        case .null: .null
        case .bool: .boolean
        case .integer, .unsignedInteger: .integer
        case .double: .fraction
        case .string: .string
        case .array: .array
        case .object: .object
        }
    }

    fileprivate func appendElements(to elements: inout [JSONValue]) {
        if case .array(let items) = self { elements.append(contentsOf: items) }
    }

    fileprivate var members: [ShapeMember<JSONValue>] {
        guard case .object(let members) = self else { return [] }
        return members.map { ShapeMember(key: $0.key, value: $0.value) }
    }
}

/// A value in simdjson's tape, valid while its parser is untouched.
private struct TapeValue: ShapeSource {
    let tape: JSONTape
    let index: Int

    var shapeKind: ShapeSourceKind {
        switch tape.tag(index) {
        case JSONTape.objectStart: .object
        case JSONTape.arrayStart: .array
        case JSONTape.string: .string
        case JSONTape.int64, JSONTape.uint64: .integer
        case JSONTape.double: .fraction
        case JSONTape.true, JSONTape.false: .boolean
        default: .null
        }
    }

    func appendElements(to elements: inout [TapeValue]) {
        guard tape.tag(index) == JSONTape.arrayStart else { return }
        let end = tape.containerEnd(index) - 1  // the closing `]`
        var at = index + 1
        while at < end {
            elements.append(TapeValue(tape: tape, index: at))
            at = tape.next(at)
        }
    }

    var members: [ShapeMember<TapeValue>] {
        guard tape.tag(index) == JSONTape.objectStart else { return [] }
        var members: [ShapeMember<TapeValue>] = []
        members.reserveCapacity(tape.containerCount(index))
        let end = tape.containerEnd(index) - 1  // the closing `}`
        var at = index + 1
        while at < end {
            members.append(ShapeMember(key: tape.string(at), value: TapeValue(tape: tape, index: at + 1)))
            at = tape.next(at + 1)
        }
        return members
    }
}
