#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What may vary in a live body and what must not, beyond the default structure rules (Postel's law, as Pact's):
/// a value the structure check takes, so that each path-scoped rule applies at its position in the walk, with its
/// message beside it. A manifest writes it as `"rules"`, per target and as the service's defaults.
///
/// Paths are `JSONPathPattern`s (`$`, `.key`, `["odd key"]`, `[*]`, `[n]`). The stub's array elements merge into one
/// element shape, so in the live check `[n]` names the same place as `[*]` (every element); against the stub, `[n]`
/// must name an element the stub has.
public struct ContractRules: Sendable, Equatable {
    /// A string or integer format a live value must have (`"formats"`).
    public enum Format: String, Sendable, Equatable, CaseIterable {
        /// RFC 3339 `date-time`: `2024-05-01T12:30:00Z`, `2024-05-01T12:30:00.5+02:00`.
        case dateTime = "date-time"
        /// RFC 3339 `full-date`: `2024-05-01`.
        case date
        /// RFC 4122, any version: `123e4567-e89b-12d3-a456-426614174000`.
        case uuid
        /// RFC 3986 absolute URI: a scheme, then `:` and the rest (`https://example.com/a`, `mailto:a@b.c`).
        case uri
        /// `local@domain`, the domain with a dot: the address an app would send mail to.
        case email
        /// An integer in -2^31 ... 2^31-1.
        case int32
        /// An integer in -2^63 ... 2^63-1.
        case int64

        /// Whether the format is for integers (`int32`, `int64`) rather than strings.
        public var isInteger: Bool { self == .int32 || self == .int64 }
    }

    /// A format for the values at one path.
    public struct FormatRule: Sendable, Equatable {
        /// Where.
        public var path: JSONPathPattern
        /// Which format.
        public var format: Format
        /// - Parameters: as the properties.
        public init(_ path: JSONPathPattern, _ format: Format) {
            self.path = path
            self.format = format
        }
    }

    /// The values allowed at one path.
    public struct ValuesRule: Sendable, Equatable {
        /// Where.
        public var path: JSONPathPattern
        /// The values the live one must be among (scalars: strings, numbers, booleans, `null`).
        public var values: [JSONValue]
        /// - Parameters: as the properties.
        public init(_ path: JSONPathPattern, _ values: [JSONValue]) {
            self.path = path
            self.values = values
        }
    }

    /// Values not checked at all: neither presence nor type (`"ignore"`).
    public var ignore: [JSONPathPattern]
    /// Keys that may be absent; typed when present (`"optional"`).
    public var optional: [JSONPathPattern]
    /// Values that may be `null` (what a Swift optional accepts); typed when not (`"nullable"`).
    public var nullable: [JSONPathPattern]
    /// Objects that are dictionaries: free keys, every value of the merged shape of the stub's values (`"maps"`).
    public var maps: [JSONPathPattern]
    /// Whether live keys the stub lacks are drifts (`true`) or notes (`false`); `nil` leaves it to `--strict`.
    /// A target's explicit value wins over `--strict` (the contract knows its service; the flag is a run default).
    public var isStrict: Bool?
    /// Formats of live values, one per path (`"formats"`).
    public var formats: [FormatRule]
    /// Allowed live values, one list per path (`"values"`).
    public var values: [ValuesRule]
    /// The statuses the live one must be among instead of equal to the stub's (`"status"`); `nil` for the stub's.
    public var status: [Int]?

    /// - Parameters: as the properties; all empty by default (the defaults: nothing beyond the structure rules).
    public init(
        ignore: [JSONPathPattern] = [], optional: [JSONPathPattern] = [], nullable: [JSONPathPattern] = [],
        maps: [JSONPathPattern] = [], isStrict: Bool? = nil, formats: [FormatRule] = [], values: [ValuesRule] = [],
        status: [Int]? = nil
    ) {
        self.ignore = ignore
        self.optional = optional
        self.nullable = nullable
        self.maps = maps
        self.isStrict = isStrict
        self.formats = formats
        self.values = values
        self.status = status
    }

    /// Whether these are the defaults (every field of `init()`'s), asked without making them.
    public var isEmpty: Bool { !hasPathRules && isStrict == nil && status == nil }

    /// Whether any rule is scoped to a path in the body (everything but `strict` and `status`).
    public var hasPathRules: Bool {
        !(ignore.isEmpty && optional.isEmpty && nullable.isEmpty && maps.isEmpty && formats.isEmpty
            && values.isEmpty)
    }

