/// Compiles OpenAPI schema objects into `CompiledSchema`s: every keyword read once, every `$ref` resolved once
/// (through the `SchemaSource`, which is never asked again while values are checked), patterns compiled once.
///
/// It keeps what it compiled: asking again for a schema at the same place returns the same `CompiledSchema`, so
/// that a run compiles each response schema once however many stubs it checks against it.
///
/// ```swift
/// var compiler = SchemaCompiler(dialect: .openAPI30, source: document)
/// let schema = try compiler.compile(responseSchema, at: responseSchemaPlace)
/// for violation in schema.violations(of: stubBody, mode: .consumer) { print(violation) }
/// ```
public struct SchemaCompiler {
    /// How the schemas are read.
    public let dialect: SchemaDialect
    private let source: any SchemaSource
    private var compiled: [String: CompiledSchema] = [:]
    private var regexes: [String: Result<ECMARegex, ECMARegexError>] = [:]
    /// How many schemas it has compiled: each place once, however often it was asked for.
    public private(set) var compileCount = 0

    /// - Parameters:
    ///   - dialect: The OpenAPI version the document declares.
    ///   - source: Where `$ref`s resolve and where each part of a schema is.
    public init(dialect: SchemaDialect, source: any SchemaSource) {
        self.dialect = dialect
        self.source = source
    }

    /// The schema `value` at `place`, compiled (or the one compiled before for `place`).
    /// - Parameters:
    ///   - value: A schema object (a boolean too, in 3.1).
    ///   - place: Where it is.
    /// - Returns: The compiled schema, to check any number of values against.
    /// - Throws: `SchemaError` for a `$ref` that does not resolve, or a cycle of schemas that apply to the same
    ///   value without going deeper (`a: {$ref: b}`, `b: {allOf: [{$ref: a}]}`), which no value could end.
    public mutating func compile(_ value: JSONValue, at place: SpecPlace) throws(SchemaError) -> CompiledSchema {
        let key = Self.key(place)
        if let schema = compiled[key] { return schema }
        var builder = SchemaBuilder(dialect: dialect, source: source, regexes: regexes)
        let root = try builder.node(for: value, at: place)
        try builder.checkCycles()
        regexes = builder.regexes
        let schema = CompiledSchema(nodes: builder.nodes, root: root, dialect: dialect)
        compiled[key] = schema
        compileCount += 1
        return schema
    }

    /// The schema that `reference` names, compiled.
    /// - Parameters:
    ///   - reference: A `$ref` string: `#/components/schemas/repository`.
    ///   - place: Where the reference is.
    /// - Returns: The compiled schema.
    /// - Throws: `SchemaError` as `compile(_:at:)`, and when the reference does not resolve.
    public mutating func compile(reference: String, at place: SpecPlace) throws(SchemaError) -> CompiledSchema {
        let target = try SchemaBuilder.resolve(reference, at: place, in: source)
        return try compile(target.value, at: target.place)
    }

    static func key(_ place: SpecPlace) -> String { place.file + "\u{0}" + place.pointer }
}

/// Builds the nodes of one compiled schema.
private struct SchemaBuilder {
    let dialect: SchemaDialect
    let source: any SchemaSource
    var regexes: [String: Result<ECMARegex, ECMARegexError>]
    var nodes: [SchemaNode] = []
    private var indexByPlace: [String: Int] = [:]

    init(dialect: SchemaDialect, source: any SchemaSource, regexes: [String: Result<ECMARegex, ECMARegexError>]) {
        self.dialect = dialect
        self.source = source
        self.regexes = regexes
    }

    /// Keywords that assert nothing (annotations, containers of definitions): read silently. `x-` extensions too.
    private static let annotations: Set<String> = [
        "title", "description", "default", "example", "examples", "deprecated", "readOnly", "writeOnly", "xml",
        "externalDocs", "$comment", "$schema", "$anchor", "$dynamicAnchor", "$vocabulary", "definitions", "$defs",
        "contentMediaType", "contentEncoding", "contentSchema",
    ]

