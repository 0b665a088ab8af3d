#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Whether a live JSON body has the structure of its stub: keys, types, nullability and array elements, not values.
///
/// The rules (Postel's law, as in Pact): every stub key must be present; types must match (a stub integer rejects a
/// live fraction, a stub fraction accepts a live integer); a live `null` where the stub has a value is a drift, a stub
/// `null` accepts anything (a note); every live array element must fit the merge of the stub's elements (an empty stub
/// array leaves them unchecked, a note); live keys the stub lacks are notes, or drifts when `strict`.
/// Every finding is reported, in document order (a missing key where its object closes), once per index-free path
/// and rule, at its first index, with a count of the further elements (`… and in 41 more elements`). The notes for a
/// stub `null` and an empty stub array appear only when the live value gives something to check (not `null`, not
/// empty). The walk is iterative; nesting is bounded by the parser's limit of 1024 levels.
public enum ShapeCheck {
    /// Checks a live body against a stub.
    /// - Parameters:
    ///   - stub: The stub body (`sampleData`).
    ///   - live: The live response body, raw bytes.
    ///   - strict: Whether live keys that the stub lacks are drifts rather than notes (a rule's `strict` wins).
    ///   - rules: The contract's rules, applied at their paths.
    /// - Returns: Drifts and notes, in document order; no drift means the contract holds.
    public static func findings(
        stub: JSONValue, live: Data, strict: Bool = false, rules: ContractRules = ContractRules()
    ) -> [Finding] {
        let shape = JSONShape(stub: stub, rules: rules)
        let findings = shape.findings(live: live, strict: rules.isStrict ?? strict)
        return shape.hasRepeatedKey ? repeatedKeys(in: stub, rules: rules) + findings : findings
    }

    /// A drift at each key a stub object has twice (or more), in document order: `JSONDecoder` reads the first
    /// value, `JSONSerialization` the last, so the app may read either; the check reads the first. The stub is
    /// walked iteratively, so that its depth (up to the parser's 1,024 levels) needs no stack.
    /// - Parameters:
    ///   - stub: The stub body.
    ///   - rules: The contract's rules: none is named where `ignore` rules.
    ///   - culprit: `.stub` against an OpenAPI document (`SpecCheck`), else `nil`.
    /// - Returns: One drift per repeated key and object; none for a stub without one.
    public static func repeatedKeys(
        in stub: JSONValue, rules: ContractRules = ContractRules(), culprit: Finding.Culprit? = nil
    ) -> [Finding] {
        var findings: [Finding] = []
        var components: [JSONLocation.Component] = []
        // Each open container, the index of its next child and, for an object, how many members before each one
        // have its key; `components` holds the way down to the top one.
        var stack: [(value: JSONValue, next: Int, earlier: [Int])] = [(stub, 0, [])]
        while let top = stack.last {
            let child: (value: JSONValue, step: JSONLocation.Component)?
            switch top.value {
            case .object(let members) where top.next < members.count:
                if top.next == 0 { stack[stack.count - 1].earlier = earlierKeys(members) }
                let member = members[top.next]
                let earlier = stack[stack.count - 1].earlier[top.next]
                // The first of each key is walked; the second is the drift, once per key and object.
                if earlier == 1, case let location = JSONLocation(components + [.key(member.key)]),
                    !SpecCheck.isIgnored(location, by: rules)
                {
                    findings.append(
                        Finding(
                            .drift, .repeatedKey, at: .json(location),
                            "the stub has this key twice: JSONDecoder reads the first value, JSONSerialization the "
                                + "last; keep one (the check read the first)", culprit: culprit))
                }
                child = earlier == 0 ? (member.value, .key(member.key)) : nil
            case .array(let elements) where top.next < elements.count:
                child = (elements[top.next], .index(top.next))
            default:
                stack.removeLast()
                if !stack.isEmpty { components.removeLast() }
                continue
            }
            stack[stack.count - 1].next += 1
            // Only containers are opened: a scalar has no keys.
            guard let child else { continue }
            switch child.value {
            case .object, .array:
                components.append(child.step)
                stack.append((child.value, 0, []))
            default: continue
            }
        }
        return findings
    }

    /// For each member, how many before it have its key, compared by UTF-8 bytes as the shape compares them: 0 for
    /// the first of each key. A linear search in a small object, a dictionary in a wide one.
    private static func earlierKeys(_ members: [JSONMember]) -> [Int] {
        guard members.count > 16 else {
            return members.indices.map { offset in
                let key = members[offset].key.utf8
                return members[..<offset].reduce(0) { $0 + ($1.key.utf8.elementsEqual(key) ? 1 : 0) }
            }
        }
        var seen: [[UInt8]: Int] = [:]
        return members.map { member in
            let key = Array(member.key.utf8)
            defer { seen[key, default: 0] += 1 }
            return seen[key] ?? 0
        }
    }
}

extension JSONShape {
    /// Checks a live body against this shape.
    /// - Parameters:
    ///   - live: The live response body, raw bytes.
    ///   - strict: Whether live keys that the stub lacks are drifts rather than notes.
    /// - Returns: Drifts and notes, in document order; a body that is not JSON gives one drift at path `body`.
    ///   The shape's rules (`init(stub:rules:)`) apply at their paths.
    public func findings(live: Data, strict: Bool = false) -> [Finding] {
        do {
            return findings(live: live, strict: strict, parser: try JSONParser(maxDepth: JSONShape.maxDepth))
        } catch {
            return [Finding.notJSON(error, body: live)]
        }
    }

