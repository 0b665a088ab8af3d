/// A schema compiled once by `SchemaCompiler`, to check any number of JSON values against (from any thread: it is
/// an immutable value, and checking never resolves a reference or compiles a pattern).
public struct CompiledSchema: Sendable {
    let nodes: [SchemaNode]
    let root: Int
    /// How the schema was read.
    public let dialect: SchemaDialect

    /// Where the schema is.
    public var place: SpecPlace { nodes[root].place }

    /// Every keyword in the schema and the schemas it reaches that the check does not check, once per place, as
    /// notes at the value's root: what a run reports once for the document rather than once per value.
    public var uncheckedKeywords: [SchemaViolation] {
        nodes.flatMap { node in
            node.unchecked.map { keyword in
                SchemaViolation(
                    .note, at: .root, keyword: keyword.keyword, place: keyword.place, expected: nil, actual: nil,
                    message: "not checked: " + keyword.reason)
            }
        }
    }

    /// Everything wrong with `value` against this schema: every violation (not only the first), and the notes: a
    /// keyword not checked (once per schema place), and in `.consumer` mode a required member the value lacks.
    /// - Parameters:
    ///   - value: A JSON body (a stub's, a live answer's, a request's).
    ///   - mode: JSON Schema's reading, or the consumer's (see `SchemaCheckMode`).
    /// - Returns: Violations and notes, in the order the walk found them (notes about keywords last).
    public func violations(of value: JSONValue, mode: SchemaCheckMode = .standard) -> [SchemaViolation] {
        nodes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return [] }
            var evaluation = SchemaEvaluation(
                nodes: base, root: root, isConsumer: mode == .consumer, dialect: dialect)
            evaluation.enter(root, value)
            return evaluation.results()
        }
    }

    /// Whether `value` has no violation in `mode` (notes allowed).
    /// - Parameters:
    ///   - value: A JSON value.
    ///   - mode: The reading.
    /// - Returns: `true` when it fits.
    public func isValid(_ value: JSONValue, mode: SchemaCheckMode = .standard) -> Bool {
        !violations(of: value, mode: mode).contains { $0.isViolation }
    }
}

/// The members of one object value that a schema declares (consumer mode): a bit per member.
private struct DeclaredMembers {
    /// The number of members tracked; 0 when not tracking (standard mode, or not an object).
    let count: Int
    private var low: UInt64 = 0
    private var high: [UInt64] = []

    static let none = DeclaredMembers(count: 0)

    init(count: Int) {
        self.count = count
        if count > 64 { high = [UInt64](repeating: 0, count: (count - 1) / 64) }
    }

    /// The same members, none declared yet: for a branch tried apart.
    var cleared: DeclaredMembers { DeclaredMembers(count: count) }

    mutating func insert(_ offset: Int) {
        guard count > 0 else { return }
        if offset < 64 { low |= 1 << UInt64(offset) } else { high[offset / 64 - 1] |= 1 << UInt64(offset % 64) }
    }

    func contains(_ offset: Int) -> Bool {
        offset < 64 ? low & (1 << UInt64(offset)) != 0 : high[offset / 64 - 1] & (1 << UInt64(offset % 64)) != 0
    }

    mutating func formUnion(_ other: DeclaredMembers) {
        guard count > 0, other.count == count else { return }
        low |= other.low
        for index in high.indices { high[index] |= other.high[index] }
    }
}

/// A node read where the compiled schema's array keeps it: `node.pointee.types` reads one field, never a copy of
/// the node.
private typealias Node = UnsafePointer<SchemaNode>

/// One walk of a value through a compiled schema.
private struct SchemaEvaluation {
    /// What a found item is, before the mode decides its severity.
    enum Kind {
        /// A violation in both modes.
        case standard
        /// A required member missing: a violation in standard mode, a note in the consumer's.
        case required
        /// A member no applicable schema declares (consumer mode only): a violation.
        case undeclared
    }

    struct Item {
        var kind: Kind
        var violation: SchemaViolation
    }

    /// A branch's outcome: fits; fits but for required members (consumer mode); does not fit.
    enum Status {
        case pass
        case soft
        case fail
    }