    static func resolve(_ reference: String, at place: SpecPlace, in source: any SchemaSource) throws(SchemaError)
        -> SchemaValue
    {
        do {
            return try source.resolve(reference, at: place)
        } catch let error as SchemaError {
            throw error
        } catch {
            throw SchemaError(
                at: place,
                "$ref '\(reference)' does not resolve: \(error): fix the reference, or add the schema it names")
        }
    }

    /// The node for the schema `value` at `place`: built once per place (a recursive reference finds the index
    /// of the node being built).
    mutating func node(for value: JSONValue, at place: SpecPlace) throws(SchemaError) -> Int {
        let key = SchemaCompiler.key(place)
        if let index = indexByPlace[key] { return index }
        let index = nodes.count
        nodes.append(SchemaNode(place: place))
        indexByPlace[key] = index
        let node = try build(value, at: place)
        nodes[index] = node
        return index
    }

    private mutating func reference(_ reference: String, at place: SpecPlace) throws(SchemaError) -> Int {
        let target = try Self.resolve(reference, at: place, in: source)
        return try node(for: target.value, at: target.place)
    }

    private func member(_ key: String, of place: SpecPlace) -> SpecPlace { source.place(ofMember: key, in: place) }

    private mutating func regex(_ pattern: String) -> Result<ECMARegex, ECMARegexError> {
        if let known = regexes[pattern] { return known }
        let result: Result<ECMARegex, ECMARegexError>
        do throws(ECMARegexError) {
            result = .success(try ECMARegex(pattern))
        } catch {
            result = .failure(error)
        }
        regexes[pattern] = result
        return result
    }

    // MARK: One schema object