    /// Checks a live body against this shape with a parser kept by the caller (see `JSONParser`).
    /// - Parameters:
    ///   - live: The live response body, raw bytes.
    ///   - strict: Whether live keys that the stub lacks are drifts rather than notes.
    ///   - parser: The parser to read the body with; its depth limit applies.
    /// - Returns: Drifts and notes, in document order; a body that is not JSON gives one drift at path `body`.
    public func findings(live: Data, strict: Bool = false, parser: JSONParser) -> [Finding] {
        findings(live: live, strict: strict, parser: parser, elementwiseFrom: JSONShape.elementwiseMinimumBytes)
    }

    /// Bodies of at least this many bytes that are one array are read element by element (see
    /// `JSONParser.withElements`): for a 20 MB body about 50 MB less memory first-touched, and a faster check.
    /// Smaller ones are read whole: their buffers are small anyway.
    static let elementwiseMinimumBytes = 1 << 20

    /// As `findings(live:strict:parser:)`, reading bodies of at least `elementwiseFrom` bytes that are one array
    /// element by element (tests lower it). Whichever way, the findings are the same.
    func findings(live: Data, strict: Bool, parser: JSONParser, elementwiseFrom: Int) -> [Finding] {
        if live.count >= elementwiseFrom, let result = elementwiseFindings(live: live, strict: strict, parser: parser) {
            return result
        }
        do {
            return try parser.withDocument(live) { tape in findings(tape: tape, strict: strict) }
        } catch {
            // simdjson refuses integers beyond 64 bits; where a rule gives such a place an integer format, the value
            // is a finding there ("does not fit int64"), not a parse failure of the whole body.
            if error.reason == .numberOutOfRange, rules.formats.contains(where: \.format.isInteger),
                let rewritten = BigIntegers.quoted(live),
                let result = try? parser.withDocument(
                    rewritten,
                    { tape in
                        findings(tape: tape, strict: strict, hasQuotedBigIntegers: true)
                    })
            {
                return result
            }
            return [Finding.notJSON(error, body: live)]
        }
    }

    /// Checks a parsed live document.
    /// With `hasQuotedBigIntegers` (a body rewritten by `BigIntegers.quoted`): `nil` when a big integer sits where no
    /// integer format expects one (the body's parse error stands then).
    func findings(tape: JSONTape, strict: Bool, hasQuotedBigIntegers: Bool) -> [Finding]? {
        withBuffers { buffers in
            var walk = ShapeWalk(shape: self, buffers: buffers, tape: tape, isStrict: strict)
            walk.hasQuotedBigIntegers = hasQuotedBigIntegers
            walk.run()
            return walk.hasUnexpectedBigInteger ? nil : walk.result()
        }
    }

    func findings(tape: JSONTape, strict: Bool) -> [Finding] {
        withBuffers { buffers in
            var walk = ShapeWalk(shape: self, buffers: buffers, tape: tape, isStrict: strict)
            walk.run()
            return walk.result()
        }
    }

    /// The shape's arrays as buffers for walks, valid during `body` (walks made there must not outlive it).
    private func withBuffers<R>(_ body: (ShapeWalk.Buffers) -> R) -> R {
        nodes.withUnsafeBufferPointer { nodes in
            keys.withUnsafeBufferPointer { keys in
                keyBytes.withUnsafeBufferPointer { keyBytes in
                    body(ShapeWalk.Buffers(nodes: nodes, keys: keys, keyBytes: keyBytes))
                }
            }
        }
    }

    /// Bodies of at least twice this many bytes that are one array of objects are read in parts, one per core (up
    /// to four, each at least this large), each by a parser of its own on a thread of its own; the findings are then
    /// merged into what one walk would have found. (A 20 MB body on 2 cores: the check's time about halved.)
    static let partBytes = 4 << 20

    /// How many parts a body of `count` bytes is read in.
    static func parts(forBytes count: Int) -> Int {
        guard count >= 2 * partBytes else { return 1 }
        return min(ProcessEnvironment.activeProcessorCount, 4, count / partBytes)
    }

    /// The findings for a body read element by element, or `nil` when it cannot be (not an array, not valid JSON, not
    /// from `PaddedBytes`, a root with rules, a stub `null` or an empty stub array): the body is then read whole,
    /// which says why. When not `nil`, they are exactly what reading it whole finds. Public for tests, benchmarks
    /// and the fuzzer (`JSONParser.paddedCopy(of:)` makes a body as the transport does).
    /// - Parameters:
    ///   - live: The live response body, raw bytes.
    ///   - strict: Whether live keys that the stub lacks are drifts rather than notes.
    ///   - parser: The parser to read the body with (the first part, if it is read in parts); its depth limit applies.
    ///   - windowBytes: How much of the body simdjson's stage 1 indexes at a time (tests make it small).
    ///   - cuts: Where to cut the body into parts read in parallel (byte offsets of a `{`, guesses: see
    ///     `JSONParser.withElements`), or `nil` for the default (`parts(forBytes:)`, `JSONParser.cuts`).
    ///   - perform: What runs the parts, each on a thread, and returns when all are done; `nil` for `DeepStack`'s
    ///     threads (whose stack holds the deepest element), unless the caller has threads of its own (the fuzzer joins each
    ///     thread within the input, so libFuzzer's leak check finds as many frees as mallocs).
    /// - Returns: Drifts and notes, in document order, or `nil`.
    @_spi(Testing) public func elementwiseFindings(
        live: Data, strict: Bool, parser: JSONParser, windowBytes: Int = 1 << 20, cuts: [Int]? = nil,
        perform: ((_ iterations: Int, _ body: @Sendable (Int) -> Void) -> Void)? = nil
    ) -> [Finding]? {
        guard let root = nodes.first, !root.isExceptional, root.kinds.contains(.array), root.element >= 0 else {
            return nil
        }
        let cuts = cuts ?? JSONParser.cuts(live, parts: Self.parts(forBytes: live.count))
        return withBuffers { buffers in
            /// Reads the elements from `from` until `until` into a walk of their own.
            func part(_ parser: JSONParser, from: Int?, until: Int?) -> ElementsPart {
                var walk: ShapeWalk?
                var count = 0
                let end = parser.withElements(live, windowBytes: windowBytes, from: from, until: until) { tape in
                    if walk == nil {
                        walk = ShapeWalk(shape: self, buffers: buffers, tape: tape, isStrict: strict)
                        walk?.openRootArray()
                    }
                    walk?.visitRootElement(tape: tape)
                    count += 1
                }
                return ElementsPart(walk: walk, end: end, count: count)
            }
            guard !cuts.isEmpty, let helpers = try? cuts.map({ _ in try JSONParser(maxDepth: parser.maxDepth) }) else {
                let whole = part(parser, from: nil, until: nil)
                return whole.end == .closed ? whole.walk?.result() : nil
            }
            let parts = [ElementsPart](unsafeUninitializedCapacity: cuts.count + 1) { buffer, initializedCount in
                // Each part initializes only its own element; `perform` returns when all have.
                let shared = UncheckedSendable((slots: buffer, read: part, parsers: [parser] + helpers))
                let perform =
                    perform ?? { DeepStack.concurrentPerform(name: "tether-body-part", iterations: $0, $1) }
                perform(cuts.count + 1) { index in
                    let (slots, read, parsers) = shared.value
                    (slots.baseAddress! + index).initialize(
                        to: read(
                            parsers[index], index == 0 ? nil : cuts[index - 1], index < cuts.count ? cuts[index] : nil))
                }
                initializedCount = cuts.count + 1
            }
            return Self.merged(parts)
        }
    }