    /// Deeper values than this are not checked (a note): the walk recurses once per level.
    static let maxDepth = 256

    /// The compiled schema's nodes, where the array keeps them: the checks read a node in place (a copy of a node
    /// retains each of its arrays and strings, which was a third of the time per value).
    let nodes: UnsafePointer<SchemaNode>
    let isConsumer: Bool
    let dialect: SchemaDialect
    let integralDoubleIsInteger: Bool
    var path: [JSONLocation.Component] = []
    var items: [Item] = []
    /// Nodes with unchecked keywords the walk went through, with the first place in the value.
    var uncheckedSeen: Set<Int> = []
    var uncheckedOrder: [(node: Int, location: JSONLocation)] = []
    /// Discriminators choosing right now, with the depth of the value they choose for: a schema chosen by one
    /// (`Cat: allOf: [Pet, …]`) that comes back to it for the same value is not chosen again.
    var dispatching: [(node: Int, depth: Int)] = []
    /// The first place deeper than `maxDepth`, when the value has one.
    var tooDeep: JSONLocation?
    let root: Int

    init(nodes: UnsafePointer<SchemaNode>, root: Int, isConsumer: Bool, dialect: SchemaDialect) {
        self.nodes = nodes
        self.root = root
        self.isConsumer = isConsumer
        self.dialect = dialect
        self.integralDoubleIsInteger = dialect == .openAPI31
    }

    var location: JSONLocation { JSONLocation(path) }

    func results() -> [SchemaViolation] {
        var results = items.map { item -> SchemaViolation in
            var violation = item.violation
            if item.kind == .required && isConsumer { violation.severity = .note }
            return violation
        }
        for (node, location) in uncheckedOrder {
            for keyword in nodes[node].unchecked {
                results.append(
                    SchemaViolation(
                        .note, at: location, keyword: keyword.keyword, place: keyword.place, expected: nil,
                        actual: nil, message: "not checked: " + keyword.reason))
            }
        }
        if let deepest = tooDeep {
            results.append(
                SchemaViolation(
                    .note, at: deepest, keyword: "schema", place: nodes[root].place, expected: nil, actual: nil,
                    message: "not checked: values nested deeper than \(Self.maxDepth) levels"))
        }
        return results
    }

    mutating func emit(
        _ kind: Kind, _ keyword: String, _ place: SpecPlace, expected: String?, actual: String?, message: String,
        at location: JSONLocation? = nil, branches: [SchemaBranch] = []
    ) {
        items.append(
            Item(
                kind: kind,
                violation: SchemaViolation(
                    .violation, at: location ?? self.location, keyword: keyword, place: place, expected: expected,
                    actual: actual, message: message, branches: branches)))
    }

    /// `expected X, got Y`.
    mutating func emit(_ keyword: String, _ place: SpecPlace, expected: String, actual: String) {
        emit(
            .standard, keyword, place, expected: expected, actual: actual,
            message: "expected \(expected), got \(actual)")
    }

    // MARK: A value at a new place

    /// Checks `value` (at `path`) against node `index`: all the schemas that apply to it in place, then, in consumer
    /// mode, the members none of them declares.
    mutating func enter(_ index: Int, _ value: JSONValue) {
        if path.count > Self.maxDepth {
            if tooDeep == nil { tooDeep = location }
            return
        }
        guard isConsumer, case .object(let members) = value, !members.isEmpty else {
            var declared = DeclaredMembers.none
            evaluate(index, value, &declared)
            return
        }
        var declared = DeclaredMembers(count: members.count)
        evaluate(index, value, &declared)
        var place: SpecPlace?
        for (offset, member) in members.enumerated() where !declared.contains(offset) {
            if place == nil { place = declaringPlace(index) }
            let name = ContractRules.describe(.string(member.key))
            emit(
                .undeclared, "properties", place ?? nodes[index].place,
                expected: "only the members the schema declares",
                actual: "member \(name): \(SchemaText.excerpt(member.value))",
                message: "member \(name) is not declared by the schema", at: location.appending(key: member.key))
        }
    }