    private mutating func build(_ value: JSONValue, at place: SpecPlace) throws(SchemaError) -> SchemaNode {
        var node = SchemaNode(place: place)
        let members: [JSONMember]
        switch value {
        case .bool(let flag):
            node.isFalse = !flag
            return node
        case .object(let list):
            members = list
        default:
            node.unchecked.append(
                SchemaUncheckedKeyword(
                    keyword: "schema", place: place,
                    reason: "a schema is an object or a boolean, got \(SchemaText.typed(value))"))
            return node
        }
        if dialect.refReplacesSiblings, let refMember = members.first(where: { $0.key == "$ref" }),
            case .string(let target) = refMember.value
        {
            let refPlace = member("$ref", of: place)
            node.keywordPlaces["$ref"] = refPlace
            node.ref = try reference(target, at: refPlace)
            node.refName = Self.lastToken(of: target)
            for other in members where other.key != "$ref" && !Self.isAnnotation(other.key) {
                node.unchecked.append(
                    SchemaUncheckedKeyword(
                        keyword: other.key, place: member(other.key, of: place),
                        reason: "\(other.key) is ignored beside $ref: in OpenAPI \(dialect.rawValue) a $ref replaces "
                            + "the object it is in (wrap both in allOf to apply both)"))
            }
            return node
        }
        var exclusiveMinimum = false
        var exclusiveMaximum = false
        var minimum: (SchemaNumber, SpecPlace)?
        var maximum: (SchemaNumber, SpecPlace)?
        var discriminator: (JSONValue, SpecPlace)?
        var memberRules: [String: SchemaMemberRule] = [:]
        for entry in members {
            let key = entry.key
            let keyPlace = member(key, of: place)
            func unchecked(_ reason: String) {
                node.unchecked.append(SchemaUncheckedKeyword(keyword: key, place: keyPlace, reason: reason))
            }
            func malformed(_ expected: String) {
                unchecked("\(key) must be \(expected), got \(SchemaText.typed(entry.value))")
            }
            if Self.isAnnotation(key) && !(key == "x-nullable" && dialect == .openAPI20) { continue }
            node.keywordPlaces[key] = keyPlace
            switch key {
            case "$ref":
                guard case .string(let target) = entry.value else {
                    malformed("a reference string")
                    continue
                }
                node.ref = try reference(target, at: keyPlace)
                node.refName = Self.lastToken(of: target)
            case "type":
                var types: SchemaTypes = []
                let names: [JSONValue]
                if case .array(let list) = entry.value { names = list } else { names = [entry.value] }
                for name in names {
                    if case .string(let text) = name, let type = SchemaTypes(name: text) {
                        types.insert(type)
                    } else {
                        unchecked(
                            "type \(SchemaText.excerpt(name)) is not a JSON type (string, integer, number, boolean, "
                                + "object, array, null)")
                    }
                }
                if !types.isEmpty { node.types = types }
            case "nullable":
                guard dialect == .openAPI30 else {
                    unchecked(
                        dialect == .openAPI31
                            ? "nullable is OpenAPI 3.0's; 3.1 writes type: [\"…\", \"null\"]"
                            : "nullable is OpenAPI 3.0's; Swagger 2.0 writes x-nullable")
                    continue
                }
                guard case .bool(let flag) = entry.value else {
                    malformed("true or false")
                    continue
                }
                node.nullable = flag
            case "x-nullable" where dialect == .openAPI20:
                guard case .bool(let flag) = entry.value else {
                    malformed("true or false")
                    continue
                }
                node.nullable = flag
            case "enum":
                guard case .array(let values) = entry.value else {
                    malformed("a list of values")
                    continue
                }
                node.enumValues = values
            case "const":
                node.constValue = entry.value
            case "format":
                guard case .string(let name) = entry.value else {
                    malformed("a format name")
                    continue
                }
                if let format = SchemaFormat(name: name) {
                    node.format = format
                } else {
                    unchecked("format \"\(name)\" is not one Tether checks")
                }
            case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
                if case .bool(let flag) = entry.value, key.hasPrefix("exclusive") {
                    if key == "exclusiveMinimum" { exclusiveMinimum = flag } else { exclusiveMaximum = flag }
                    continue
                }
                guard let number = SchemaNumber(entry.value) else {
                    malformed(key.hasPrefix("exclusive") ? "a number (3.1) or true or false (3.0)" : "a number")
                    continue
                }
                switch key {
                case "minimum": minimum = (number, keyPlace)
                case "maximum": maximum = (number, keyPlace)
                case "exclusiveMinimum":
                    node.lower.append(SchemaBound(value: number, isExclusive: true, keyword: key, place: keyPlace))
                default:
                    node.upper.append(SchemaBound(value: number, isExclusive: true, keyword: key, place: keyPlace))
                }
            case "multipleOf":
                guard let number = SchemaNumber(entry.value), number.compare(.integer(0)) > 0 else {
                    malformed("a number above 0")
                    continue
                }
                node.multipleOf = SchemaMultiple(number)
            case "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties":
                guard let number = SchemaNumber(entry.value), number.isIntegral, number.compare(.integer(0)) >= 0
                else {
                    malformed("a whole number, 0 or more")
                    continue
                }
                let count = number.compare(.integer(Int64(Int.max))) > 0 ? Int.max : Int(number.doubleValue)
                switch key {
                case "minLength": node.minLength = count
                case "maxLength": node.maxLength = count
                case "minItems": node.minItems = count
                case "maxItems": node.maxItems = count
                case "minProperties": node.minProperties = count
                default: node.maxProperties = count
                }
            case "pattern":
                guard case .string(let pattern) = entry.value else {
                    malformed("a regular expression string")
                    continue
                }
                switch regex(pattern) {
                case .success(let compiled): node.pattern = compiled
                case .failure(let error):
                    unchecked(
                        "pattern \(SchemaText.excerpt(entry.value)) is not an ECMA-262 regular expression "
                            + "Tether reads: \(error.message)")
                }
            case "uniqueItems":
                guard case .bool(let flag) = entry.value else {
                    malformed("true or false")
                    continue
                }
                node.uniqueItems = flag
            case "items":
                if case .array = entry.value {
                    unchecked(
                        dialect == .openAPI31
                            ? "items as a list is draft 4's tuple form; 2020-12 writes prefixItems"
                            : "items as a list (a tuple) is not OpenAPI \(dialect.rawValue)'s: its items is one schema")
                    continue
                }
                node.items = try self.node(for: entry.value, at: keyPlace)
            case "prefixItems" where dialect == .openAPI31:
                guard case .array(let list) = entry.value else {
                    malformed("a list of schemas")
                    continue
                }
                for (index, item) in list.enumerated() {
                    node.prefixItems.append(try self.node(for: item, at: source.place(ofElement: index, in: keyPlace)))
                }
            case "required":
                guard case .array(let list) = entry.value,
                    case let names = list.compactMap({ value -> String? in
                        if case .string(let name) = value { return name }
                        return nil
                    }), names.count == list.count
                else {
                    malformed("a list of member names")
                    continue
                }
                node.required = names
                for (index, name) in names.enumerated() where memberRules[name]?.requiredIndex == nil {
                    memberRules[name, default: SchemaMemberRule(name: name)].requiredIndex = index
                }
            case "properties":
                guard case .object(let list) = entry.value else {
                    malformed("an object of schemas")
                    continue
                }
                for property in list where memberRules[property.key]?.node == nil {
                    let target = try self.node(for: property.value, at: member(property.key, of: keyPlace))
                    memberRules[property.key, default: SchemaMemberRule(name: property.key)].node = target
                }
            case "patternProperties":
                guard case .object(let list) = entry.value else {
                    malformed("an object of schemas")
                    continue
                }
                for property in list {
                    switch regex(property.key) {
                    case .success(let compiled):
                        let target = try self.node(for: property.value, at: member(property.key, of: keyPlace))
                        node.patternProperties.append(SchemaPatternProperty(regex: compiled, node: target))
                    case .failure(let error):
                        unchecked(
                            "patternProperties key \(SchemaText.excerpt(.string(property.key))) is not an ECMA-262 "
                                + "regular expression Tether reads: \(error.message)")
                    }
                }
            case "additionalProperties":
                switch entry.value {
                case .bool(let flag): node.additional = flag ? .allowed : .forbidden
                case .object(let list) where list.isEmpty: node.additional = .allowed
                default: node.additional = .schema(try self.node(for: entry.value, at: keyPlace))
                }
            case "allOf", "anyOf", "oneOf":
                guard case .array(let list) = entry.value, !list.isEmpty else {
                    malformed("a list of schemas, not empty")
                    continue
                }
                var branches: [Int] = []
                for (index, item) in list.enumerated() {
                    branches.append(try self.node(for: item, at: source.place(ofElement: index, in: keyPlace)))
                }
                switch key {
                case "allOf": node.allOf = branches
                case "anyOf": node.anyOf = branches
                default: node.oneOf = branches
                }
            case "not":
                node.not = try self.node(for: entry.value, at: keyPlace)
            case "discriminator":
                discriminator = (entry.value, keyPlace)
            default:
                if key.hasPrefix("x-") { continue }
                node.keywordPlaces[key] = nil
                unchecked("\(key) is not a keyword Tether checks")
            }
        }
        if let (value, keyPlace) = minimum {
            node.lower.append(
                SchemaBound(
                    value: value, isExclusive: exclusiveMinimum,
                    keyword: exclusiveMinimum ? "exclusiveMinimum" : "minimum", place: keyPlace))
        }
        if let (value, keyPlace) = maximum {
            node.upper.append(
                SchemaBound(
                    value: value, isExclusive: exclusiveMaximum,
                    keyword: exclusiveMaximum ? "exclusiveMaximum" : "maximum", place: keyPlace))
        }
        if let (value, keyPlace) = discriminator {
            try readDiscriminator(value, at: keyPlace, into: &node)
        }
        node.members = SchemaMemberTable(memberRules.values.sorted { $0.name < $1.name })
        return node
    }