    /// The first part's walk with the later parts' merged in, as far as each part stopped where the next one began
    /// (a part that read on to the array's close makes the later ones moot): their findings, or `nil` when the
    /// body is not a valid array (a part that counts failed).
    private static func merged(_ parts: [ElementsPart]) -> [Finding]? {
        var walk: ShapeWalk?
        var elements = 0
        var end = JSONParser.ElementsEnd.stopped
        for part in parts {
            guard end == .stopped else { break }
            guard part.end != .failed else { return nil }
            if let later = part.walk {
                // (No walk yet means no element yet: a first part that stopped at once, at the first element.)
                if walk == nil { walk = later } else { walk?.absorb(later, elementsBefore: elements) }
            }
            elements += part.count
            end = part.end
        }
        return end == .closed ? walk?.result() : nil
    }
}

// MARK: - Messages, next to the rules that use them

extension Finding {
    /// The live body could not be parsed.
    static func notJSON(_ error: JSONParseError, body: Data) -> Finding {
        switch error.reason {
        case .empty:
            Finding(
                .drift, .notJSON, at: .body,
                "expected a JSON body, got an empty body: make sampleData empty, or fix the stub")
        case .invalid:
            Finding(
                .drift, .notJSON, at: .body,
                "expected a JSON body, got text: \(textExcerpt(body)); \(error.description): "
                    + "check the request's path (an error page?), or make sampleData text")
        case .invalidUTF8:
            Finding(
                .drift, .notJSON, at: .body,
                "expected a JSON body, got bytes that are not UTF-8"
                    + (error.byteOffset.map { " (at byte \($0))" } ?? "")
                    + ": check the request's path, or make sampleData base64")
        case .tooDeep: Finding(.drift, .tooDeep, at: .body, error.description)
        case .numberOutOfRange: Finding(.drift, .numberOutOfRange, at: .body, error.description)
        case .tooLarge, .outOfMemory: Finding(.drift, .tooLarge, at: .body, error.description)
        }
    }

    /// The first characters of a body as one line of text, at most 60 characters (every body rule uses it).
    static func textExcerpt(_ body: Data) -> String {
        let head = String(decoding: body.prefix(240), as: UTF8.self)
        let oneLine = head.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        return oneLine.count <= 60 && body.count <= 240 ? oneLine : oneLine.prefix(60) + "…"
    }
}

/// What reading one part of a root array found: its walk (`nil` if no element was read), how the reading ended,
/// and how many elements it read.
private struct ElementsPart {
    var walk: ShapeWalk?
    var end: JSONParser.ElementsEnd
    var count: Int
}

/// The kinds of findings, for counting repeats of the same finding across array elements.
private enum Rule: UInt8 {
    case typeMismatch, fractionForInteger, unexpectedNull, stubNull, emptyStubArray, missingKey, format, values

    /// The public rule.
    var finding: Finding.Rule {
        switch self {
        case .typeMismatch: .type
        case .fractionForInteger: .integer
        case .unexpectedNull: .null
        case .stubNull: .stubNull
        case .emptyStubArray: .emptyStubArray
        case .missingKey: .missingKey
        case .format: .format
        case .values: .value
        }
    }
}

/// Identifies "the same finding": one rule at one index-free path (a shape node), with what distinguishes it there.
/// (Keys not in the stub are tracked apart, see `ShapeWalk.Extra`.)
private struct RepeatKey: Hashable {
    var node: Int32
    var rule: Rule
    /// The live type for type rules, the key's index for a missing key.
    var detail: Int
}

/// One check of a parsed document against a compiled shape: an iterative walk over the tape (a stack of open
/// containers, bounded by the parser's depth limit), comparing key bytes without hashing or allocating.
private struct ShapeWalk {
    let shape: JSONShape
    let nodes: UnsafeBufferPointer<JSONShape.Node>
    let keys: UnsafeBufferPointer<JSONShape.Key>
    let keyBytes: UnsafeBufferPointer<UInt8>
    /// The live document; for a root array read element by element, the current element's.
    var tape: JSONTape
    let isStrict: Bool
    /// The body was rewritten with integers beyond 64 bits as marked strings (`BigIntegers`).
    var hasQuotedBigIntegers = false
    /// A marked big integer was found where no integer format rule expects one.
    var hasUnexpectedBigInteger = false