    /// The place an undeclared member is reported at: the schema's `properties` (past any `$ref`).
    private func declaringPlace(_ index: Int) -> SpecPlace {
        nodes[displayNode(index)].place(of: "properties")
    }

    /// The node a place names best: past `$ref`s that are the whole schema.
    private func displayNode(_ index: Int) -> Int {
        var current = index
        var steps = 0
        while let ref = nodes[current].ref, dialect.refReplacesSiblings || nodes[current].keywordPlaces.count == 1,
            steps < 32
        {
            current = ref
            steps += 1
        }
        return current
    }

    // MARK: One schema

    mutating func evaluate(_ index: Int, _ value: JSONValue, _ declared: inout DeclaredMembers) {
        let node = nodes + index
        if !node.pointee.unchecked.isEmpty, uncheckedSeen.insert(index).inserted {
            uncheckedOrder.append((index, location))
        }
        if node.pointee.isFalse {
            emit(
                "false", node.pointee.place, expected: "no value (the schema is false)", actual: SchemaText.typed(value)
            )
            return
        }
        // The app's reading: `nullable: true` makes `null` a value of the schema even where 3.0.3 says it adds to
        // `type` only (`allOf: [{$ref: user}]` with `nullable: true`, as GitHub's description writes an optional
        // object): code generators read such a property as optional, and an app decodes `null` there.
        if isConsumer && node.pointee.nullable, case .null = value { return }
        if let ref = node.pointee.ref { evaluate(ref, value, &declared) }
        if let types = node.pointee.types {
            var allowed = types
            if node.pointee.nullable { allowed.insert(.null) }
            if !allowed.admits(value, integralDoubleIsInteger: integralDoubleIsInteger) {
                emit(
                    "type", node.pointee.place(of: "type"), expected: allowed.description,
                    actual: SchemaText.typed(value))
            }
        }
        if let values = node.pointee.enumValues, !values.contains(where: { SchemaEquality.equal($0, value) }) {
            emit(
                "enum", node.pointee.place(of: "enum"), expected: "one of \(SchemaText.list(values))",
                actual: SchemaText.excerpt(value))
        }
        if let constant = node.pointee.constValue, !SchemaEquality.equal(constant, value) {
            emit(
                "const", node.pointee.place(of: "const"), expected: SchemaText.excerpt(constant),
                actual: SchemaText.excerpt(value))
        }
        switch value {
        case .integer, .unsignedInteger, .double:
            if node.pointee.hasNumberKeywords { checkNumber(node, value) }
        case .string(let text):
            if node.pointee.hasStringKeywords { checkString(node, text) }
        case .array(let list):
            if node.pointee.hasArrayKeywords { checkArray(node, list) }
        case .object(let members):
            checkObject(node, members, &declared)
        default:
            break
        }
        for branch in node.pointee.allOf { evaluate(branch, value, &declared) }
        var isChosen = false
        if let discriminator = node.pointee.discriminator {
            if dispatching.contains(where: { $0.node == index && $0.depth == path.count }) {
                isChosen = discriminator.isOnBranches  // chosen already, for this value: not again
            } else {
                isChosen = discriminator.isOnBranches
                choose(discriminator, from: index, value, &declared)
            }
        }
        if !isChosen {
            if !node.pointee.anyOf.isEmpty { tryBranches(node.pointee.anyOf, isOneOf: false, node, value, &declared) }
            if !node.pointee.oneOf.isEmpty { tryBranches(node.pointee.oneOf, isOneOf: true, node, value, &declared) }
        }
        if let not = node.pointee.not {
            let start = items.count
            var ignored = DeclaredMembers.none
            evaluate(not, value, &ignored)
            let fits = !items[start...].contains { $0.kind != .undeclared }
            items.removeSubrange(start...)
            if fits {
                emit(
                    "not", node.pointee.place(of: "not"), expected: "a value the schema under not rejects",
                    actual: SchemaText.typed(value))
            }
        }
    }

