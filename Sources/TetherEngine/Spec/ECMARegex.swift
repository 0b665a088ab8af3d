#if canImport(_FoundationICU) && !canImport(Darwin)
    import _FoundationICU  // ICU as the Swift toolchain links it, without swift-corelibs-foundation (see ICUPattern)
#else
    import Foundation
#endif

/// A schema's `pattern` (or a `patternProperties` key): an ECMA-262 regular expression, as JSON Schema and OpenAPI
/// say, run on ICU's engine (Foundation's `NSRegularExpression` on macOS, ICU's own C interface on Linux: the same
/// engine) after a translation that gives ICU ECMA-262's meaning where the two differ:
///
/// - `\d`, `\w`, `\b` are ASCII in ECMA-262 (`[0-9]`, `[A-Za-z0-9_]`), Unicode in ICU: spelled out as ASCII classes.
/// - `\s` is ECMA-262's WhiteSpace and LineTerminator (with U+000B and U+FEFF, which ICU's `\s` lacks): spelled out.
/// - `$` is the end of the input in ECMA-262 (no multiline flag); ICU's also matches before a final line break:
///   written `\z`.
/// - `.` matches anything but `\n`, `\r`, U+2028 and U+2029 in ECMA-262; ICU's also refuses U+000B, U+000C and
///   U+0085: written as that class.
/// - `\v` is U+000B in ECMA-262, a class of vertical spaces in ICU; `\0` is NUL; `\cX` a control character; `[]`
///   matches nothing and `[^]` anything (ICU refuses both); a `{` or `}` that starts no quantifier is literal (ICU
///   refuses it); inside a class, `[` and `&` are literal (ICU nests sets and intersects with `&&`).
/// - An escaped letter that ECMA-262 does not define (`\a`, `\A`, `\z`, `\Q`, `\h`) is the letter itself, as
///   ECMA-262's Annex B (what browsers do) reads it; ICU gives most of them a meaning.
///
/// Read as in ECMA-262 with the `u` flag, which JSON Schema's test suite expects: `.` and classes take whole code
/// points (`^.$` matches "😀"), `\p{…}` is a Unicode property (ICU's names: `\p{Letter}`, `\p{Script=Greek}`). What
/// stays different, and is refused or left as ICU reads it: lookbehind must have a bounded length in ICU;
/// ECMA-262's group names may use any identifier character, ICU's only ASCII letters and digits; a quantifier
/// after a quantifier (`a*+`, ICU's possessive form) and groups ECMA-262 lacks (`(?i)`, `(?>…)`, `(?#…)`) are
/// refused, as an ECMA-262 engine refuses them.
struct ECMARegex: Sendable {
    /// The pattern as the schema writes it.
    let pattern: String
    private let regex: ICUPattern

    /// Compiles `pattern`.
    /// - Parameter pattern: An ECMA-262 regular expression.
    /// - Throws: `ECMARegexError` naming what Tether does not read.
    init(_ pattern: String) throws(ECMARegexError) {
        self.pattern = pattern
        let translated = try Self.translated(pattern)
        guard let regex = ICUPattern(translated) else {
            throw ECMARegexError(message: "ICU's engine refuses it as \(translated)")
        }
        self.regex = regex
    }

    /// Whether the pattern matches somewhere in `text` (JSON Schema's `pattern` is not anchored).
    func isMatch(in text: String) -> Bool { regex.isMatch(in: text) }

    // MARK: Translation

    private static let word = "a-zA-Z0-9_"
    private static let space =
        "\\t\\n\\x{0B}\\f\\r\\x{20}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}"
        + "\\x{FEFF}"
    private static let boundary =
        "(?:(?<=[\(word)])(?![\(word)])|(?<![\(word)])(?=[\(word)]))"
    private static let notBoundary =
        "(?:(?<=[\(word)])(?=[\(word)])|(?<![\(word)])(?![\(word)]))"