    /// An open container of the live document.
    struct Frame {
        var node: Int32
        var isObject: Bool
        /// The tape index of the next member's key, or of the next element.
        var next: Int
        /// The tape index of the closing `}` or `]`.
        var end: Int
        /// Objects: the tape index of the current member's key; arrays: the current element's number.
        var current: Int
        /// Objects: bit i set when stub key i (i < 64) has been seen.
        var seen: UInt64 = 0
        /// Objects: the stub key to try first (the one after the last match: live order usually is stub order).
        var hint: Int32 = 0
        /// Objects with more than 64 stub keys: where their flags for keys 64… start in `seenBeyond64`.
        var seenBase: Int = 0
        /// Objects: the key not in the stub to try first (the one after the last such key seen), or -1.
        var extraHint: Int32 = -1
    }

    /// A live key not in the stub, already reported at its object node: later occurrences only count. Found again
    /// by comparing bytes along the node's list (in first-seen order, so the hint usually hits), not by hashing.
    struct Extra {
        var node: Int32
        var byteOffset: Int32
        var byteCount: Int32
        var finding: Int
        /// The next key not in the stub at the same node, or -1.
        var next: Int32 = -1
    }

    /// The innermost open container; `stack` holds the ones around it (kept apart so the hot loop updates a
    /// stored property, not an array element).
    var top = Frame(node: 0, isObject: false, next: 0, end: 0, current: 0)
    var stack: [Frame] = []
    /// How many containers are open, `top` included.
    var openCount = 0
    var seenBeyond64: [Bool] = []
    var findings: [Finding] = []
    var repeats: [Int] = []
    /// What to do about each finding (parallel to `findings`), added after its repeat count.
    var hints: [String?] = []
    var firstByKey: [RepeatKey: Int] = [:]
    var extras: [Extra] = []
    var extraBytes: [UInt8] = []
    /// Per shape node: its first and last `Extra`, or -1; made at the first key not in the stub (most walks
    /// find none).
    var extraHead: [Int32] = []
    var extraTail: [Int32] = []

    /// The shape's arrays as buffers for the hot loop, valid inside `JSONShape.withBuffers`.
    struct Buffers {
        let nodes: UnsafeBufferPointer<JSONShape.Node>
        let keys: UnsafeBufferPointer<JSONShape.Key>
        let keyBytes: UnsafeBufferPointer<UInt8>
    }

    init(shape: JSONShape, buffers: Buffers, tape: JSONTape, isStrict: Bool) {
        self.shape = shape
        self.nodes = buffers.nodes
        self.keys = buffers.keys
        self.keyBytes = buffers.keyBytes
        self.tape = tape
        self.isStrict = isStrict
        stack.reserveCapacity(32)
    }

    mutating func push(_ frame: Frame) {
        if openCount > 0 { stack.append(top) }
        top = frame
        openCount += 1
    }

    mutating func pop() {
        openCount -= 1
        if openCount > 0 { top = stack.removeLast() }
    }

    /// The open container at `level` (0 is the outermost).
    func frame(at level: Int) -> Frame {
        level == openCount - 1 ? top : stack[level]
    }

    mutating func run() {
        visit(node: 0, at: JSONTape.rootIndex)
        walk(downTo: 0)
    }

    /// For a root array read element by element: opens it as `visit` does (the shape's root is an array node with
    /// an element node and no rules), without a tape: its elements come one at a time.
    mutating func openRootArray() {
        push(Frame(node: 0, isObject: false, next: 0, end: 0, current: -1))
    }

    /// Checks the root array's next element, whose own tape `tape` is (as the element would be in the whole tape).
    mutating func visitRootElement(tape: JSONTape) {
        self.tape = tape
        top.current += 1
        visit(node: nodes[0].element, at: JSONTape.rootIndex)
        walk(downTo: 1)
    }

    /// Walks the open containers until only `level` of them are open.
    mutating func walk(downTo level: Int) {
        while openCount > level {
            if top.isObject {
                let keyIndex = top.next
                guard keyIndex < top.end else {
                    finishObject()
                    pop()
                    continue
                }
                let valueIndex = keyIndex + 1
                top.next = tape.next(valueIndex)
                top.current = keyIndex
                let node = nodes[Int(top.node)]
                let match = matchKey(node, hint: top.hint, tape.stringBytes(keyIndex))
                if match >= 0 {
                    top.hint = match + 1
                    if match < 64 {
                        top.seen |= 1 &<< UInt64(match)
                    } else {
                        seenBeyond64[top.seenBase + Int(match) - 64] = true
                    }
                    visit(node: keys[Int(node.firstKey + match)].node, at: valueIndex)
                } else if node.isMap {
                    if node.element >= 0 { visit(node: node.element, at: valueIndex) }
                } else {
                    keyNotInStub(node: top.node, keyIndex: keyIndex, valueIndex: valueIndex)
                }
            } else {
                let valueIndex = top.next
                guard valueIndex < top.end else {
                    pop()
                    continue
                }
                top.next = tape.next(valueIndex)
                top.current += 1
                visit(node: nodes[Int(top.node)].element, at: valueIndex)
            }
        }
    }

    /// The findings, each repeated one carrying its count, then its hint: what was found, where, how often, and
    /// what to do about it.
    func result() -> [Finding] {
        Finding.completed(findings, repeats: repeats, hints: hints)
    }

