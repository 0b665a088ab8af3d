internal import CYAML

#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

// The only Swift file that imports CYAML: libyaml's event parser, owned by one class, and a reader that builds a
// `JSONValue` and the place of every value from its events.

/// libyaml's parser, owned: made by `init`, freed by `deinit`. Not `Sendable`: one per read, never shared.
private final class YAMLEventParser {
    private let parser: UnsafeMutablePointer<yaml_parser_t>

    /// A parser over `input`, which must stay valid (and unmoved) while the parser lives; `nil` without memory.
    init?(input: UnsafeBufferPointer<UInt8>) {
        parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
        guard yaml_parser_initialize(parser) != 0 else {
            parser.deallocate()
            return nil
        }
        yaml_parser_set_input_string(parser, input.baseAddress, input.count)
    }

    deinit {
        yaml_parser_delete(parser)
        parser.deallocate()
    }

    /// Parses the next event into `event` (which the caller deletes); false on an error (see `failure`).
    func next(_ event: UnsafeMutablePointer<yaml_event_t>) -> Bool {
        yaml_parser_parse(parser, event) != 0
    }

    /// libyaml's account of the error that stopped it: its own words, and where.
    func failure(file: String, input: Data) -> SpecProblem {
        let state = parser.pointee
        let problem = state.problem.map { String(cString: $0) } ?? "unknown error"
        if state.error == YAML_MEMORY_ERROR {
            return SpecProblem(.syntax, file: file, message: "out of memory while reading YAML")
        }
        if state.error == YAML_READER_ERROR {
            // A reader error (bad UTF-8, a control character) has a byte offset, not a mark.
            let (line, column) = JSONInputScan.lineAndColumn(ofByte: state.problem_offset, in: input)
            let value = state.problem_value >= 0 ? formatted(" (byte 0x%02X)", state.problem_value) : ""
            return SpecProblem(
                .syntax, file: file, line: line, column: column, message: "not valid YAML: \(problem)\(value)",
                hint: "save the file as UTF-8 without control characters")
        }
        var message = "not valid YAML: \(problem)"
        if let context = state.context.map({ String(cString: $0) }) {
            let mark = state.context_mark
            message += " (\(context) at line \(mark.line + 1), column \(mark.column + 1))"
        }
        return SpecProblem(
            .syntax, file: file, line: state.problem_mark.line + 1, column: state.problem_mark.column + 1,
            message: message, hint: "check the indentation, colons and quotes there")
    }
}

/// Reads one YAML document into a `JSONValue` and the place of each value, as OpenAPI documents use YAML: block and
/// flow collections, every scalar style, the YAML 1.2 core schema for plain scalars, anchors and aliases (bounded),
/// and the core schema's explicit tags (`!!str`, `!!int`, `!!float`, `!!bool`, `!!null`, `!!seq`, `!!map`).
///
/// Refused, with the file, line and column: syntax errors (libyaml's own words), a second document, duplicate keys, a
/// key that is not a scalar, a YAML 1.1 merge key (`<<`), other tags, aliases that expand beyond the limit, nesting
/// deeper than the limit, integers beyond 64 bits and floats beyond `Double`.
struct YAMLReader {
    var limits: SpecLimits

    init(limits: SpecLimits = SpecLimits()) {
        self.limits = limits
    }

    /// Reads `bytes` (UTF-8, or UTF-16 with a byte order mark) as the YAML file `file`.
    func read(_ bytes: Data, file: String) throws(SpecError) -> SpecSource {
        let outcome: Result<SpecSource, SpecError> = bytes.withUnsafeBytes { raw in
            // libyaml reads a zero-length input from any pointer, but not from nil.
            var empty: UInt8 = 0
            return withUnsafePointer(to: &empty) { emptyPointer in
                let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? emptyPointer
                let input = UnsafeBufferPointer(start: base, count: raw.count)
                guard let parser = YAMLEventParser(input: input) else {
                    return .failure(SpecError(SpecProblem(.syntax, file: file, message: "out of memory")))
                }
                var builder = YAMLBuilder(file: file, limits: limits)
                do throws(SpecError) {
                    return .success(try builder.build(parser: parser, input: bytes))
                } catch {
                    return .failure(error)
                }
            }
        }
        return try outcome.get()
    }
}