    /// `pattern` in ICU's syntax with ECMA-262's meaning (see the type's comment).
    static func translated(_ pattern: String) throws(ECMARegexError) -> String {
        let scalars = Array(pattern.unicodeScalars)
        var output = ""
        var index = 0
        var isInClass = false
        /// Whether the last thing written can take a quantifier, and whether it was a quantifier.
        var afterQuantifier = false
        func peek(_ offset: Int) -> Unicode.Scalar? {
            index + offset < scalars.count ? scalars[index + offset] : nil
        }
        while index < scalars.count {
            let scalar = scalars[index]
            if isInClass {
                switch scalar {
                case "]":
                    output += "]"
                    isInClass = false
                case "\\":
                    output += try classEscape(scalars, &index)
                case "[", "&", "$", "^", "{", "}":
                    output += "\\" + String(scalar)
                default:
                    output.unicodeScalars.append(scalar)
                }
                index += 1
                continue
            }
            var isQuantifier = false
            switch scalar {
            case "\\":
                output += try escape(scalars, &index)
            case "[":
                if peek(1) == "]" {
                    output += "(?!)"  // matches nothing
                    index += 1
                } else if peek(1) == "^", peek(2) == "]" {
                    output += "[\\x{0}-\\x{10FFFF}]"  // matches anything
                    index += 2
                } else {
                    output += "["
                    isInClass = true
                    if peek(1) == "^" {
                        output += "^"
                        index += 1
                    }
                }
            case ".":
                output += "[^\\n\\r\\x{2028}\\x{2029}]"
            case "$":
                output += "\\z"
            case "(":
                output += "("
                if peek(1) == "?" {
                    switch (peek(2), peek(3)) {
                    case (":", _), ("=", _), ("!", _), ("<", "="), ("<", "!"):
                        break
                    case ("<", let next?) where next != "=" && next != "!":
                        break  // a named group
                    default:
                        throw ECMARegexError(
                            message: "\"(?\(peek(2).map(String.init) ?? "")\" starts no group ECMA-262 has")
                    }
                }
            case "{":
                if let length = quantifierLength(scalars, at: index) {
                    if afterQuantifier { throw ECMARegexError(message: "a quantifier follows a quantifier") }
                    output += String(String.UnicodeScalarView(scalars[index..<(index + length)]))
                    index += length - 1
                    isQuantifier = true
                } else {
                    output += "\\{"
                }
            case "}":
                output += "\\}"
            case "*", "+", "?":
                if afterQuantifier {
                    if scalar == "?" {  // lazy: `a*?`
                        output += "?"
                        index += 1
                        afterQuantifier = false
                        continue
                    }
                    throw ECMARegexError(message: "a quantifier follows a quantifier (\(String(scalar)))")
                }
                output.unicodeScalars.append(scalar)
                isQuantifier = true
            default:
                output.unicodeScalars.append(scalar)
            }
            afterQuantifier = isQuantifier
            index += 1
        }
        if isInClass { throw ECMARegexError(message: "a class is not closed (\"]\" missing)") }
        return output
    }

    /// The length of the quantifier `{n}`, `{n,}` or `{n,m}` at `start`, or `nil` when the brace starts none.
    private static func quantifierLength(_ scalars: [Unicode.Scalar], at start: Int) -> Int? {
        var index = start + 1
        var digits = 0
        while index < scalars.count, ("0"..."9").contains(scalars[index]) {
            index += 1
            digits += 1
        }
        guard digits > 0, index < scalars.count else { return nil }
        if scalars[index] == "," {
            index += 1
            while index < scalars.count, ("0"..."9").contains(scalars[index]) { index += 1 }
        }
        guard index < scalars.count, scalars[index] == "}" else { return nil }
        return index - start + 1
    }

    /// An escape outside a class, `index` at its backslash; leaves `index` at its last character.
    private static func escape(_ scalars: [Unicode.Scalar], _ index: inout Int) throws(ECMARegexError) -> String {
        guard index + 1 < scalars.count else { throw ECMARegexError(message: "the pattern ends in a backslash") }
        index += 1
        let scalar = scalars[index]
        switch scalar {
        case "d": return "[0-9]"
        case "D": return "[^0-9]"
        case "w": return "[\(word)]"
        case "W": return "[^\(word)]"
        case "s": return "[\(space)]"
        case "S": return "[^\(space)]"
        case "b": return boundary
        case "B": return notBoundary
        case "k", "p", "P":
            // `\k<name>`, `\p{…}`: ICU spells them as ECMA-262 does; copied to the closing `>` or `}`.
            let close: Unicode.Scalar = scalar == "k" ? ">" : "}"
            guard let end = scalars[index...].firstIndex(of: close) else { return String(scalar) }
            let text = String(String.UnicodeScalarView(scalars[index...end]))
            index = end
            return "\\" + text
        case "1"..."9":
            var text = "\\" + String(scalar)
            while index + 1 < scalars.count, ("0"..."9").contains(scalars[index + 1]) {
                index += 1
                text.unicodeScalars.append(scalars[index])
            }
            return text
        default:
            return try characterEscape(scalars, &index)
        }
    }

    /// An escape inside a class, `index` at its backslash; leaves `index` at its last character.
    private static func classEscape(_ scalars: [Unicode.Scalar], _ index: inout Int) throws(ECMARegexError) -> String {
        guard index + 1 < scalars.count else { throw ECMARegexError(message: "the pattern ends in a backslash") }
        index += 1
        switch scalars[index] {
        case "d": return "0-9"
        case "D": return "[^0-9]"
        case "w": return word
        case "W": return "[^\(word)]"
        case "s": return space
        case "S": return "[^\(space)]"
        case "b": return "\\x{08}"
        case "p", "P":
            guard let end = scalars[index...].firstIndex(of: "}") else { return String(scalars[index]) }
            let text = String(String.UnicodeScalarView(scalars[index...end]))
            index = end
            return "\\" + text
        case "-": return "\\-"
        default: return try characterEscape(scalars, &index)
        }
    }

