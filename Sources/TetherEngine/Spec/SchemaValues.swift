#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A JSON number as the schema check compares it: exactly, whichever way each side is written (`1` equals `1.0`,
/// and `9007199254740993` is more than `9007199254740992.0`).
enum SchemaNumber: Sendable, Equatable {
    case integer(Int64)
    case unsignedInteger(UInt64)
    case double(Double)

    /// The number `value` holds, or `nil` for any other value.
    init?(_ value: JSONValue) {
        switch value {
        case .integer(let number): self = .integer(number)
        case .unsignedInteger(let number): self = .unsignedInteger(number)
        case .double(let number): self = .double(number)
        default: return nil
        }
    }

    /// Whether it has no fractional part.
    var isIntegral: Bool {
        if case .double(let number) = self { return number.isFinite && number == number.rounded(.towardZero) }
        return true
    }

    /// -1, 0 or 1 as `self` is less than, equal to or more than `other`, exactly.
    func compare(_ other: SchemaNumber) -> Int {
        switch (self, other) {
        case (.double(let a), .double(let b)): return a < b ? -1 : (a > b ? 1 : 0)
        case (.double(let a), _): return -other.compare(.double(a))
        case (_, .double(let b)):
            if b >= 18_446_744_073_709_551_616.0 { return -1 }
            if b < -9_223_372_036_854_775_808.0 { return 1 }
            let floor = b.rounded(.down)
            let whole: SchemaNumber = floor >= 0 ? .unsignedInteger(UInt64(floor)) : .integer(Int64(floor))
            let order = compare(whole)
            return order != 0 ? order : (b > floor ? -1 : 0)
        case (.integer(let a), .integer(let b)): return a < b ? -1 : (a > b ? 1 : 0)
        case (.unsignedInteger(let a), .unsignedInteger(let b)): return a < b ? -1 : (a > b ? 1 : 0)
        case (.integer(let a), .unsignedInteger(let b)):
            return a < 0 ? -1 : SchemaNumber.unsignedInteger(UInt64(a)).compare(.unsignedInteger(b))
        case (.unsignedInteger, .integer): return -other.compare(self)
        }
    }

    /// Whether `self` is a whole multiple of `divisor` (positive), reading both as the decimals they are written
    /// as (`0.0075` is a multiple of `0.0001`), not as the binary fractions a `Double` holds.
    func isMultiple(of divisor: SchemaNumber) -> Bool {
        switch (self, divisor) {
        case (.integer(let a), .integer(let b)) where b > 0: return a % b == 0
        case (.unsignedInteger(let a), .integer(let b)) where b > 0: return a % UInt64(b) == 0
        case (.integer(let a), .unsignedInteger(let b)): return a.magnitude % b == 0
        case (.unsignedInteger(let a), .unsignedInteger(let b)): return a % b == 0
        default: break
        }
        if let a = decimal, let b = decimal(of: divisor), !b.isZero {
            let quotient = a / b
            if quotient.isFinite {
                // Whole when its decimal digits after the point (Decimal writes no exponent) are all zeros.
                let digits = quotient.description.utf8
                guard let point = digits.firstIndex(of: UInt8(ascii: ".")) else { return true }
                return digits[digits.index(after: point)...].allSatisfy { $0 == UInt8(ascii: "0") }
            }
        }
        // Beyond a Decimal's range: the binary values' exact remainder (every Double above 2^53 is whole).
        let remainder = doubleValue.truncatingRemainder(dividingBy: divisor.doubleValue)
        return remainder == 0
    }

    /// The number as a `Double` (rounded for integers beyond 2^53).
    var doubleValue: Double {
        switch self {
        case .integer(let number): Double(number)
        case .unsignedInteger(let number): Double(number)
        case .double(let number): number
        }
    }

    /// The decimal a JSON text would write for it (a `Double` by its shortest form), or `nil` beyond `Decimal`.
    private var decimal: Decimal? { decimal(of: self) }

    private func decimal(of number: SchemaNumber) -> Decimal? {
        switch number {
        case .integer(let value): return Decimal(value)
        case .unsignedInteger(let value): return Decimal(value)
        case .double(let value):
            guard value.isFinite, value == 0 || (abs(value) < 1e120 && abs(value) > 1e-120) else { return nil }
            return Decimal(string: "\(value)", locale: Locale(identifier: "en_US_POSIX"))
        }
    }
}

/// A `multipleOf`, read once: a decimal divisor (`0.01`) also as a whole number of units of its last digit (1 unit
/// of 10^-2), so that most values are checked in integers, without `Decimal`.
struct SchemaMultiple: Sendable, Equatable {
    let number: SchemaNumber
    /// The divisor times 10^digits, and the scale, for a `Double` divisor with at most 15 digits after the point.
    private let scaled: (divisor: Int64, scale: Double)?

    init(_ number: SchemaNumber) {
        self.number = number
        var scaled: (Int64, Double)?
        if case .double(let divisor) = number {
            var scale = 1.0
            for _ in 0...15 {
                let units = (divisor * scale).rounded()
                if units < 9e15, units / scale == divisor, let whole = Int64(exactly: units), whole > 0 {
                    scaled = (whole, scale)
                    break
                }
                scale *= 10
            }
        }
        self.scaled = scaled
    }

    static func == (a: SchemaMultiple, b: SchemaMultiple) -> Bool { a.number == b.number }