/// Builds the value and the places from the events, with an explicit stack (deep nesting cannot overflow the thread's
/// stack).
private struct YAMLBuilder {
    let file: String
    let limits: SpecLimits
    var places = YAMLPlaces()
    var stack: [Frame] = []
    var anchors: [String: Anchor] = [:]
    /// Values added by aliases so far.
    var aliasValues = 0
    /// Bytes of text (scalars and keys) added by aliases so far.
    var aliasBytes = 0
    var root: JSONValue?
    var documents = 0

    struct Frame {
        var isMapping: Bool
        var entry: Int
        var anchor: String?
        var elements: [JSONValue] = []
        var members: [JSONMember] = []
        /// The place of each member's key, for the message of a duplicate.
        var keyPlaces: [(line: UInt32, column: UInt32)] = []
        /// The members' keys, once a mapping has enough of them that a linear search is slow.
        var keyIndex: Set<String>?
        var pendingKey: String?
        var pendingKeyPlace: (line: UInt32, column: UInt32) = (0, 0)
        /// How many values this collection stands for, itself and aliases' expansions included.
        var size = 1
        /// How many bytes of text (scalars and keys) it stands for, aliases' expansions included.
        var bytes = 0
    }

    struct Anchor {
        var value: JSONValue
        var entry: Int
        var size: Int
        var bytes: Int
    }

    init(file: String, limits: SpecLimits) {
        self.file = file
        self.limits = limits
    }

    private func problem(
        _ reason: SpecProblem.Reason, _ mark: yaml_mark_t, _ message: String, hint: String? = nil
    ) -> SpecError {
        SpecError(
            SpecProblem(reason, file: file, line: mark.line + 1, column: mark.column + 1, message: message, hint: hint))
    }

    mutating func build(parser: YAMLEventParser, input: Data) throws(SpecError) -> SpecSource {
        var event = yaml_event_t()
        while true {
            guard parser.next(&event) else {
                throw SpecError(parser.failure(file: file, input: input))
            }
            defer { yaml_event_delete(&event) }
            if event.type == YAML_STREAM_END_EVENT { break }
            try handle(event)
        }
        guard let root else {
            throw SpecError(
                SpecProblem(
                    .empty, file: file, message: "the file holds no YAML document",
                    hint: "write the OpenAPI document into it"))
        }
        return SpecSource(file: file, root: root, places: .yaml(places))
    }