    /// Index of the stub key equal to `live` among `node`'s keys, trying `hint` first; -1 if none.
    @inline(__always) func matchKey(_ node: JSONShape.Node, hint: Int32, _ live: UnsafeBufferPointer<UInt8>) -> Int32 {
        if hint < node.keyCount, keyEquals(Int(node.firstKey + hint), live) { return hint }
        var offset: Int32 = 0
        while offset < node.keyCount {
            if offset != hint, keyEquals(Int(node.firstKey + offset), live) { return offset }
            offset += 1
        }
        return -1
    }

    @inline(__always) func keyEquals(_ key: Int, _ live: UnsafeBufferPointer<UInt8>) -> Bool {
        let stubKey = keys[key]
        guard Int(stubKey.byteCount) == live.count else { return false }
        guard live.count > 0, let stubBase = keyBytes.baseAddress, let liveBase = live.baseAddress else { return true }
        return bytesEqual(stubBase + Int(stubKey.byteOffset), liveBase, live.count)
    }

    /// Checks the live value at tape index `index` against shape node `nodeIndex`; opens containers to be walked.
    mutating func visit(node nodeIndex: Int32, at index: Int) {
        let node = nodes[Int(nodeIndex)]
        let tag = tape.tag(index)
        // One test on the common path: a node with rules, or a stub `null`, is the exception.
        if node.isExceptional {
            if node.rule >= 0, ruleSettles(shape.nodeRules[Int(node.rule)], node: nodeIndex, at: index) { return }
            if node.isUnchecked {
                if tag != JSONTape.null { stubNull(node: nodeIndex, at: index) }
                return
            }
        }
        switch tag {
        case JSONTape.objectStart:
            guard node.kinds.contains(.object) else { return typeMismatch(node: nodeIndex, at: index) }
            var frame = Frame(
                node: nodeIndex, isObject: true, next: index + 1, end: tape.containerEnd(index) - 1, current: -1)
            if node.keyCount > 64 {
                frame.seenBase = seenBeyond64.count
                seenBeyond64.append(contentsOf: repeatElement(false, count: Int(node.keyCount) - 64))
            }
            push(frame)
        case JSONTape.arrayStart:
            guard node.kinds.contains(.array) else { return typeMismatch(node: nodeIndex, at: index) }
            guard tape.containerCount(index) > 0 else { return }
            guard node.element >= 0 else { return emptyStubArray(node: nodeIndex) }
            push(
                Frame(node: nodeIndex, isObject: false, next: index + 1, end: tape.containerEnd(index) - 1, current: -1)
            )
        case JSONTape.string:
            // Only strings pay for the big-integer test, and only in a rewritten body (see `BigIntegers`).
            if hasQuotedBigIntegers, let digits = BigIntegers.digits(tape.stringBytes(index)) {
                return bigInteger(digits, node: nodeIndex)
            }
            if !node.kinds.contains(.string) { typeMismatch(node: nodeIndex, at: index) }
        case JSONTape.int64, JSONTape.uint64:
            if !node.kinds.contains(.integer) { typeMismatch(node: nodeIndex, at: index) }
        case JSONTape.double:
            if node.kinds.contains(.fraction) { return }
            if node.kinds.contains(.integer) {
                fractionForInteger(node: nodeIndex, at: index)
            } else {
                typeMismatch(node: nodeIndex, at: index)
            }
        case JSONTape.true, JSONTape.false:
            if !node.kinds.contains(.boolean) { typeMismatch(node: nodeIndex, at: index) }
        default:  // null
            if !node.isNullable { unexpectedNull(node: nodeIndex) }
        }
    }

    /// At the close of an object (still `top`): the stub's required keys it lacks, in stub order.
    mutating func finishObject() {
        let frame = top
        let node = nodes[Int(frame.node)]
        var missing = node.requiredMask & ~frame.seen
        while missing != 0 {
            let offset = Int32(missing.trailingZeroBitCount)
            missing &= missing - 1
            missingKey(node: frame.node, key: Int(node.firstKey + offset))
        }
        guard node.keyCount > 64 else { return }
        if node.hasRequiredBeyond64 {
            for offset in 64..<Int(node.keyCount)
            where keys[Int(node.firstKey) + offset].isRequired && !seenBeyond64[frame.seenBase + offset - 64] {
                missingKey(node: frame.node, key: Int(node.firstKey) + offset)
            }
        }
        seenBeyond64.removeLast(Int(node.keyCount) - 64)
    }

    // MARK: Rules and their messages

    /// Applies a node's `rules` (ignore, formats, values) to the live value; `true` when nothing more is to check.
    @inline(never) mutating func ruleSettles(_ rule: JSONShape.NodeRule, node: Int32, at index: Int) -> Bool {
        if rule.isIgnored { return true }
        let tag = tape.tag(index)
        if hasQuotedBigIntegers, tag == JSONTape.string, let digits = BigIntegers.digits(tape.stringBytes(index)) {
            bigInteger(digits, node: node)
            return true
        }
        if let format = rule.format {
            let value: JSONValue? =
                switch tag {
                case JSONTape.string: format.isInteger ? nil : .string(tape.string(index))
                case JSONTape.int64: .integer(tape.int64Value(index))
                case JSONTape.uint64: .unsignedInteger(tape.uint64Value(index))
                default: nil
                }
            if let value, let problem = ContractRules.formatProblem(format, value) {
                ruleBroken(
                    node: node, rule: .format, "\(problem) (rules.formats)", expected: format.rawValue,
                    actual: ContractRules.describe(value))
            }
        }
        if let allowed = rule.values {
            let value: JSONValue? =
                switch tag {
                case JSONTape.string: .string(tape.string(index))
                case JSONTape.int64: .integer(tape.int64Value(index))
                case JSONTape.uint64: .unsignedInteger(tape.uint64Value(index))
                case JSONTape.double: .double(tape.doubleValue(index))
                case JSONTape.true: .bool(true)
                case JSONTape.false: .bool(false)
                case JSONTape.null: .null
                default: nil
                }
            if let value {
                if allowed.contains(value) { return value == .null }
                if value != .null {
                    let list = ContractRules.describe(allowed)
                    ruleBroken(
                        node: node, rule: .values,
                        "\(ContractRules.describe(value)) is not one of \(list) (rules.values)",
                        expected: "one of \(list)", actual: ContractRules.describe(value))
                }
            }
        }
        return false
    }

