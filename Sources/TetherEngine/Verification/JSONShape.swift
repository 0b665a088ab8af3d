#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

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

    /// A stub key; plain data (its name is in `keyBytes`) so that reading one in the walk copies no reference.
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
    var keyBytes: [UInt8] = []
    var nodeRules: [NodeRule] = []
    /// The rules compiled in, for the walk's strictness hints.
    let rules: ContractRules
    /// Whether a stub object has a key twice. The shape keeps the first value, as `JSONDecoder` reads it
    /// (`JSONSerialization` keeps the last); `ShapeCheck.repeatedKeys(in:)` names each repeat, which is a drift.
    private(set) var hasRepeatedKey = false

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
    /// - Parameter textLength: The stub text's length in bytes: more than its keys hold, reserved for them.
    init(stubTape tape: JSONTape, textLength: Int, rules: ContractRules) {
        self.init(source: TapeValue(tape: tape, index: JSONTape.rootIndex), keyByteBound: textLength, rules: rules)
    }

    private init(source stub: some ShapeSource, keyByteBound: Int = 0, rules: ContractRules) {
        self.rules = rules
        // At most one node per value and one key per two: reserved once, not grown node by node.
        nodes.reserveCapacity(stub.valueCountBound)
        keys.reserveCapacity(stub.valueCountBound / 2)
        keyBytes.reserveCapacity(keyByteBound)
        _ = compile(CollectionOfOne(stub), depth: 0, path: rules.maps.isEmpty ? nil : [])
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

    /// Whether `bytes` is already a key in `keys[firstKey...]`: lengths first, then the bytes in `keyBytes`, with no
    /// string touched (comparing against the stub's members retained and released each one, per comparison).
    private func hasKey(_ bytes: UnsafeBufferPointer<UInt8>, from firstKey: Int) -> Bool {
        keys[firstKey...].contains { keyHasBytes($0, bytes) }
    }

    /// Whether `key`'s bytes are `bytes`: lengths first, then the bytes in `keyBytes`.
    private func keyHasBytes(_ key: Key, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        Int(key.byteCount) == bytes.count
            && (bytes.isEmpty
                || keyBytes.withUnsafeBufferPointer {
                    bytesEqual($0.baseAddress! + Int(key.byteOffset), bytes.baseAddress!, bytes.count)
                })
    }

    /// The name of key `key`, made from its bytes: only messages and rule paths need one.
    func keyName(_ key: Int) -> String {
        let key = keys[key]
        return String(decoding: keyBytes[Int(key.byteOffset)..<Int(key.byteOffset + key.byteCount)], as: UTF8.self)
    }

    /// Whether key `key`'s bytes are `name`'s UTF-8 bytes.
    private func keyIs(_ key: Int, _ name: String) -> Bool {
        var name = name
        return name.withUTF8 { keyHasBytes(keys[key], $0) }
    }

    /// The index-free path of key `key`'s value under `path` (tracked only when there are `maps` rules).
    private func childPath(_ path: [JSONPathPattern.Step]?, key: Int) -> [JSONPathPattern.Step]? {
        path.map { $0 + [.key(keyName(key))] }
    }

    /// Appends a key to `keys` and its bytes to `keyBytes`, its node not compiled yet.
    private mutating func appendKey(_ bytes: UnsafeBufferPointer<UInt8>, isRequired: Bool) {
        keys.append(
            Key(byteOffset: Int32(keyBytes.count), byteCount: Int32(bytes.count), node: -1, isRequired: isRequired))
        keyBytes.append(contentsOf: bytes)
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
                    for offset in 0..<node.keyCount where keyIs(Int(node.firstKey + offset), name) {
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
        _ values: some Collection<Value>, depth: Int, path: [JSONPathPattern.Step]?
    ) -> Int32 {
        let index = Int32(nodes.count)
        nodes.append(Node())
        guard depth < JSONShape.maxDepth else { return index }
        var node = Node()
        var elements: [Value] = []
        // The objects here: the first alone while it is the only one (no array for the usual case).
        var onlyObject: Value?
        var objects: [Value] = []
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
                if onlyObject == nil && objects.isEmpty {
                    onlyObject = value
                } else {
                    if let first = onlyObject { objects.append(first) }
                    onlyObject = nil
                    objects.append(value)
                }
            }
        }
        if !elements.isEmpty {
            node.element = compile(elements, depth: depth + 1, path: path.map { $0 + [.any] })
        }
        if onlyObject != nil || !objects.isEmpty, let path, rules.maps.namesShapePosition(path) {
            // A dictionary: no keys of its own, every value of the merge of all the stub's values here.
            node.isMap = true
            var mapValues: [Value] = []
            for object in onlyObject.map({ [$0] }) ?? objects {
                var keys: Set<[UInt8]> = []
                object.forEachMember { key, value in
                    if !keys.insert(Array(key)).inserted { hasRepeatedKey = true }
                    mapValues.append(value)
                }
            }
            if !mapValues.isEmpty {
                node.element = compile(mapValues, depth: depth + 1, path: path + [.any])
            }
        } else if let object = onlyObject {
            compileMembers(of: object, into: &node, depth: depth, path: path)
        } else if !objects.isEmpty {
            // Keys in first-seen order, each with the values the stub objects give it (first one if repeated).
            let (names, valuesByName) = Self.groupedMembers(objects, repeats: &hasRepeatedKey)
            // Reserve this node's key range first so that it stays contiguous while children add theirs.
            let firstKey = keys.count
            node.firstKey = Int32(firstKey)
            node.keyCount = Int32(names.count)
            for (offset, name) in names.enumerated() {
                let isRequired = valuesByName[offset].count == objects.count
                name.withUnsafeBufferPointer { appendKey($0, isRequired: isRequired) }
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
                    valuesByName[offset], depth: depth + 1, path: childPath(path, key: firstKey + offset))
            }
        }
        nodes[Int(index)] = node
        return index
    }

    /// The keys of one stub object (the only one at its position) in order, each required, with its value (the first
    /// one where the object repeats a key): what `groupedMembers` gives for one object, without its arrays. Keys are
    /// read as bytes (from the tape, no `String` made) and kept in `keyBytes`.
    private mutating func compileMembers<Value: ShapeSource>(
        of object: Value, into node: inout Node, depth: Int, path: [JSONPathPattern.Step]?
    ) {
        let firstKey = keys.count
        node.firstKey = Int32(firstKey)
        guard object.memberCount <= 64 else {
            compileWideMembers(of: object, into: &node, depth: depth, path: path)
            return
        }
        // Up to 64 members, the first of each key is marked in a mask and its value read again in a second pass:
        // no array per object. Comparing lengths, then bytes, finds a repeat.
        var keptPositions: UInt64 = 0
        var position = 0
        object.forEachMember { key, _ in
            defer { position += 1 }
            guard !hasKey(key, from: firstKey) else {
                hasRepeatedKey = true
                return
            }
            keptPositions |= 1 << UInt64(position)
            node.requiredMask |= 1 << UInt64(keys.count - firstKey)
            appendKey(key, isRequired: true)
        }
        node.keyCount = Int32(keys.count - firstKey)
        position = 0
        var key = firstKey
        object.forEachMember { _, value in
            defer { position += 1 }
            guard keptPositions & (1 << UInt64(position)) != 0 else { return }
            keys[key].node = compile(CollectionOfOne(value), depth: depth + 1, path: childPath(path, key: key))
            key += 1
        }
    }

    /// `compileMembers` for an object of more than 64 members: the kept values in an array, repeats found by a set.
    private mutating func compileWideMembers<Value: ShapeSource>(
        of object: Value, into node: inout Node, depth: Int, path: [JSONPathPattern.Step]?
    ) {
        let firstKey = Int(node.firstKey)
        var kept: [Value] = []  // the value of the first of each key
        kept.reserveCapacity(object.memberCount)
        var keptBytes: Set<[UInt8]> = []
        object.forEachMember { key, value in
            guard keptBytes.insert(Array(key)).inserted else {
                hasRepeatedKey = true
                return
            }
            let offset = kept.count
            kept.append(value)
            appendKey(key, isRequired: true)
            if offset < 64 {
                node.requiredMask |= 1 << UInt64(offset)
            } else {
                node.hasRequiredBeyond64 = true
            }
        }
        node.keyCount = Int32(kept.count)
        for (offset, value) in kept.enumerated() {
            keys[firstKey + offset].node = compile(
                CollectionOfOne(value), depth: depth + 1, path: childPath(path, key: firstKey + offset))
        }
    }

    /// The keys of the stub objects at one position in first-seen order (as bytes), each with the values the objects
    /// give it (the first one where an object repeats a key, and then `repeats` is set). Stub objects are small, so a
    /// linear search finds a key; a dictionary takes over for wide ones. Compiling runs once per contract, and hashing
    /// every key was most of it. Keys are compared by their UTF-8 bytes, as the walk compares live keys and as JSON
    /// tells keys apart: Swift's `String` equality would take `"é"` and `"e\u0301"` for one key, and the second would
    /// then never be checked.
    private static func groupedMembers<Value: ShapeSource>(_ objects: [Value], repeats: inout Bool)
        -> (names: [[UInt8]], values: [[Value]])
    {
        var names: [[UInt8]] = []
        var values: [[Value]] = []
        var indexByName: [[UInt8]: Int] = [:]
        for object in objects {
            var seenHere = [Bool](repeating: false, count: names.count)
            object.forEachMember { key, value in
                let found: Int?
                if names.count > 32 {
                    if indexByName.isEmpty {
                        for (offset, name) in names.enumerated() { indexByName[name] = offset }
                    }
                    found = indexByName[Array(key)]
                } else {
                    // Lengths first: most keys differ in length.
                    found = names.firstIndex { $0.count == key.count && $0.elementsEqual(key) }
                }
                if let found {
                    guard !seenHere[found] else {
                        repeats = true
                        return
                    }
                    seenHere[found] = true
                    values[found].append(value)
                } else {
                    seenHere.append(true)
                    if !indexByName.isEmpty { indexByName[Array(key)] = names.count }
                    names.append(Array(key))
                    values.append([value])
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
    /// An object's members in document order (repeated keys included): each key's UTF-8 bytes (valid during the
    /// call) and value.
    func forEachMember(_ body: (UnsafeBufferPointer<UInt8>, Self) -> Void)
    /// How many members an object has (0 for any other value).
    var memberCount: Int { get }
    /// At least as many as the values in this one, nested ones included (0 when not known cheaply).
    var valueCountBound: Int { get }
}

private enum ShapeSourceKind { case null, boolean, integer, fraction, string, array, object }

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

    fileprivate func forEachMember(_ body: (UnsafeBufferPointer<UInt8>, JSONValue) -> Void) {
        guard case .object(let members) = self else { return }
        for member in members {
            var key = member.key
            key.withUTF8 { body($0, member.value) }
        }
    }

    fileprivate var memberCount: Int {
        guard case .object(let members) = self else { return 0 }
        return members.count
    }

    fileprivate var valueCountBound: Int { 0 }
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

    func forEachMember(_ body: (UnsafeBufferPointer<UInt8>, TapeValue) -> Void) {
        guard tape.tag(index) == JSONTape.objectStart else { return }
        let end = tape.containerEnd(index) - 1  // the closing `}`
        var at = index + 1
        while at < end {
            body(tape.stringBytes(at), TapeValue(tape: tape, index: at + 1))
            at = tape.next(at + 1)
        }
    }

    var memberCount: Int { tape.tag(index) == JSONTape.objectStart ? tape.containerCount(index) : 0 }

    /// Every value takes at least one word of the tape.
    var valueCountBound: Int { tape.next(index) - index }
}