    private mutating func handle(_ event: yaml_event_t) throws(SpecError) {
        let mark = event.start_mark
        switch event.type {
        case YAML_DOCUMENT_START_EVENT:
            documents += 1
            if documents > 1 {
                throw problem(
                    .multipleDocuments, mark, "a second YAML document begins here",
                    hint: "an OpenAPI document is one YAML document: split the file or remove the '---'")
            }
        case YAML_SCALAR_EVENT:
            let scalar = event.data.scalar
            let bytes = UnsafeBufferPointer(start: scalar.value, count: scalar.length)
            let tag = scalar.tag.map { String(cString: $0) }
            if let top = stack.last, top.isMapping, top.pendingKey == nil {
                try key(bytes, tag: tag, isPlain: scalar.style == YAML_PLAIN_SCALAR_STYLE, mark: mark)
                return
            }
            let value = try scalarValue(bytes, tag: tag, isPlain: scalar.style == YAML_PLAIN_SCALAR_STYLE, mark: mark)
            let entry = begin(mark)
            places.entries[entry].subtreeEnd = UInt32(truncatingIfNeeded: places.entries.count)
            if let anchor = scalar.anchor {
                anchors[String(cString: anchor)] = Anchor(value: value, entry: entry, size: 1, bytes: bytes.count)
            }
            add(value, size: 1, bytes: bytes.count)
        case YAML_ALIAS_EVENT:
            let name = event.data.alias.anchor.map { String(cString: $0) } ?? ""
            if let top = stack.last, top.isMapping, top.pendingKey == nil {
                throw problem(
                    .nonScalarKey, mark, "the key is an alias ('*\(name)')",
                    hint: "write the key out as a string")
            }
            guard let anchor = anchors[name] else {
                throw problem(
                    .syntax, mark, "the alias '*\(name)' refers to no anchor '&\(name)' before it",
                    hint: "define the anchor before the alias (and not around it)")
            }
            aliasValues += anchor.size
            aliasBytes += anchor.bytes
            if aliasValues > limits.maxAliasValues {
                throw problem(
                    .aliasLimit, mark,
                    "the aliases expand to more than \(limits.maxAliasValues) values (the alias '*\(name)' stands for"
                        + " \(anchor.size))",
                    hint: "write the values out, or use $ref instead of YAML aliases")
            }
            // A few values can be large: aliases of a long string would be written out whole (an imported example).
            if aliasBytes > limits.maxAliasBytes {
                throw problem(
                    .aliasLimit, mark,
                    "the aliases expand to more than \(limits.maxAliasBytes) bytes of text (the alias '*\(name)' stands"
                        + " for \(anchor.bytes))",
                    hint: "write the values out, or use $ref instead of YAML aliases")
            }
            let entry = begin(mark)
            places.entries[entry].subtreeEnd = UInt32(truncatingIfNeeded: places.entries.count)
            places.entries[entry].alias = UInt32(truncatingIfNeeded: anchor.entry)
            add(anchor.value, size: anchor.size, bytes: anchor.bytes)
        case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
            let isMapping = event.type == YAML_MAPPING_START_EVENT
            let tagPointer = isMapping ? event.data.mapping_start.tag : event.data.sequence_start.tag
            let anchorPointer = isMapping ? event.data.mapping_start.anchor : event.data.sequence_start.anchor
            if let top = stack.last, top.isMapping, top.pendingKey == nil {
                throw problem(
                    .nonScalarKey, mark, "the key is a \(isMapping ? "mapping" : "sequence")",
                    hint: "OpenAPI keys are strings: write the key as one")
            }
            if let tag = tagPointer.map({ String(cString: $0) }) {
                let expected = isMapping ? "tag:yaml.org,2002:map" : "tag:yaml.org,2002:seq"
                guard tag == "!" || tag == expected else {
                    throw problem(
                        .unsupportedYAML, mark, "the tag \(tag.specQuoted) is not one of YAML's core schema",
                        hint: "remove the tag")
                }
            }
            if stack.count >= limits.maxDepth {
                throw problem(
                    .tooDeep, mark, "collections nest deeper than \(limits.maxDepth) levels",
                    hint: "flatten the document")
            }
            let entry = begin(mark)
            stack.append(
                Frame(isMapping: isMapping, entry: entry, anchor: anchorPointer.map { String(cString: $0) }))
        case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
            guard let frame = stack.popLast() else { return }
            places.entries[frame.entry].subtreeEnd = UInt32(truncatingIfNeeded: places.entries.count)
            let value: JSONValue = frame.isMapping ? .object(frame.members) : .array(frame.elements)
            if let anchor = frame.anchor {
                anchors[anchor] = Anchor(value: value, entry: frame.entry, size: frame.size, bytes: frame.bytes)
            }
            add(value, size: frame.size, bytes: frame.bytes)
        default:
            break  // stream start, document end
        }
    }

    /// Records a value that starts at `mark`, with the pending key's place when it is a mapping member.
    private mutating func begin(_ mark: yaml_mark_t) -> Int {
        var keyPlace: (line: UInt32, column: UInt32) = (0, 0)
        if let top = stack.last, top.isMapping { keyPlace = top.pendingKeyPlace }
        places.entries.append(
            YAMLPlaces.Entry(
                line: UInt32(truncatingIfNeeded: mark.line + 1), column: UInt32(truncatingIfNeeded: mark.column + 1),
                keyLine: keyPlace.line, keyColumn: keyPlace.column,
                subtreeEnd: UInt32(truncatingIfNeeded: places.entries.count + 1), alias: YAMLPlaces.noAlias))
        return places.entries.count - 1
    }

    private mutating func add(_ value: JSONValue, size: Int, bytes: Int) {
        guard !stack.isEmpty else {
            root = value
            return
        }
        let top = stack.count - 1
        stack[top].size += size
        stack[top].bytes += bytes
        if stack[top].isMapping {
            stack[top].members.append(JSONMember(stack[top].pendingKey ?? "", value))
            stack[top].keyPlaces.append(stack[top].pendingKeyPlace)
            stack[top].pendingKey = nil
        } else {
            stack[top].elements.append(value)
        }
    }