    /// Whether `value` is a whole multiple of the divisor, the decimals read as written.
    func divides(_ value: SchemaNumber) -> Bool {
        // A value that is m units of the divisor's last digit (m / scale rounds to it, |m| well inside 2^53) is the
        // decimal m × 10^-digits: a multiple exactly when m is a multiple of the divisor's units.
        if let (divisor, scale) = scaled {
            let units = (value.doubleValue * scale).rounded()
            if abs(units) < 1e15, units / scale == value.doubleValue, let whole = Int64(exactly: units) {
                return whole % divisor == 0
            }
        }
        return value.isMultiple(of: number)
    }
}

/// The JSON types a schema's `type` names, as a set.
struct SchemaTypes: OptionSet, Sendable, Hashable {
    let rawValue: UInt8
    init(rawValue: UInt8) { self.rawValue = rawValue }
    static let null = SchemaTypes(rawValue: 1)
    static let boolean = SchemaTypes(rawValue: 2)
    static let object = SchemaTypes(rawValue: 4)
    static let array = SchemaTypes(rawValue: 8)
    static let number = SchemaTypes(rawValue: 16)
    static let integer = SchemaTypes(rawValue: 32)
    static let string = SchemaTypes(rawValue: 64)

    /// In the order messages list them.
    static let named: [(String, SchemaTypes)] = [
        ("string", .string), ("integer", .integer), ("number", .number), ("boolean", .boolean),
        ("object", .object), ("array", .array), ("null", .null),
    ]

    /// The type of `name`, or `nil` for a name JSON Schema lacks.
    init?(name: String) {
        guard let type = Self.named.first(where: { $0.0 == name })?.1 else { return nil }
        self = type
    }

    /// `string`, `string or null`, `integer, number or null`.
    var description: String {
        let names = Self.named.filter { contains($0.1) }.map(\.0)
        guard names.count > 1 else { return names.first ?? "nothing" }
        return names.dropLast().joined(separator: ", ") + " or " + names[names.count - 1]
    }

    /// Whether `value` has one of these types; `integralDoubleIsInteger` as JSON Schema 2020-12 reads `1.0` (draft 4,
    /// hence OpenAPI 2.0 and 3.0, reads it as a number only).
    func admits(_ value: JSONValue, integralDoubleIsInteger: Bool) -> Bool {
        switch value {
        case .null: return contains(.null)
        case .bool: return contains(.boolean)
        case .string: return contains(.string)
        case .array: return contains(.array)
        case .object: return contains(.object)
        case .integer, .unsignedInteger: return contains(.integer) || contains(.number)
        case .double(let number):
            if contains(.number) { return true }
            return contains(.integer) && integralDoubleIsInteger && SchemaNumber.double(number).isIntegral
        }
    }
}

/// JSON Schema's equality of two values (for `enum`, `const`, `uniqueItems`): numbers by value (`1` equals `1.0`),
/// objects whatever the order of their members, `true` never equal to `1`.
enum SchemaEquality {
    /// Whether two strings have the same code points (Swift's `==` also equates canonically equivalent ones: `é`
    /// and `e` with a combining accent). Compares the UTF-8 bytes in place when both are stored contiguously.
    static func sameCodePoints(_ a: String, _ b: String) -> Bool {
        let fast = a.utf8.withContiguousStorageIfAvailable { first in
            b.utf8.withContiguousStorageIfAvailable { second in
                guard first.count == second.count, let x = first.baseAddress, let y = second.baseAddress else {
                    return first.count == second.count
                }
                return memcmp(x, y, first.count) == 0
            }
        }
        if let fast, let result = fast { return result }
        return a.utf8.elementsEqual(b.utf8)
    }

    static func equal(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.string(let x), .string(let y)):
            return sameCodePoints(x, y)
        case (.array(let x), .array(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { equal($0, $1) }
        case (.object(let x), .object(let y)):
            guard x.count == y.count else { return false }
            return x.allSatisfy { member in
                y.contains { sameCodePoints($0.key, member.key) && equal($0.value, member.value) }
            }
        default:
            guard let x = SchemaNumber(a), let y = SchemaNumber(b) else { return false }
            return x.compare(y) == 0
        }
    }

    /// The offsets of the first two equal elements of `items`, or `nil` when they are unique. Elements are bucketed
    /// by a coarse key (a number by its `Double`, an object by its sorted keys) and compared exactly within a bucket.
    static func firstRepeat(in items: [JSONValue]) -> (Int, Int)? {
        if items.count <= 16 {
            for second in items.indices {
                for first in 0..<second where equal(items[first], items[second]) { return (first, second) }
            }
            return nil
        }
        var buckets: [String: [Int]] = [:]
        for (offset, item) in items.enumerated() {
            let key = bucketKey(item)
            if let earlier = buckets[key]?.first(where: { equal(items[$0], item) }) { return (earlier, offset) }
            buckets[key, default: []].append(offset)
        }
        return nil
    }

    private static func bucketKey(_ value: JSONValue) -> String {
        switch value {
        case .null: return "n"
        case .bool(let flag): return flag ? "t" : "f"
        case .string(let text): return "s" + text
        case .array(let items): return "a\(items.count)" + (items.first.map(bucketKey) ?? "")
        case .object(let members): return "o" + members.map(\.key).sorted().joined(separator: "\u{0}")
        default: return "d\(SchemaNumber(value)?.doubleValue ?? 0)"
        }
    }
}
