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

// The string operations Tether took from Foundation's NSString, in Swift: on Linux they are swift-corelibs-foundation's,
// which links CoreFoundation into the executable (see `Lock`). Each gives what NSString gives (held to it by
// TextTests, against Foundation's own): literal matches compare Unicode scalars, as NSString's compare UTF-16 code
// units, not Swift's characters (a "<" before a combining accent is one Character, and two scalars).

extension StringProtocol {
    /// `trimmingWhitespace()`: without the spaces (Unicode's Zs) and tabs at either end.
    package func trimmingWhitespace() -> String { trimming(where: Self.isWhitespace) }

    /// `trimmingWhitespaceAndNewlines()`: without the spaces, tabs and line breaks (Unicode's Z*,
    /// U+000A to U+000D and U+0085) at either end.
    package func trimmingWhitespaceAndNewlines() -> String {
        trimming { Self.isWhitespace($0) || Self.isNewline($0) }
    }

    /// `trimmingCharacters(in: CharacterSet(charactersIn: scalars))`.
    package func trimming(scalarsIn scalars: String) -> String {
        let set = Set(scalars.unicodeScalars)
        return trimming { set.contains($0) }
    }

    private func trimming(where isTrimmed: (Unicode.Scalar) -> Bool) -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !isTrimmed($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !isTrimmed($0) })!
        return String(String.UnicodeScalarView(scalars[first...last]))
    }

    private static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\t" || scalar.properties.generalCategory == .spaceSeparator
    }

    private static func isNewline(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A...0x0D, 0x85: true
        default:
            scalar.properties.generalCategory == .lineSeparator
                || scalar.properties.generalCategory == .paragraphSeparator
        }
    }

    /// `range(of: text)`: the first place `text` is, compared scalar by scalar, from `start` on (the start by default).
    package func rangeOfText<Target: StringProtocol>(_ text: Target, from start: Index? = nil) -> Range<Index>? {
        let target = text.utf8  // read in place: no copy for the short literals most callers look for
        guard let first = target.first else { return nil }
        let utf8 = self.utf8
        var index = start ?? utf8.startIndex
        // UTF-8 is self-synchronizing: a match of whole scalars' bytes starts and ends on scalar boundaries.
        while let found = utf8[index...].firstIndex(of: first) {
            var end = found
            var matched = true
            for byte in target {
                guard end < utf8.endIndex, utf8[end] == byte else {
                    matched = false
                    break
                }
                utf8.formIndex(after: &end)
            }
            if matched { return found..<end }
            index = utf8.index(after: found)
        }
        return nil
    }

    /// `replacingOccurrences(of: text, with: replacement)`: each place `text` is, left to right and not
    /// overlapping, replaced.
    package func replacingText<Target: StringProtocol, Replacement: StringProtocol>(
        _ text: Target, with replacement: Replacement
    ) -> String {
        var result = ""
        var rest = startIndex
        while let found = rangeOfText(text, from: rest) {
            result += self[rest..<found.lowerBound]
            result += replacement
            rest = found.upperBound
        }
        guard rest != startIndex else { return String(self) }
        result += self[rest...]
        return result
    }

    /// `components(separatedBy: separator)`: the text between the places `separator` is (an empty one where two
    /// meet or at an end).
    package func componentsOfText<Separator: StringProtocol>(separatedBy separator: Separator) -> [String] {
        var parts: [String] = []
        var rest = startIndex
        while let found = rangeOfText(separator, from: rest) {
            parts.append(String(self[rest..<found.lowerBound]))
            rest = found.upperBound
        }
        parts.append(String(self[rest...]))
        return parts
    }

    /// `removingPercentEncoding`: each `%` and two hex digits as the byte they name; nil when a `%` is not followed
    /// by two hex digits, or the bytes are not UTF-8.
    package var percentDecoded: String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var iterator = utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(Self.hexValue), let low = iterator.next().flatMap(Self.hexValue)
            else { return nil }
            bytes.append(high << 4 | low)
        }
        let text = String(decoding: bytes, as: UTF8.self)
        return text.utf8.elementsEqual(bytes) ? text : nil  // not UTF-8: decoding replaced something
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// `padding(toLength: length, withPad: " ", startingAt: 0)`: spaces added up to `length` UTF-16 code units, or
    /// cut to them.
    package func padded(toLength length: Int) -> String {
        let count = utf16.count
        if count >= length {
            return String(String.UnicodeScalarView(unicodeScalars.prefixUTF16(length)))
        }
        return String(self) + String(repeating: " ", count: length - count)
    }

    /// Whether the two are equal but for case, as `caseInsensitiveCompare(_:) == .orderedSame` finds them for
    /// header names (each folded to lower case, scalar by scalar).
    package func equalsIgnoringCase<Other: StringProtocol>(_ other: Other) -> Bool {
        lowercased() == other.lowercased()
    }
}

extension UInt8 {
    /// Whether the byte is an ASCII hexadecimal digit: `0`-`9`, `A`-`F`, `a`-`f`.
    package var isASCIIHexDigit: Bool {
        (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self)
    }
}

extension Sequence<Unicode.Scalar> {
    /// The leading scalars that fit in `length` UTF-16 code units.
    fileprivate func prefixUTF16(_ length: Int) -> [Unicode.Scalar] {
        var taken: [Unicode.Scalar] = []
        var count = 0
        for scalar in self {
            count += UTF16.width(scalar)
            guard count <= length else { break }
            taken.append(scalar)
        }
        return taken
    }
}

/// `String(format:)` for the C formats Tether prints numbers with (`%.3f`, `%02X`), through the C library's own
/// `vsnprintf`, as Foundation's formatting of them does.
package func formatted(_ format: String, _ arguments: any CVarArg...) -> String {
    var buffer = [CChar](repeating: 0, count: 64)
    var count = Int(withVaList(arguments) { vsnprintf(&buffer, buffer.count, format, $0) })
    if count >= buffer.count {
        buffer = [CChar](repeating: 0, count: count + 1)
        count = Int(withVaList(arguments) { vsnprintf(&buffer, buffer.count, format, $0) })
    }
    return buffer.withUnsafeBytes { String(decoding: $0.prefix(max(0, count)), as: UTF8.self) }
}
