/// One schema object, compiled: every keyword read once into the form the check uses, every subschema and `$ref`
/// an index into the compiled schema's node list (so that a recursive schema is a cycle of indices).
struct SchemaNode: Sendable {
    /// Where the schema object is.
    var place: SpecPlace
    /// Where each keyword's value is, for the violations it finds.
    var keywordPlaces: [String: SpecPlace] = [:]
    /// The boolean schema `false` (3.1; also `additionalProperties: false` is read apart): no value fits.
    var isFalse = false
    /// `$ref`'s target. In 2.0 and 3.0 it is the whole schema (siblings are ignored, and noted when they assert).
    var ref: Int?
    /// The last token of `$ref`'s pointer (`Cat` for `#/components/schemas/Cat`): a discriminator's implicit name.
    var refName: String?
    var types: SchemaTypes?
    /// 3.0's `nullable: true`, 2.0's `x-nullable: true`: `null` fits `type` as well.
    var nullable = false
    var enumValues: [JSONValue]?
    var constValue: JSONValue?
    var format: SchemaFormat?
    /// `minimum` and `exclusiveMinimum` (3.1 may have both), `maximum` and `exclusiveMaximum`.
    var lower: [SchemaBound] = []
    var upper: [SchemaBound] = []
    var multipleOf: SchemaMultiple?
    var minLength: Int?
    var maxLength: Int?
    var pattern: ECMARegex?
    var minItems: Int?
    var maxItems: Int?
    var uniqueItems = false
    var prefixItems: [Int] = []
    var items: Int?
    var minProperties: Int?
    var maxProperties: Int?
    var required: [String] = []
    /// Every member named by `properties` or `required`, by name: one lookup per member of a value.
    var members = SchemaMemberTable([])
    var patternProperties: [SchemaPatternProperty] = []
    var additional: SchemaAdditional = .absent
    var allOf: [Int] = []
    var anyOf: [Int] = []
    var oneOf: [Int] = []
    var not: Int?
    var discriminator: SchemaDiscriminator?
    /// The keywords here that the check does not check, each with why: reported as notes.
    var unchecked: [SchemaUncheckedKeyword] = []

    init(place: SpecPlace) {
        self.place = place
    }

    /// The place of `keyword` (the schema's own when the keyword has none).
    func place(of keyword: String) -> SpecPlace { keywordPlaces[keyword] ?? place }

    /// Whether any keyword about numbers, strings, arrays or objects is present (each is skipped when not).
    var hasNumberKeywords: Bool { !lower.isEmpty || !upper.isEmpty || multipleOf != nil || format != nil }
    var hasStringKeywords: Bool { minLength != nil || maxLength != nil || pattern != nil || format != nil }
    var hasArrayKeywords: Bool {
        minItems != nil || maxItems != nil || uniqueItems || items != nil || !prefixItems.isEmpty
    }
}

/// A format the check knows: the string and integer formats of `ContractRules.Format` (one definition serves the
/// manifest's `formats` rules and the schema check), and `float` and `double`.
enum SchemaFormat: Sendable, Equatable {
    case rule(ContractRules.Format)
    /// A number a 32-bit float holds (finite, at most about 3.4e38 in magnitude).
    case float
    /// Any JSON number (a 64-bit float holds every one Tether reads).
    case double

    init?(name: String) {
        switch name {
        case "float": self = .float
        case "double": self = .double
        default:
            guard let format = ContractRules.Format(rawValue: name) else { return nil }
            self = .rule(format)
        }
    }

    var name: String {
        switch self {
        case .rule(let format): format.rawValue
        case .float: "float"
        case .double: "double"
        }
    }
}

/// A lower or upper bound on numbers.
struct SchemaBound: Sendable {
    var value: SchemaNumber
    var isExclusive: Bool
    /// The keyword that sets it: `minimum`, or `exclusiveMinimum` (a number in 3.1, `true` beside `minimum` in 3.0).
    var keyword: String
    var place: SpecPlace
}