    private mutating func checkNumber(_ node: Node, _ value: JSONValue) {
        guard let number = SchemaNumber(value) else { return }
        for bound in node.pointee.lower {
            let order = number.compare(bound.value)
            if order < 0 || (order == 0 && bound.isExclusive) {
                emit(
                    bound.keyword, bound.place,
                    expected: (bound.isExclusive ? "more than " : "at least ") + SchemaText.number(bound.value),
                    actual: SchemaText.excerpt(value))
            }
        }
        for bound in node.pointee.upper {
            let order = number.compare(bound.value)
            if order > 0 || (order == 0 && bound.isExclusive) {
                emit(
                    bound.keyword, bound.place,
                    expected: (bound.isExclusive ? "less than " : "at most ") + SchemaText.number(bound.value),
                    actual: SchemaText.excerpt(value))
            }
        }
        if let divisor = node.pointee.multipleOf, !divisor.divides(number) {
            emit(
                "multipleOf", node.pointee.place(of: "multipleOf"),
                expected: "a multiple of \(SchemaText.number(divisor.number))",
                actual: SchemaText.excerpt(value))
        }
        switch node.pointee.format {
        case .rule(let format) where format.isInteger:
            if ContractRules.formatProblem(format, value) != nil {
                emit(
                    "format", node.pointee.place(of: "format"), expected: ContractRules.article(format),
                    actual: SchemaText.excerpt(value))
            }
        case .float:
            if abs(number.doubleValue) > Double(Float.greatestFiniteMagnitude) {
                emit(
                    "format", node.pointee.place(of: "format"),
                    expected: "a float (at most 3.4028235e+38 in magnitude)",
                    actual: SchemaText.excerpt(value))
            }
        default:
            break
        }
    }

    private mutating func checkString(_ node: Node, _ text: String) {
        if node.pointee.minLength != nil || node.pointee.maxLength != nil {
            let length = text.unicodeScalars.count  // JSON Schema counts code points
            if let minimum = node.pointee.minLength, length < minimum {
                emit(
                    "minLength", node.pointee.place(of: "minLength"),
                    expected: "at least \(minimum) character\(minimum == 1 ? "" : "s")",
                    actual: "\(length): \(SchemaText.excerpt(.string(text)))")
            }
            if let maximum = node.pointee.maxLength, length > maximum {
                emit(
                    "maxLength", node.pointee.place(of: "maxLength"),
                    expected: "at most \(maximum) character\(maximum == 1 ? "" : "s")",
                    actual: "\(length): \(SchemaText.excerpt(.string(text)))")
            }
        }
        if let pattern = node.pointee.pattern, !pattern.isMatch(in: text) {
            emit(
                "pattern", node.pointee.place(of: "pattern"), expected: "a string matching /\(pattern.pattern)/",
                actual: SchemaText.excerpt(.string(text)))
        }
        if case .rule(let format) = node.pointee.format, !format.isInteger, !ContractRules.holds(format, text) {
            emit(
                "format", node.pointee.place(of: "format"), expected: ContractRules.article(format),
                actual: SchemaText.excerpt(.string(text)))
        }
    }

    private mutating func checkArray(_ node: Node, _ list: [JSONValue]) {
        if let minimum = node.pointee.minItems, list.count < minimum {
            emit(
                "minItems", node.pointee.place(of: "minItems"),
                expected: "at least \(minimum) item\(minimum == 1 ? "" : "s")",
                actual: "\(list.count)")
        }
        if let maximum = node.pointee.maxItems, list.count > maximum {
            emit(
                "maxItems", node.pointee.place(of: "maxItems"),
                expected: "at most \(maximum) item\(maximum == 1 ? "" : "s")",
                actual: "\(list.count)")
        }
        if node.pointee.uniqueItems, let (first, second) = SchemaEquality.firstRepeat(in: list) {
            emit(
                "uniqueItems", node.pointee.place(of: "uniqueItems"), expected: "unique items",
                actual: "items \(first) and \(second) equal: \(SchemaText.excerpt(list[second]))")
        }
        guard node.pointee.items != nil || !node.pointee.prefixItems.isEmpty else { return }
        for (offset, item) in list.enumerated() {
            guard
                let schema = offset < node.pointee.prefixItems.count
                    ? node.pointee.prefixItems[offset] : node.pointee.items
            else { break }
            path.append(.index(offset))
            enter(schema, item)
            path.removeLast()
        }
    }