    /// A live integer beyond 64 bits: a finding where an integer format expects an integer, else the body's error.
    @inline(never) mutating func bigInteger(_ digits: String, node: Int32) {
        let rule = nodes[Int(node)].rule
        guard rule >= 0, let format = shape.nodeRules[Int(rule)].format, format.isInteger else {
            hasUnexpectedBigInteger = true
            return
        }
        ruleBroken(
            node: node, rule: .format, "\(digits) does not fit \(format.rawValue) (rules.formats)",
            expected: format.rawValue, actual: digits)
    }

    mutating func ruleBroken(node: Int32, rule: Rule, _ message: String, expected: String, actual: String) {
        guard isFirst(RepeatKey(node: node, rule: rule, detail: 0)) else { return }
        append(.drift, rule.finding, depth: openCount, message, expected: expected, actual: actual)
    }

    mutating func typeMismatch(node: Int32, at index: Int) {
        guard isFirst(RepeatKey(node: node, rule: .typeMismatch, detail: typeCode(at: index))) else { return }
        let expected = shape.expectedDescription(nodes[Int(node)])
        let actual = actualDescription(at: index)
        append(
            .drift, .type, depth: openCount, "expected \(expected), got \(actual)",
            hint: "change the property's type, or fix the stub", expected: expected, actual: actual)
    }

    mutating func fractionForInteger(node: Int32, at index: Int) {
        guard isFirst(RepeatKey(node: node, rule: .fractionForInteger, detail: 0)) else { return }
        let actual = "fractional number \(excerpt(at: index))"
        append(
            .drift, .integer, depth: openCount, "expected integer, got \(actual)",
            hint: "declare it Double, or fix the stub",
            expected: "integer", actual: actual)
    }

    mutating func unexpectedNull(node: Int32) {
        guard isFirst(RepeatKey(node: node, rule: .unexpectedNull, detail: 0)) else { return }
        let expected = shape.expectedDescription(nodes[Int(node)])
        append(
            .drift, .null, depth: openCount, "unexpected null (stub has \(expected))",
            hint: "make the property optional, or fix the stub", expected: expected, actual: "null")
    }

    mutating func stubNull(node: Int32, at index: Int) {
        guard isFirst(RepeatKey(node: node, rule: .stubNull, detail: 0)) else { return }
        append(.note, .stubNull, depth: openCount, Self.stubNullMessage(got: typeName(at: index)))
    }

    /// `stub has null: any value accepted (got string)`, as literals: a run keeps every note, and this one is in
    /// most results of a stub with a null (100,000 copies were 6 MB).
    private static func stubNullMessage(got type: String) -> String {
        switch type {
        case "object": "stub has null: any value accepted (got object)"
        case "array": "stub has null: any value accepted (got array)"
        case "string": "stub has null: any value accepted (got string)"
        case "number": "stub has null: any value accepted (got number)"
        case "boolean": "stub has null: any value accepted (got boolean)"
        default: "stub has null: any value accepted (got \(type))"
        }
    }

    mutating func emptyStubArray(node: Int32) {
        guard isFirst(RepeatKey(node: node, rule: .emptyStubArray, detail: 0)) else { return }
        append(.note, .emptyStubArray, depth: openCount, "stub array is empty: elements not checked")
    }

    mutating func missingKey(node: Int32, key: Int) {
        guard isFirst(RepeatKey(node: node, rule: .missingKey, detail: key)) else { return }
        // Called while the object is still open: its path is the stack minus the member component, plus the key.
        let expected = shape.expectedDescription(nodes[Int(keys[key].node)])
        append(
            .drift, .missingKey, depth: openCount - 1, last: shape.keyName(key), "missing key (stub has \(expected))",
            hint: "make the property optional, or fix the stub", expected: expected, actual: "absent")
    }

    mutating func keyNotInStub(node: Int32, keyIndex: Int, valueIndex: Int) {
        let live = tape.stringBytes(keyIndex)
        if let known = knownExtra(node: node, live) {
            repeats[extras[Int(known)].finding] += 1
            top.extraHint = extras[Int(known)].next
            return
        }
        addExtra(node: node, live, finding: findings.count)
        top.extraHint = -1
        let actual = typeName(at: valueIndex)
        append(
            isStrict ? .drift : .note, .extraKey, depth: openCount, "key not in stub (\(actual))",
            hint: isStrict ? strictHint : nil, expected: "absent", actual: actual)
    }

    /// Remembers the key not in the stub `live` at `node`, reported as finding `finding`, at the end of the node's list.
    mutating func addExtra(node: Int32, _ live: UnsafeBufferPointer<UInt8>, finding: Int) {
        if extraHead.isEmpty {
            extraHead = Array(repeating: -1, count: nodes.count)
            extraTail = Array(repeating: -1, count: nodes.count)
        }
        let extra = Int32(extras.count)
        extras.append(
            Extra(node: node, byteOffset: Int32(extraBytes.count), byteCount: Int32(live.count), finding: finding))
        extraBytes.append(contentsOf: live)
        if extraTail[Int(node)] >= 0 {
            extras[Int(extraTail[Int(node)])].next = extra
        } else {
            extraHead[Int(node)] = extra
        }
        extraTail[Int(node)] = extra
    }