/// What a schema says of one member name.
struct SchemaMemberRule: Sendable {
    /// The name as written: a `String` key matches any canonically equivalent one, JSON Schema compares code points.
    var name: String
    /// Its schema in `properties`.
    var node: Int?
    /// Its index in `required`.
    var requiredIndex: Int?
}

/// The member rules of a schema, found by a name's UTF-8 bytes: FNV-1a and open addressing, compared with
/// `memcmp`. A `Dictionary<String, …>` hashed each member name with SipHash and compared with `String.==` (which
/// also equates canonically equivalent names): a quarter of the time per value.
struct SchemaMemberTable: Sendable {
    /// The rules, each once.
    let rules: [SchemaMemberRule]
    private let hashes: [UInt64]
    /// An index into `rules`, or -1; a power of two long, at least twice the rules.
    private let slots: [Int32]

    init(_ rules: [SchemaMemberRule]) {
        self.rules = rules
        hashes = rules.map { Self.hash($0.name) }
        var capacity = 4
        while capacity < rules.count * 2 { capacity *= 2 }
        var slots = [Int32](repeating: -1, count: capacity)
        for (index, hash) in hashes.enumerated() {
            var slot = Int(truncatingIfNeeded: hash) & (capacity - 1)
            while slots[slot] >= 0 { slot = (slot + 1) & (capacity - 1) }
            slots[slot] = Int32(index)
        }
        self.slots = slots
    }

    var isEmpty: Bool { rules.isEmpty }

    /// The index in `rules` of the rule for `name` (the same code points), or `nil`.
    func index(of name: String) -> Int? {
        guard !rules.isEmpty else { return nil }
        let hash = Self.hash(name)
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let index = Int(slots[slot])
            if index < 0 { return nil }
            if hashes[index] == hash, SchemaEquality.sameCodePoints(rules[index].name, name) { return index }
            slot = (slot + 1) & mask
        }
    }

    /// FNV-1a over the UTF-8 bytes.
    private static func hash(_ name: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        let isHashed: Bool? = name.utf8.withContiguousStorageIfAvailable { bytes in
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0100_0000_01b3 }
            return true
        }
        if isHashed == nil {  // not stored as UTF-8 (a bridged string on Darwin)
            for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0100_0000_01b3 }
        }
        return hash
    }
}

/// One `patternProperties` entry.
struct SchemaPatternProperty: Sendable {
    var regex: ECMARegex
    var node: Int
}

/// What `additionalProperties` says.
enum SchemaAdditional: Sendable, Equatable {
    /// Not written (JSON Schema allows any member).
    case absent
    /// `true` or `{}`: any member, of any value (the consumer's reading: not declared).
    case allowed
    /// `false`: no member beyond `properties` and `patternProperties`.
    case forbidden
    /// A schema every other member's value must fit (a map): the members are declared.
    case schema(Int)
}

/// A `discriminator`: which schema a value is, by one member's value.
struct SchemaDiscriminator: Sendable {
    /// The member that names the schema.
    var propertyName: String
    var place: SpecPlace
    /// The schema each value names: `mapping`, then the implicit names (a `oneOf`/`anyOf` branch's `$ref` name,
    /// or, for a discriminator on a base schema, the schemas that extend it with `allOf`).
    var targets: [String: Int]
    /// The values a message lists, sorted: the mapping's, and the implicit names of schemas it does not map.
    var values: [String]
    /// Whether it chooses among this schema's `oneOf`/`anyOf` branches (else: on a base schema, it chooses the
    /// schema that extends the base, checked besides the base).
    var isOnBranches: Bool
}

/// A keyword the check does not check, where it is, and why.
struct SchemaUncheckedKeyword: Sendable, Equatable {
    var keyword: String
    var place: SpecPlace
    /// `contains is not a keyword Tether checks`.
    var reason: String
}