    private mutating func checkObject(_ node: Node, _ members: [JSONMember], _ declared: inout DeclaredMembers) {
        if let minimum = node.pointee.minProperties, members.count < minimum {
            emit(
                "minProperties", node.pointee.place(of: "minProperties"),
                expected: "at least \(minimum) member\(minimum == 1 ? "" : "s")", actual: "\(members.count)")
        }
        if let maximum = node.pointee.maxProperties, members.count > maximum {
            emit(
                "maxProperties", node.pointee.place(of: "maxProperties"),
                expected: "at most \(maximum) member\(maximum == 1 ? "" : "s")", actual: "\(members.count)")
        }
        guard
            !node.pointee.members.isEmpty || !node.pointee.patternProperties.isEmpty
                || node.pointee.additional != .absent
        else { return }
        // Which required members were seen: a bit each (a list beyond 64).
        var seen: UInt64 = 0
        var seenBeyond: [Bool] =
            node.pointee.required.count > 64 ? [Bool](repeating: false, count: node.pointee.required.count) : []
        for (offset, member) in members.enumerated() {
            var isMatched = false
            if let rule = node.pointee.members.index(of: member.key) {
                if let required = node.pointee.members.rules[rule].requiredIndex {
                    if required < 64 { seen |= 1 << UInt64(required) } else { seenBeyond[required] = true }
                }
                if let schema = node.pointee.members.rules[rule].node {
                    isMatched = true
                    descend(into: member, schema)
                }
            }
            for property in node.pointee.patternProperties where property.regex.isMatch(in: member.key) {
                isMatched = true
                descend(into: member, property.node)
            }
            if isMatched {
                declared.insert(offset)
                continue
            }
            switch node.pointee.additional {
            case .schema(let schema):
                descend(into: member, schema)
                declared.insert(offset)
            case .forbidden:
                let name = ContractRules.describe(.string(member.key))
                emit(
                    .standard, "additionalProperties", node.pointee.place(of: "additionalProperties"),
                    expected: "no member beyond those declared",
                    actual: "member \(name): \(SchemaText.excerpt(member.value))",
                    message: "member \(name) is not allowed (additionalProperties is false)",
                    at: location.appending(key: member.key))
                declared.insert(offset)  // reported once, not again as undeclared
            case .absent, .allowed:
                break
            }
        }
        for (index, name) in node.pointee.required.enumerated()
        where index < 64 ? seen & (1 << UInt64(index)) == 0 : !seenBeyond[index] {
            let quoted = ContractRules.describe(.string(name))
            emit(
                .required, "required", node.pointee.place(of: "required"), expected: "member \(quoted)",
                actual: "absent",
                message: "missing required member \(quoted)", at: location.appending(key: name))
        }
    }

    private mutating func descend(into member: JSONMember, _ schema: Int) {
        path.append(.key(member.key))
        enter(schema, member.value)
        path.removeLast()
    }

    // MARK: Composition

    /// A discriminator's choice: the schema its member's value names, checked in place (on branches: instead of
    /// trying each branch; on a base schema: besides the base).
    private mutating func choose(
        _ discriminator: SchemaDiscriminator, from index: Int, _ value: JSONValue, _ declared: inout DeclaredMembers
    ) {
        let name = ContractRules.describe(.string(discriminator.propertyName))
        guard case .object(let members) = value else {
            if discriminator.isOnBranches {
                emit(
                    "discriminator", discriminator.place, expected: "an object with member \(name)",
                    actual: SchemaText.typed(value))
            }
            return
        }
        let values = discriminator.values.map { JSONValue.string($0) }
        guard let member = members.first(where: { SchemaEquality.sameCodePoints($0.key, discriminator.propertyName) })
        else {
            let expected = "member \(name) (one of \(SchemaText.list(values)))"
            emit(
                .standard, "discriminator", discriminator.place, expected: expected, actual: "absent",
                message: "missing discriminator member \(name): expected one of \(SchemaText.list(values))",
                at: location.appending(key: discriminator.propertyName))
            return
        }
        guard case .string(let chosen) = member.value, let target = discriminator.targets[chosen] else {
            emit(
                .standard, "discriminator", discriminator.place, expected: "one of \(SchemaText.list(values))",
                actual: SchemaText.excerpt(member.value),
                message: "expected one of \(SchemaText.list(values)), got \(SchemaText.excerpt(member.value))",
                at: location.appending(key: discriminator.propertyName))
            return
        }
        if target == index { return }  // the base schema names itself
        dispatching.append((index, path.count))
        evaluate(target, value, &declared)
        dispatching.removeLast()
    }