    private static func isAnnotation(_ key: String) -> Bool { key.hasPrefix("x-") || annotations.contains(key) }

    /// `Cat` for `#/components/schemas/Cat` and `pets.yaml#/Cat`; `nil` for a reference without a pointer.
    static func lastToken(of reference: String) -> String? {
        guard let hash = reference.firstIndex(of: "#") else { return nil }
        let pointer = reference[reference.index(after: hash)...]
        guard let last = pointer.split(separator: "/", omittingEmptySubsequences: false).last, !last.isEmpty else {
            return nil
        }
        return String(last).replacingTokenEscapes()
    }

    // MARK: Discriminators

    private mutating func readDiscriminator(_ value: JSONValue, at place: SpecPlace, into node: inout SchemaNode)
        throws(SchemaError)
    {
        var propertyName: String?
        var mapping: [(String, String, SpecPlace)] = []
        switch (dialect, value) {
        case (.openAPI20, .string(let name)): propertyName = name
        case (.openAPI30, .object), (.openAPI31, .object):
            if case .string(let name)? = value["propertyName"] { propertyName = name }
            if case .object(let entries)? = value["mapping"] {
                let mappingPlace = member("mapping", of: place)
                for entry in entries {
                    guard case .string(let target) = entry.value else { continue }
                    mapping.append((entry.key, target, member(entry.key, of: mappingPlace)))
                }
            }
        default: break
        }
        guard let propertyName else {
            node.unchecked.append(
                SchemaUncheckedKeyword(
                    keyword: "discriminator", place: place,
                    reason: dialect == .openAPI20
                        ? "discriminator must be a property name in Swagger 2.0"
                        : "discriminator must be an object with a propertyName"))
            return
        }
        var targets: [String: Int] = [:]
        var listed: [String] = []
        for (name, target, mappingPlace) in mapping {
            // A mapping value is a reference or a schema name.
            let reference =
                target.contains("#") || target.contains("/") || target.hasSuffix(".json")
                    || target.hasSuffix(".yaml") || target.hasSuffix(".yml")
                ? target : componentsPrefix + target
            targets[name] = try self.reference(reference, at: mappingPlace)
            listed.append(name)
        }
        let mapped = Set(targets.values.map(referenced))
        let isOnBranches = !node.oneOf.isEmpty || !node.anyOf.isEmpty
        if isOnBranches {
            for branch in node.oneOf + node.anyOf {
                if let name = nodes[branch].refName ?? nodeName(branch), targets[name] == nil {
                    targets[name] = branch
                }
            }
        } else {
            try addExtensions(of: node.place, to: &targets)
        }
        // Implicit names are accepted besides the mapping's; a message lists those of schemas the mapping lacks.
        listed += targets.filter { !mapped.contains(referenced($0.value)) && !listed.contains($0.key) }.map(\.key)
        node.discriminator = SchemaDiscriminator(
            propertyName: propertyName, place: place, targets: targets, values: listed.sorted(),
            isOnBranches: isOnBranches)
    }