    /// These rules (a target's) on top of `service`'s: lists are merged, `formats` and `values` override per path,
    /// `strict` and `status` override.
    /// - Parameter service: The service's defaults.
    /// - Returns: The rules the target is checked with.
    public func merged(over service: ContractRules) -> ContractRules {
        // Most services and targets have no rules: the merge would give the other's, made anew for every target.
        if service.isEmpty { return self }
        if isEmpty { return service }
        func union(_ base: [JSONPathPattern], _ added: [JSONPathPattern]) -> [JSONPathPattern] {
            base + added.filter { pattern in !base.contains { $0.steps == pattern.steps } }
        }
        return ContractRules(
            ignore: union(service.ignore, ignore), optional: union(service.optional, optional),
            nullable: union(service.nullable, nullable), maps: union(service.maps, maps),
            isStrict: isStrict ?? service.isStrict,
            formats: service.formats.filter { rule in !formats.contains { $0.path.steps == rule.path.steps } }
                + formats,
            values: service.values.filter { rule in !values.contains { $0.path.steps == rule.path.steps } } + values,
            status: status ?? service.status)
    }

    /// The rules as a manifest's `"rules"` object writes them (what `ManifestLoader` reads back), empty ones left out.
    public var manifestValue: JSONValue {
        var members: [JSONMember] = []
        func list(_ name: String, _ paths: [JSONPathPattern]) {
            if !paths.isEmpty { members.append(JSONMember(name, .array(paths.map { .string($0.description) }))) }
        }
        list("ignore", ignore)
        list("optional", optional)
        list("nullable", nullable)
        list("maps", maps)
        if let isStrict { members.append(JSONMember("strict", .bool(isStrict))) }
        if !formats.isEmpty {
            members.append(
                JSONMember(
                    "formats", .object(formats.map { JSONMember($0.path.description, .string($0.format.rawValue)) })))
        }
        if !values.isEmpty {
            members.append(
                JSONMember("values", .object(values.map { JSONMember($0.path.description, .array($0.values)) })))
        }
        if let status {
            let name = [ValidationType.successCodes, .successAndRedirectCodes].first { $0.statusCodes == status }
            members.append(
                JSONMember("status", name.map { .string($0.name) } ?? .array(status.map { .integer(Int64($0)) })))
        }
        return .object(members)
    }

    /// Every path rule as (rule name, path), in the order a manifest lists them: for messages about each path.
    public var pathRules: [(rule: String, path: JSONPathPattern)] {
        ignore.map { ("ignore", $0) } + optional.map { ("optional", $0) } + nullable.map { ("nullable", $0) }
            + maps.map { ("maps", $0) } + formats.map { ("formats", $0.path) } + values.map { ("values", $0.path) }
    }

    /// Only the path rules whose paths match something in `stub` (service defaults apply where their path is).
    /// - Parameter stub: A target's stub body.
    /// - Returns: These rules without the paths that `stub` does not have.
    public func applicable(to stub: StubBody) -> ContractRules {
        guard hasPathRules else { return self }
        let root = stub.jsonValue
        let has = { (path: JSONPathPattern) in !Self.stubValues(at: path, in: root).isEmpty }
        var rules = self
        rules.ignore = ignore.filter(has)
        rules.optional = optional.filter(has)
        rules.nullable = nullable.filter(has)
        rules.maps = maps.filter(has)
        rules.formats = formats.filter { has($0.path) }
        rules.values = values.filter { has($0.path) }
        return rules
    }

    /// One thing wrong with rules for a stub, at one rule's path.
    public struct Problem: Sendable, Equatable {
        /// The rule's name: `ignore`, `formats`, ….
        public var rule: String
        /// The rule's path.
        public var path: JSONPathPattern
        /// What is wrong and what to do, naming `rules.<rule>` and quoting the path.
        public var message: String
    }