    /// `anyOf` or `oneOf` without a discriminator: each branch tried apart; the ones that fit are kept (their
    /// notes, and what they declare), or one violation lists every branch and why it failed.
    private mutating func tryBranches(
        _ branches: [Int], isOneOf: Bool, _ node: Node, _ value: JSONValue, _ declared: inout DeclaredMembers
    ) {
        var outcomes: [(branch: Int, status: Status, items: [Item], declared: DeclaredMembers)] = []
        outcomes.reserveCapacity(branches.count)
        for branch in branches {
            let start = items.count
            var branchDeclared = declared.cleared
            evaluate(branch, value, &branchDeclared)
            let status = self.status(from: start)
            let found = start < items.count ? Array(items[start...]) : []
            items.removeSubrange(start...)
            outcomes.append((branch, status, found, branchDeclared))
            if !isOneOf, !isConsumer, status == .pass { break }  // anyOf: one fit is enough
        }
        let keyword = isOneOf ? "oneOf" : "anyOf"
        let fits = outcomes.filter { $0.status == .pass }
        if isOneOf, fits.count > 1 {
            let listed = fits.map { "[\(branches.firstIndex(of: $0.branch) ?? 0)] \(displayPointer($0.branch))" }
            let expected = "exactly one of \(branches.count) schemas to match"
            emit(
                .standard, keyword, node.pointee.place(of: keyword), expected: expected, actual: "\(fits.count)",
                message: "expected \(expected), got \(fits.count): " + listed.joined(separator: ", "),
                branches: outcomes.enumerated().map { branch($0.offset, $0.element.branch, $0.element.status, []) })
            for outcome in fits { declared.formUnion(outcome.declared) }
            return
        }
        var chosen = fits
        if chosen.isEmpty, isConsumer { chosen = outcomes.filter { $0.status == .soft } }
        if chosen.isEmpty {
            let summary = outcomes.enumerated().map { offset, outcome -> String in
                let reason = outcome.items.first { $0.kind != .undeclared }?.violation
                return "[\(offset)] \(displayPointer(outcome.branch))"
                    + (reason.map { ": \($0.location): \($0.message)" } ?? "")
            }
            let expected = "\(isOneOf ? "exactly one" : "at least one") of \(branches.count) schemas to match"
            emit(
                .standard, keyword, node.pointee.place(of: keyword), expected: expected, actual: "none",
                message: "expected \(expected), got none: " + summary.joined(separator: "; "),
                branches: outcomes.enumerated().map { offset, outcome in
                    branch(
                        offset, outcome.branch, outcome.status,
                        outcome.items.filter { $0.kind != .undeclared }.prefix(3).map(\.violation))
                })
            for outcome in outcomes { declared.formUnion(outcome.declared) }  // one violation, not one per member
            return
        }
        for outcome in chosen {
            items += outcome.items
            declared.formUnion(outcome.declared)
        }
    }

    private func branch(_ offset: Int, _ node: Int, _ status: Status, _ reasons: [SchemaViolation]) -> SchemaBranch {
        SchemaBranch(index: offset, place: nodes[displayNode(node)].place, isMatch: status == .pass, reasons: reasons)
    }

    private func displayPointer(_ node: Int) -> String { nodes[displayNode(node)].place.pointer }

    /// How the items found since `start` leave a branch: a required member missing lets it fit softly in consumer
    /// mode; members it does not declare do not decide (the consumer's reading adds them after the choice).
    private func status(from start: Int) -> Status {
        var status = Status.pass
        for item in items[start...] {
            switch item.kind {
            case .standard: return .fail
            case .required: if isConsumer { status = .soft } else { return .fail }
            case .undeclared: continue
            }
        }
        return status
    }
}