    /// An escape that stands for one character, `index` at the character after the backslash.
    private static func characterEscape(_ scalars: [Unicode.Scalar], _ index: inout Int) throws(ECMARegexError)
        -> String
    {
        let scalar = scalars[index]
        func hex(_ count: Int) -> UInt32? {
            guard index + count < scalars.count else { return nil }
            var value: UInt32 = 0
            for offset in 1...count {
                guard let digit = UInt32(String(scalars[index + offset]), radix: 16) else { return nil }
                value = value * 16 + digit
            }
            return value
        }
        func code(_ value: UInt32) -> String { "\\x{" + String(value, radix: 16, uppercase: true) + "}" }
        switch scalar {
        case "t", "n", "r", "f": return "\\" + String(scalar)
        case "v": return "\\x{0B}"
        case "0":
            if index + 1 < scalars.count, ("0"..."9").contains(scalars[index + 1]) {
                throw ECMARegexError(message: "\"\\0\" followed by a digit (an octal escape) is not read")
            }
            return "\\x{0}"
        case "c":
            if index + 1 < scalars.count, isASCIILetter(scalars[index + 1]) {
                index += 1
                return code(scalars[index].value % 32)
            }
            return "\\\\c"  // Annex B: a backslash and "c"
        case "x":
            if let value = hex(2) {
                index += 2
                return code(value)
            }
            return "x"
        case "u":
            if index + 1 < scalars.count, scalars[index + 1] == "{",
                let end = scalars[(index + 1)...].firstIndex(of: "}"),
                let value = UInt32(String(String.UnicodeScalarView(scalars[(index + 2)..<end])), radix: 16)
            {
                index = end
                return code(value)
            }
            guard let value = hex(4) else { return "u" }
            index += 4
            // A surrogate pair written as two escapes is one code point.
            if (0xD800...0xDBFF).contains(value), index + 6 < scalars.count, scalars[index + 1] == "\\",
                scalars[index + 2] == "u"
            {
                var low: UInt32 = 0
                var isHex = true
                for offset in 3...6 {
                    guard let digit = UInt32(String(scalars[index + offset]), radix: 16) else {
                        isHex = false
                        break
                    }
                    low = low * 16 + digit
                }
                if isHex, (0xDC00...0xDFFF).contains(low) {
                    index += 6
                    return code(0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00))
                }
            }
            return code(value)
        default:
            if isASCIILetter(scalar) || ("0"..."9").contains(scalar) {
                return String(scalar)  // Annex B: an escaped letter ECMA-262 does not define is the letter
            }
            if scalar.isASCII { return "\\" + String(scalar) }
            return code(scalar.value)
        }
    }

    private static func isASCIILetter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }
}

/// A pattern Tether does not read, and why.
struct ECMARegexError: Error, Sendable, Equatable {
    /// Why, lower case: `a quantifier follows a quantifier (+)`.
    var message: String
}

/// A pattern in ICU's syntax, compiled by ICU's regular expression engine.
///
/// On Linux through ICU's C interface (`uregex_*`), as the Swift toolchain builds ICU for Foundation
/// (`_FoundationICU`, whose functions are prefixed `swift_`): Foundation's `NSRegularExpression` there is
/// swift-corelibs-foundation's, and one use of it links that library and CoreFoundation into the executable, whose
/// every start then pays for them (bench/HISTORY.md). `NSRegularExpression` on Linux runs this same engine.
private final class ICUPattern: @unchecked Sendable {
    #if canImport(_FoundationICU) && !canImport(Darwin)
        /// Compiled once; each match works on a clone of it, since a `URegularExpression` keeps the state of its last
        /// match (NSRegularExpression, which this replaces, may be shared between threads).
        private let compiled: OpaquePointer

        init?(_ pattern: String) {
            var status = U_ZERO_ERROR
            let units = Array(pattern.utf16)
            guard let compiled = swift_uregex_open(units, Int32(units.count), 0, nil, &status),
                status.rawValue <= U_ZERO_ERROR.rawValue
            else { return nil }
            self.compiled = compiled
        }

        deinit { swift_uregex_close(compiled) }

        func isMatch(in text: String) -> Bool {
            var status = U_ZERO_ERROR
            guard let regex = swift_uregex_clone(compiled, &status), status.rawValue <= U_ZERO_ERROR.rawValue else {
                return false
            }
            defer { swift_uregex_close(regex) }
            let units = Array(text.utf16)
            return units.withUnsafeBufferPointer { buffer in
                swift_uregex_setText(regex, buffer.baseAddress, Int32(buffer.count), &status)
                let found = swift_uregex_find(regex, 0, &status)
                return status.rawValue <= U_ZERO_ERROR.rawValue && found != 0
            }
        }
    #else
        private let regex: NSRegularExpression  // immutable, and documented as safe to share

        init?(_ pattern: String) {
            guard let regex = try? NSRegularExpression(pattern: pattern) else { return nil }
            self.regex = regex
        }

        func isMatch(in text: String) -> Bool {
            regex.rangeOfFirstMatch(in: text, options: [], range: NSRange(location: 0, length: text.utf16.count))
                .location != NSNotFound
        }
    #endif
}