    /// What is wrong with these rules for `stub`: a path that matches nothing in it (a typo must never disable a
    /// check), an `optional` path that is no key, a stub value that breaks its own `formats` or `values`.
    /// - Parameter stub: The target's stub body.
    /// - Returns: One problem per rule path, in rule order.
    public func problems(stub: StubBody) -> [Problem] {
        guard hasPathRules else { return [] }
        let root = stub.jsonValue
        var problems: [Problem] = []
        for (rule, path) in pathRules where Self.stubValues(at: path, in: root).isEmpty {
            problems.append(
                Problem(
                    rule: rule, path: path,
                    message: "rules.\(rule): path '\(path)' matches nothing in the stub: fix the path (or the stub); "
                        + "a rule on a path the stub lacks would check nothing"))
        }
        if !problems.isEmpty { return problems }
        for path in optional {
            guard case .key = path.steps.last else {
                problems.append(
                    Problem(
                        rule: "optional", path: path,
                        message: "rules.optional: path '\(path)' does not end in a key: only an object's key can be "
                            + "absent (use rules.ignore for an element)"))
                continue
            }
        }
        let nullablePaths = nullable.map(\.steps)
        for rule in formats {
            for value in Self.stubValues(at: rule.path, in: root) {
                if value == .null, nullablePaths.contains(rule.path.steps) { continue }
                if let problem = Self.formatProblem(rule.format, value) {
                    problems.append(
                        Problem(
                            rule: "formats", path: rule.path,
                            message: "rules.formats: the stub's own value at '\(rule.path)' breaks it: \(problem): "
                                + "fix the stub or the format"))
                    break
                }
            }
        }
        for rule in values {
            for value in Self.stubValues(at: rule.path, in: root) where !rule.values.contains(value) {
                if value == .null, nullablePaths.contains(rule.path.steps) { continue }
                problems.append(
                    Problem(
                        rule: "values", path: rule.path,
                        message: "rules.values: the stub's own value at '\(rule.path)' breaks it: "
                            + "\(Self.describe(value)) is not one of \(Self.describe(rule.values)): "
                            + "fix the stub or the list"))
                break
            }
        }
        return problems
    }

    /// The values that `path` names in a stub's document (`[*]` every element or member, `[n]` element n); none
    /// for a stub that is not JSON (`nil`).
    package static func stubValues(at path: JSONPathPattern, in root: JSONValue?) -> [JSONValue] {
        guard let root else { return [] }
        var current = [root]
        for step in path.steps {
            var next: [JSONValue] = []
            for value in current {
                switch (step, value) {
                case (.key(let key), .object(let members)):
                    if let member = members.first(where: { $0.key.utf8.elementsEqual(key.utf8) }) {
                        next.append(member.value)
                    }
                case (.index(let position), .array(let items)):
                    if position < items.count { next.append(items[position]) }
                case (.any, .array(let items)): next += items
                case (.any, .object(let members)): next += members.map(\.value)
                default: break
                }
            }
            current = next
        }
        return current
    }

    // MARK: Formats and values: one home for the live check and the stub's

    /// Why `value` does not have `format`, or `nil` when it does (or is of a type the format does not speak of).
    /// - Parameters:
    ///   - format: The format.
    ///   - value: A JSON value.
    /// - Returns: `"abc" is not a uuid`, `4294967296 does not fit int32`, or `nil`.
    public static func formatProblem(_ format: Format, _ value: JSONValue) -> String? {
        switch value {
        case .string(let text):
            if format.isInteger { return nil }
            return holds(format, text) ? nil : "\(describe(value)) is not \(article(format))"
        case .integer(let number):
            guard format == .int32 else { return nil }
            return Int32(exactly: number) == nil ? "\(number) does not fit int32" : nil
        case .unsignedInteger(let number):
            guard format.isInteger else { return nil }
            if format == .int32 || Int64(exactly: number) == nil { return "\(number) does not fit \(format.rawValue)" }
            return nil
        default: return nil
        }
    }

    /// `a uuid`, `an email`, `a date-time`.
    public static func article(_ format: Format) -> String {
        (format == .email || format == .int32 || format == .int64 ? "an " : "a ") + format.rawValue
    }

    /// Whether `text` has the string format `format`.
    /// - Parameters:
    ///   - format: A string format (`int32`/`int64` hold for no string).
    ///   - text: The live string.
    /// - Returns: `true` when it does.
    public static func holds(_ format: Format, _ text: String) -> Bool {
        let bytes = Array(text.utf8)
        switch format {
        case .date: return isDate(bytes[...])
        case .dateTime: return isDateTime(bytes)
        case .uuid: return isUUID(bytes)
        case .uri: return isAbsoluteURI(bytes)
        case .email: return isEmail(bytes)
        case .int32, .int64: return false
        }
    }