    private mutating func key(
        _ bytes: UnsafeBufferPointer<UInt8>, tag: String?, isPlain: Bool, mark: yaml_mark_t
    ) throws(SpecError) {
        let text = String(decoding: bytes, as: UTF8.self)
        if isPlain, tag == nil, text == "<<" {
            throw problem(
                .unsupportedYAML, mark, "'<<' merge keys are YAML 1.1, which OpenAPI's YAML 1.2 does not have",
                hint: "write the keys out, or use allOf in a schema")
        }
        let top = stack.count - 1
        let place = (
            line: UInt32(truncatingIfNeeded: mark.line + 1), column: UInt32(truncatingIfNeeded: mark.column + 1)
        )
        // The frame is changed in place: a copy of it would share its key set, and each insert would copy the set
        // (16,000 paths took seconds).
        if stack[top].keyIndex == nil, stack[top].members.count >= 16 {
            stack[top].keyIndex = Set(stack[top].members.map(\.key))
        }
        let duplicate: Int?
        if let isKnown = stack[top].keyIndex?.contains(text) {
            duplicate = isKnown ? stack[top].members.firstIndex { $0.key == text } : nil
        } else {
            duplicate = stack[top].members.firstIndex { $0.key == text }
        }
        if let duplicate {
            let first = stack[top].keyPlaces[duplicate]
            throw problem(
                .duplicateKey, mark,
                "duplicate key \(text.specQuoted) (first at line \(first.line), column \(first.column))",
                hint: "remove or rename one of them")
        }
        stack[top].keyIndex?.insert(text)
        stack[top].bytes += bytes.count
        stack[top].pendingKey = text
        stack[top].pendingKeyPlace = place
    }

    private func scalarValue(
        _ bytes: UnsafeBufferPointer<UInt8>, tag: String?, isPlain: Bool, mark: yaml_mark_t
    ) throws(SpecError) -> JSONValue {
        guard let tag else {
            guard isPlain else { return .string(String(decoding: bytes, as: UTF8.self)) }
            switch YAMLCoreSchema.resolve(bytes) {
            case .value(let value): return value
            case .string: return .string(String(decoding: bytes, as: UTF8.self))
            case .outOfRange: throw outOfRange(bytes, mark)
            }
        }
        let text = String(decoding: bytes, as: UTF8.self)
        let prefix = "tag:yaml.org,2002:"
        guard tag != "!" else { return .string(text) }
        guard tag.hasPrefix(prefix) else {
            throw problem(
                .unsupportedYAML, mark, "the tag \(tag.specQuoted) is not one of YAML's core schema",
                hint: "remove the tag, or quote the value to make it a string")
        }
        let kind = String(tag.dropFirst(prefix.count))
        if kind == "str" { return .string(text) }
        guard ["int", "float", "bool", "null"].contains(kind) else {
            throw problem(
                .unsupportedYAML, mark, "the tag '!!\(kind)' is not one of YAML's core schema",
                hint: "use !!str, !!int, !!float, !!bool or !!null, or no tag")
        }
        let resolved = YAMLCoreSchema.resolve(bytes)
        if case .outOfRange = resolved { throw outOfRange(bytes, mark) }
        let value: JSONValue? =
            switch (kind, resolved) {
            case ("int", .value(let value)): value.isYAMLInteger ? value : nil
            case ("float", .value(.integer(let number))): .double(Double(number))
            case ("float", .value(.unsignedInteger(let number))): .double(Double(number))
            case ("float", .value(let value)): { if case .double = value { value } else { nil } }()
            case ("bool", .value(let value)): { if case .bool = value { value } else { nil } }()
            case ("null", .value(let value)): value == .null ? value : nil
            default: nil
            }
        guard let value else {
            throw problem(
                .invalidScalar, mark, "\(text.specQuoted) is not a valid !!\(kind)",
                hint: "write a \(kind) value, or remove the tag")
        }
        return value
    }

    private func outOfRange(_ bytes: UnsafeBufferPointer<UInt8>, _ mark: yaml_mark_t) -> SpecError {
        problem(
            .numberOutOfRange, mark,
            "the number \(String(decoding: bytes, as: UTF8.self).specQuoted) is beyond 64 bits or a Double",
            hint: "quote it to make it a string")
    }
}

extension JSONValue {
    fileprivate var isYAMLInteger: Bool {
        switch self {
        case .integer, .unsignedInteger: true
        default: false
        }
    }
}

/// The YAML 1.2 core schema for plain scalars (tag resolution, YAML 1.2.2 §10.3.2): `null`, `~` and nothing are
/// null; `true`/`false` (three spellings each) booleans; decimal, `0x` and `0o` integers; decimals, exponents, `.inf`
/// and `.nan` floats; everything else a string. Integers stay exact as `JSONReader` keeps them (`.integer`, or
/// `.unsignedInteger` above `Int64.max`).
enum YAMLCoreSchema {
    enum Resolution: Equatable {
        case value(JSONValue)
        case string
        /// An integer beyond 64 bits, or a float beyond `Double`.
        case outOfRange
    }