    /// The schema a node stands for: past a `$ref` that is all it has (`{$ref: Cat}` stands for Cat).
    private func referenced(_ index: Int) -> Int {
        var current = index
        for _ in 0..<32 {
            guard let ref = nodes[current].ref, dialect.refReplacesSiblings || nodes[current].keywordPlaces.count == 1
            else { break }
            current = ref
        }
        return current
    }

    private var componentsPrefix: String { dialect == .openAPI20 ? "#/definitions/" : "#/components/schemas/" }

    /// The implicit name of a branch written inline with a `$ref` among other keywords (3.1).
    private func nodeName(_ index: Int) -> String? {
        guard let ref = nodes[index].ref else { return nil }
        return Self.lastToken(of: nodes[ref].place.pointer)
    }

    /// The schemas of the document's components (2.0: definitions) that extend the schema at `base` with
    /// `allOf: [{$ref: base}, …]`, by name; and the base itself under its own name.
    private mutating func addExtensions(of base: SpecPlace, to targets: inout [String: Int]) throws(SchemaError) {
        let container = String(componentsPrefix.dropLast())
        guard let schemas = try? source.resolve(container, at: base), case .object(let members) = schemas.value else {
            return
        }
        let baseKey = SchemaCompiler.key(base)
        for schema in members where targets[schema.key] == nil {
            let schemaPlace = member(schema.key, of: schemas.place)
            if SchemaCompiler.key(schemaPlace) == baseKey {
                targets[schema.key] = indexByPlace[baseKey]
                continue
            }
            guard case .array(let parts)? = schema.value["allOf"] else { continue }
            let allOfPlace = member("allOf", of: schemaPlace)
            for (index, part) in parts.enumerated() {
                guard case .string(let target)? = part["$ref"] else { continue }
                let refPlace = member("$ref", of: source.place(ofElement: index, in: allOfPlace))
                guard let resolved = try? source.resolve(target, at: refPlace),
                    SchemaCompiler.key(resolved.place) == baseKey
                else { continue }
                targets[schema.key] = try node(for: schema.value, at: schemaPlace)
                break
            }
        }
    }