    private static func digits(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard !bytes.isEmpty, bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return bytes.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    /// RFC 3339 full-date: `YYYY-MM-DD`, the day valid for its month (29 February in leap years only).
    private static func isDate(_ bytes: ArraySlice<UInt8>) -> Bool {
        let b = Array(bytes)
        guard b.count == 10, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"), let year = digits(b[0..<4]),
            let month = digits(b[5..<7]), let day = digits(b[8..<10]), (1...12).contains(month), day >= 1
        else { return false }
        let isLeap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let lengths = [31, isLeap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        return day <= lengths[month - 1]
    }

    /// RFC 3339 date-time: full-date `T` time (`HH:MM:SS`, optional `.fraction`) then `Z` or `±HH:MM`; `t`, `z`
    /// and a space for `T` are accepted as RFC 3339 allows.
    private static func isDateTime(_ b: [UInt8]) -> Bool {
        guard b.count >= 20, isDate(b[0..<10]), [UInt8(ascii: "T"), UInt8(ascii: "t"), 0x20].contains(b[10]),
            b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"), let hour = digits(b[11..<13]),
            let minute = digits(b[14..<16]), let second = digits(b[17..<19]), hour < 24, minute < 60, second <= 60
        else { return false }
        var index = 19
        if b[index] == UInt8(ascii: ".") {
            index += 1
            let start = index
            while index < b.count, b[index] >= 0x30, b[index] <= 0x39 { index += 1 }
            guard index > start else { return false }
        }
        guard index < b.count else { return false }
        if b[index] == UInt8(ascii: "Z") || b[index] == UInt8(ascii: "z") { return index + 1 == b.count }
        guard b[index] == UInt8(ascii: "+") || b[index] == UInt8(ascii: "-"), b.count == index + 6,
            b[index + 3] == UInt8(ascii: ":"), let offsetHour = digits(b[(index + 1)..<(index + 3)]),
            let offsetMinute = digits(b[(index + 4)..<(index + 6)])
        else { return false }
        return offsetHour < 24 && offsetMinute < 60
    }

    /// RFC 4122: 8-4-4-4-12 hexadecimal digits, any version and variant (the nil UUID too).
    private static func isUUID(_ b: [UInt8]) -> Bool {
        guard b.count == 36 else { return false }
        for (offset, byte) in b.enumerated() {
            if [8, 13, 18, 23].contains(offset) {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                guard byte.isASCIIHexDigit else { return false }
            }
        }
        return true
    }

    /// RFC 3986 absolute URI: `scheme ":" hier-part`, the scheme a letter then letters, digits, `+`, `-`, `.`; the
    /// rest without spaces or control bytes, `%` followed by two hexadecimal digits.
    private static func isAbsoluteURI(_ b: [UInt8]) -> Bool {
        guard let colon = b.firstIndex(of: UInt8(ascii: ":")), colon > 0, colon + 1 < b.count,
            isLetter(b[0]),
            b[1..<colon].allSatisfy({ isLetter($0) || ($0 >= 0x30 && $0 <= 0x39) || "+-.".utf8.contains($0) })
        else { return false }
        var index = colon + 1
        while index < b.count {
            let byte = b[index]
            if byte <= 0x20 || byte >= 0x7F || isExcludedFromURI(byte) { return false }
            if byte == UInt8(ascii: "%") {
                guard index + 2 < b.count, b[index + 1].isASCIIHexDigit, b[index + 2].isASCIIHexDigit else {
                    return false
                }
                index += 2
            }
            index += 1
        }
        return true
    }

    /// `local@domain.tld`: one `@`, a non-empty local part of visible ASCII, a domain of dot-separated labels
    /// (letters, digits, `-`) with at least one dot. What apps send mail to, not every quoted form RFC 5322 allows.
    private static func isEmail(_ b: [UInt8]) -> Bool {
        guard let at = b.lastIndex(of: UInt8(ascii: "@")), at > 0, at + 1 < b.count,
            b[..<at].allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "@") })
        else { return false }
        let labels = b[(at + 1)...].split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return labels.count >= 2
            && labels.allSatisfy { label in
                !label.isEmpty && label.first != UInt8(ascii: "-") && label.last != UInt8(ascii: "-")
                    && label.allSatisfy { isLetter($0) || ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: "-") }
            }
    }

    /// `<>"{}|\^` and the backquote, which RFC 3986 does not allow in a URI: a switch, not a search of a string per
    /// byte (the schema check tests every URI of every body with it).
    private static func isExcludedFromURI(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\""), UInt8(ascii: "{"), UInt8(ascii: "}"),
            UInt8(ascii: "|"), UInt8(ascii: "\\"), UInt8(ascii: "^"), UInt8(ascii: "`"):
            true
        default: false
        }
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }

    /// A value as a message quotes it: `"open"`, `12`, `true`, `null`.
    public static func describe(_ value: JSONValue) -> String {
        String(decoding: value.serialized(), as: UTF8.self)
    }

    /// An allowed list as a message gives it: `open, closed` (strings unquoted when they read plainly).
    public static func describe(_ values: [JSONValue]) -> String {
        values.map { value in
            if case .string(let text) = value, !text.isEmpty, !text.contains(","),
                text.trimmingWhitespace() == text
            {
                return text
            }
            return describe(value)
        }.joined(separator: ", ")
    }
}