    /// What to do about a key not in the stub when that is a drift: the setting that made it one.
    var strictHint: String {
        shape.rules.isStrict == true
            ? "add it to the stub, or set rules.strict to false (or list it in rules.ignore)"
            : "add it to the stub, or drop --strict"
    }

    /// The `Extra` for `live` at `node`, trying `hint` (by default the frame's) first, or `nil`.
    func knownExtra(node: Int32, _ live: UnsafeBufferPointer<UInt8>, hint: Int32? = nil) -> Int32? {
        guard !extraHead.isEmpty else { return nil }
        let hint = hint ?? top.extraHint
        if hint >= 0, extraEquals(Int(hint), live) { return hint }
        var candidate = extraHead[Int(node)]
        while candidate >= 0 {
            if candidate != hint, extraEquals(Int(candidate), live) { return candidate }
            candidate = extras[Int(candidate)].next
        }
        return nil
    }

    func extraEquals(_ extra: Int, _ live: UnsafeBufferPointer<UInt8>) -> Bool {
        let known = extras[extra]
        guard Int(known.byteCount) == live.count else { return false }
        return extraBytes.withUnsafeBufferPointer { bytes in
            guard live.count > 0, let base = bytes.baseAddress, let liveBase = live.baseAddress else { return true }
            return bytesEqual(base + Int(known.byteOffset), liveBase, live.count)
        }
    }

    /// Whether this is the first time `key`'s rule fires at its index-free path; if not, counts the repeat.
    mutating func isFirst(_ key: RepeatKey) -> Bool {
        if let first = firstByKey[key] {
            repeats[first] += 1
            return false
        }
        firstByKey[key] = findings.count
        return true
    }

    /// Takes in a walk over the elements that follow this walk's in the same root array (a later part, see
    /// `JSONShape.elementwiseFindings`), as if this walk had read them too: a finding this walk has made already
    /// only counts (its first element and its repeats there), the others follow in their order, their element
    /// numbers shifted by `elementsBefore`.
    mutating func absorb(_ later: ShapeWalk, elementsBefore: Int) {
        var keyOfFinding: [Int: RepeatKey] = [:]
        for (key, finding) in later.firstByKey { keyOfFinding[finding] = key }
        var extraOfFinding: [Int: Int] = [:]
        for (index, extra) in later.extras.enumerated() { extraOfFinding[extra.finding] = index }
        for (index, finding) in later.findings.enumerated() {
            var known: Int?
            if let key = keyOfFinding[index] {
                known = firstByKey[key]
                if known == nil { firstByKey[key] = findings.count }
            } else if let extraIndex = extraOfFinding[index] {
                let extra = later.extras[extraIndex]
                later.extraBytes.withUnsafeBufferPointer { bytes in
                    let live = UnsafeBufferPointer(
                        rebasing: bytes[Int(extra.byteOffset)..<Int(extra.byteOffset + extra.byteCount)])
                    if let mine = knownExtra(node: extra.node, live, hint: -1) {
                        known = extras[Int(mine)].finding
                    } else {
                        addExtra(node: extra.node, live, finding: findings.count)
                    }
                }
            }
            if let known {
                repeats[known] += 1 + later.repeats[index]
                continue
            }
            var moved = finding
            if case .json(var location) = moved.location, case .index(let number)? = location.components.first {
                location.components[0] = .index(number + elementsBefore)
                moved.location = .json(location)
            }
            findings.append(moved)
            repeats.append(later.repeats[index])
            hints.append(later.hints[index])
        }
    }

    /// Adds a finding whose place goes through the first `depth` open containers, then `last` (a missing key).
    mutating func append(
        _ kind: Finding.Kind, _ rule: Finding.Rule, depth: Int, last: String? = nil, _ message: String,
        hint: String? = nil, expected: String? = nil, actual: String? = nil
    ) {
        var location = location(depth: depth)
        if let last { location.components.append(.key(last)) }
        findings.append(Finding(kind, rule, at: .json(location), message, expected: expected, actual: actual))
        repeats.append(0)
        hints.append(hint)
    }

    /// The keys and indices of the first `depth` open containers: `$.items[3].price`.
    func location(depth: Int) -> JSONLocation {
        var components: [JSONLocation.Component] = []
        components.reserveCapacity(depth + 1)
        for level in 0..<depth {
            let frame = frame(at: level)
            components.append(frame.isObject ? .key(tape.string(frame.current)) : .index(frame.current))
        }
        return JSONLocation(components)
    }

    // MARK: Describing live values

    /// The live value's JSON type as a small number (`true` and `false` alike, all numbers alike).
    func typeCode(at index: Int) -> Int {
        switch tape.tag(index) {
        case JSONTape.objectStart: 0
        case JSONTape.arrayStart: 1
        case JSONTape.string: 2
        case JSONTape.int64, JSONTape.uint64, JSONTape.double: 3
        case JSONTape.true, JSONTape.false: 4
        default: 5
        }
    }

    func typeName(at index: Int) -> String {
        switch tape.tag(index) {
        case JSONTape.objectStart: "object"
        case JSONTape.arrayStart: "array"
        case JSONTape.string: "string"
        case JSONTape.int64, JSONTape.uint64, JSONTape.double: "number"
        case JSONTape.true, JSONTape.false: "boolean"
        default: "null"
        }
    }