    static func resolve(_ bytes: UnsafeBufferPointer<UInt8>) -> Resolution {
        guard let first = bytes.first else { return .value(.null) }
        switch first {
        case UInt8(ascii: "~"), UInt8(ascii: "n"), UInt8(ascii: "N"):
            return bytes.count == 1 && first == UInt8(ascii: "~") || matches(bytes, ["null", "Null", "NULL"])
                ? .value(.null) : .string
        case UInt8(ascii: "t"), UInt8(ascii: "T"):
            return matches(bytes, ["true", "True", "TRUE"]) ? .value(.bool(true)) : .string
        case UInt8(ascii: "f"), UInt8(ascii: "F"):
            return matches(bytes, ["false", "False", "FALSE"]) ? .value(.bool(false)) : .string
        case UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return number(bytes)
        default:
            return .string
        }
    }

    private static func matches(_ bytes: UnsafeBufferPointer<UInt8>, _ words: [StaticString]) -> Bool {
        words.contains { word in
            word.utf8CodeUnitCount == bytes.count
                && word.withUTF8Buffer { $0.elementsEqual(bytes) }
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private static func number(_ bytes: UnsafeBufferPointer<UInt8>) -> Resolution {
        let count = bytes.count
        // 0x… and 0o… (no sign in the core schema).
        if count > 2, bytes[0] == UInt8(ascii: "0"), bytes[1] == UInt8(ascii: "x") || bytes[1] == UInt8(ascii: "o") {
            let radix: UInt64 = bytes[1] == UInt8(ascii: "x") ? 16 : 8
            var value: UInt64 = 0
            for byte in bytes[2...] {
                let digit: UInt64
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt64(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f") where radix == 16:
                    digit = UInt64(byte - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F") where radix == 16:
                    digit = UInt64(byte - UInt8(ascii: "A") + 10)
                default: return .string
                }
                guard digit < radix else { return .string }
                let (shifted, overflow) = value.multipliedReportingOverflow(by: radix)
                let (sum, carry) = shifted.addingReportingOverflow(digit)
                if overflow || carry { return .outOfRange }
                value = sum
            }
            return .value(value <= UInt64(Int64.max) ? .integer(Int64(value)) : .unsignedInteger(value))
        }
        var index = 0
        let negative = bytes[0] == UInt8(ascii: "-")
        if bytes[0] == UInt8(ascii: "-") || bytes[0] == UInt8(ascii: "+") { index = 1 }
        guard index < count else { return .string }
        // [-+]?[0-9]+: an integer.
        let digitsStart = index
        while index < count, isDigit(bytes[index]) { index += 1 }
        if index == count, index > digitsStart {
            var magnitude: UInt64 = 0
            for byte in bytes[digitsStart...] {
                let (shifted, overflow) = magnitude.multipliedReportingOverflow(by: 10)
                let (sum, carry) = shifted.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
                if overflow || carry { return .outOfRange }
                magnitude = sum
            }
            if negative {
                guard magnitude <= UInt64(Int64.max) + 1 else { return .outOfRange }
                return .value(.integer(magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)))
            }
            return .value(magnitude <= UInt64(Int64.max) ? .integer(Int64(magnitude)) : .unsignedInteger(magnitude))
        }
        // [-+]?\.(inf|Inf|INF) and \.(nan|NaN|NAN).
        let rest = UnsafeBufferPointer(rebasing: bytes[digitsStart...])
        if matches(rest, [".inf", ".Inf", ".INF"]) { return .value(.double(negative ? -.infinity : .infinity)) }
        if digitsStart == 0, matches(bytes, [".nan", ".NaN", ".NAN"]) { return .value(.double(.nan)) }
        // [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
        var hasDigits = index > digitsStart
        if index < count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            let fractionStart = index
            while index < count, isDigit(bytes[index]) { index += 1 }
            if index > fractionStart { hasDigits = true }
        }
        guard hasDigits else { return .string }
        if index < count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") { index += 1 }
            let exponentStart = index
            while index < count, isDigit(bytes[index]) { index += 1 }
            guard index > exponentStart else { return .string }
        }
        guard index == count else { return .string }
        // Swift's parser (C locale) reads every form the pattern allows ("1.", ".5", "+2e3").
        guard let value = Double(String(decoding: bytes, as: UTF8.self)) else { return .string }
        return value.isFinite ? .value(.double(value)) : .outOfRange
    }
}