    // MARK: Cycles

    /// Throws when schemas apply to the same value in a cycle (through `$ref`, `allOf`, `anyOf`, `oneOf`, `not`)
    /// that never goes down into a member or an item: checking any value would never end. A discriminator's choice
    /// is not an edge: the check does not choose again for the same value.
    func checkCycles() throws(SchemaError) {
        var state = [UInt8](repeating: 0, count: nodes.count)  // 0 new, 1 on the path, 2 done
        for start in nodes.indices where state[start] == 0 {
            var stack: [(node: Int, next: Int)] = [(start, 0)]
            state[start] = 1
            while let top = stack.last {
                let edges = inPlaceEdges(top.node)
                if top.next < edges.count {
                    stack[stack.count - 1].next += 1
                    let target = edges[top.next]
                    if state[target] == 1 {
                        let cycle = stack.map(\.node).drop { $0 != target }.map { nodes[$0].place.pointer }
                        throw SchemaError(
                            at: nodes[target].place,
                            "a cycle of schemas that apply to the same value: "
                                + (cycle + [nodes[target].place.pointer]).joined(separator: " → ")
                                + ": no value could end it; break it with a schema that goes into a property or item")
                    }
                    if state[target] == 0 {
                        state[target] = 1
                        stack.append((target, 0))
                    }
                } else {
                    state[top.node] = 2
                    stack.removeLast()
                }
            }
        }
    }

    private func inPlaceEdges(_ index: Int) -> [Int] {
        let node = nodes[index]
        var edges = node.allOf
        if let ref = node.ref { edges.append(ref) }
        if node.discriminator?.isOnBranches != true { edges += node.anyOf + node.oneOf }
        if let not = node.not { edges.append(not) }
        return edges
    }
}

extension String {
    /// A JSON pointer token as a URI fragment writes it, unescaped: percent-escapes first, then (RFC 6901) `~1` as
    /// `/` and `~0` as `~`.
    fileprivate func replacingTokenEscapes() -> String {
        var bytes: [UInt8] = []
        let utf8 = Array(self.utf8)
        var index = 0
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "%"), index + 2 < utf8.count,
                let value = UInt8(String(decoding: utf8[(index + 1)...(index + 2)], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                index += 3
            } else {
                bytes.append(utf8[index])
                index += 1
            }
        }
        var token = ""
        var characters = String(decoding: bytes, as: UTF8.self).makeIterator()
        while let character = characters.next() {
            guard character == "~" else {
                token.append(character)
                continue
            }
            switch characters.next() {
            case "1": token += "/"
            case "0": token += "~"
            case let other?: token += "~" + String(other)
            case nil: token += "~"
            }
        }
        return token
    }
}