    /// The live value's type and an excerpt: `string "12.50"`, `number 12`, `object {"a":1,…}`, `null`.
    func actualDescription(at index: Int) -> String {
        let name = typeName(at: index)
        return name == "null" ? name : "\(name) \(excerpt(at: index))"
    }

    /// The live value as compact JSON, cut after about 60 characters with "…". Walks the tape in order with a stack
    /// of open containers that the cut bounds.
    func excerpt(at start: Int, limit: Int = 60) -> String {
        var text = ""
        var open: [(isObject: Bool, count: Int)] = []
        var index = start
        let end = tape.next(start)
        while index < end {
            if text.count >= limit {
                return String(text.prefix(limit)) + "…"
            }
            let tag = tape.tag(index)
            if tag == JSONTape.objectEnd || tag == JSONTape.arrayEnd {
                text += tag == JSONTape.objectEnd ? "}" : "]"
                open.removeLast()
                index += 1
                continue
            }
            if let top = open.indices.last {
                if open[top].isObject && open[top].count % 2 == 1 {
                    text += ":"
                } else if open[top].count > 0 {
                    text += ","
                }
                open[top].count += 1
            }
            switch tag {
            case JSONTape.objectStart:
                text += "{"
                open.append((true, 0))
                index += 1
                continue
            case JSONTape.arrayStart:
                text += "["
                open.append((false, 0))
                index += 1
                continue
            case JSONTape.string:
                let bytes = tape.stringBytes(index)
                let head = String(decoding: UnsafeBufferPointer(rebasing: bytes.prefix(limit * 4)), as: UTF8.self)
                let cut = head.count > limit || bytes.count > limit * 4
                let quoted = String(decoding: JSONValue.string(String(head.prefix(limit))).serialized(), as: UTF8.self)
                text += quoted
                if cut { return String(text.prefix(limit)) + "…" }
            case JSONTape.int64: text += String(tape.int64Value(index))
            case JSONTape.uint64: text += String(tape.uint64Value(index))
            case JSONTape.double: text += tape.doubleValue(index).description
            case JSONTape.true: text += "true"
            case JSONTape.false: text += "false"
            default: text += "null"
            }
            index = tape.next(index)
        }
        return text.count > limit ? String(text.prefix(limit)) + "…" : text
    }
}

/// Integers beyond 64 bits, which simdjson refuses: rewritten as strings with a marker that no JSON text would hold
/// (`"\u0000tether-bigint:123…"`) so that the rest of the body can still be checked.
enum BigIntegers {
    static let marker = Array("\u{0}tether-bigint:".utf8)

    /// `body` with each integer literal that fits neither `Int64` nor `UInt64` quoted and marked, or `nil` if it has
    /// none (the parse error was something else).
    static func quoted(_ body: Data) -> Data? {
        let bytes = [UInt8](body)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 64)
        var index = 0
        var found = false
        var isInString = false
        while index < bytes.count {
            let byte = bytes[index]
            if isInString {
                output.append(byte)
                if byte == UInt8(ascii: "\\"), index + 1 < bytes.count {
                    output.append(bytes[index + 1])
                    index += 2
                    continue
                }
                if byte == UInt8(ascii: "\"") { isInString = false }
                index += 1
                continue
            }
            if byte == UInt8(ascii: "\"") {
                isInString = true
            } else if byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                var end = index + 1
                while end < bytes.count, "0123456789.eE+-".utf8.contains(bytes[end]) { end += 1 }
                let token = bytes[index..<end]
                let text = String(decoding: token, as: UTF8.self)
                let isInteger = token.dropFirst(token.first == UInt8(ascii: "-") ? 1 : 0).allSatisfy {
                    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                }
                if isInteger, token.count > 1 || token.first != UInt8(ascii: "-"), Int64(text) == nil,
                    UInt64(text) == nil
                {
                    found = true
                    output += Array("\"\\u0000tether-bigint:".utf8) + token + [UInt8(ascii: "\"")]
                } else {
                    output += token
                }
                index = end
                continue
            }
            output.append(byte)
            index += 1
        }
        return found ? Data(output) : nil
    }

    /// The digits of a marked string, or `nil` for any other string.
    static func digits(_ string: UnsafeBufferPointer<UInt8>) -> String? {
        guard string.count > marker.count, string.starts(with: marker) else { return nil }
        return String(decoding: UnsafeBufferPointer(rebasing: string[marker.count...]), as: UTF8.self)
    }
}

/// Whether `count` bytes at `a` and `b` are equal: keys are short, so eight at a time inline beats a call to memcmp.
/// The one comparison of key bytes, for the walk over a live body and for a stub's repeated keys (`JSONShape`).
@inline(__always) func bytesEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
    let rawA = UnsafeRawPointer(a)
    let rawB = UnsafeRawPointer(b)
    // Whole words, the last one overlapping the one before; below 8 bytes, two overlapping halves of 4 or 2 bytes.
    // No byte loop: most keys are shorter than 8 bytes, and every live key of a body is compared.
    if count >= 8 {
        var offset = 0
        while offset + 8 < count {
            if rawA.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                != rawB.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            {
                return false
            }
            offset += 8
        }
        return rawA.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            == rawB.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
    }
    if count >= 4 {
        return rawA.loadUnaligned(as: UInt32.self) == rawB.loadUnaligned(as: UInt32.self)
            && rawA.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
                == rawB.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
    }
    if count >= 2 {
        return rawA.loadUnaligned(as: UInt16.self) == rawB.loadUnaligned(as: UInt16.self)
            && rawA.loadUnaligned(fromByteOffset: count - 2, as: UInt16.self)
                == rawB.loadUnaligned(fromByteOffset: count - 2, as: UInt16.self)
    }
    return count == 0 || a[0] == b[0]
}
