import Foundation
import Testing

@testable import TetherEngine
@testable import TetherKit

/// `pattern` is ECMA-262, run on ICU (`NSRegularExpression`) after a translation. Each known difference between the
/// two: what ICU alone does with the pattern (so the row shows the translation matters), and what Tether does.
@Suite struct ECMARegexTests {
    /// What a pattern does with a text: matches, does not, or the engine refuses the pattern.
    enum Result: Equatable, CustomStringConvertible {
        case match
        case noMatch
        case refused

        var description: String {
            switch self {
            case .match: "match"
            case .noMatch: "no match"
            case .refused: "refused"
            }
        }
    }

    struct Row: CustomTestStringConvertible, Sendable {
        var pattern: String
        var text: String
        /// ECMA-262's answer (what Tether must give).
        var ecma: Result
        /// ICU's answer on the pattern as written.
        var icu: Result
        var why: String

        var testDescription: String { "/\(pattern)/ on \(text.debugDescription): \(why)" }
    }

    static let rows: [Row] = [
        Row(pattern: #"^\d$"#, text: "\u{0660}", ecma: .noMatch, icu: .match, why: "\\d is ASCII in ECMA-262"),
        Row(pattern: #"^\D$"#, text: "\u{07C0}", ecma: .match, icu: .noMatch, why: "\\D is everything but [0-9]"),
        Row(pattern: #"^\w$"#, text: "\u{E9}", ecma: .noMatch, icu: .match, why: "\\w is [A-Za-z0-9_]"),
        Row(pattern: #"^[\w]$"#, text: "\u{E9}", ecma: .noMatch, icu: .match, why: "\\w in a class too"),
        Row(pattern: #"\bb"#, text: "\u{E9}b", ecma: .match, icu: .noMatch, why: "\\b between é and b is a boundary"),
        Row(pattern: #"^\s$"#, text: "\u{FEFF}", ecma: .match, icu: .noMatch, why: "\\s includes U+FEFF"),
        Row(pattern: #"^\s$"#, text: "\u{0B}", ecma: .match, icu: .match, why: "\\s includes U+000B in both"),
        Row(pattern: #"^[^\S]$"#, text: "\u{FEFF}", ecma: .match, icu: .noMatch, why: "\\S in a class"),
        Row(pattern: #"^abc$"#, text: "abc\n", ecma: .noMatch, icu: .match, why: "$ is the end of the input"),
        Row(pattern: #"^.$"#, text: "\u{85}", ecma: .match, icu: .noMatch, why: ". matches U+0085"),
        Row(pattern: #"^.$"#, text: "\u{0C}", ecma: .match, icu: .noMatch, why: ". matches a form feed"),
        Row(pattern: #"^.$"#, text: "\u{2028}", ecma: .noMatch, icu: .noMatch, why: ". refuses U+2028 in both"),
        Row(pattern: #"^\v$"#, text: "\n", ecma: .noMatch, icu: .match, why: "\\v is U+000B only"),
        Row(pattern: #"^a{$"#, text: "a{", ecma: .match, icu: .refused, why: "a { that starts no quantifier"),
        Row(pattern: #"^a}$"#, text: "a}", ecma: .match, icu: .refused, why: "a lone }"),
        Row(pattern: #"^a{2}$"#, text: "aa", ecma: .match, icu: .match, why: "a quantifier stays one"),
        Row(pattern: #"^[^]$"#, text: "\n", ecma: .match, icu: .refused, why: "[^] matches anything"),
        Row(pattern: #"[]"#, text: "a", ecma: .noMatch, icu: .refused, why: "[] matches nothing"),
        Row(pattern: #"^[[a]]$"#, text: "a]", ecma: .match, icu: .noMatch, why: "[ in a class is literal"),
        Row(pattern: #"^[a&&b]$"#, text: "&", ecma: .match, icu: .noMatch, why: "&& in a class is literal"),
        Row(pattern: #"^\0$"#, text: "\u{0}", ecma: .match, icu: .refused, why: "\\0 is NUL"),
        Row(pattern: #"^\cJ$"#, text: "\n", ecma: .match, icu: .match, why: "\\cJ is a line feed"),
        Row(
            pattern: #"^\a$"#, text: "a", ecma: .match, icu: .noMatch, why: "Annex B: an undefined escape is the letter"
        ),
        Row(pattern: #"^\z$"#, text: "z", ecma: .match, icu: .noMatch, why: "Annex B: \\z is the letter z"),
        Row(pattern: #"^\uD83D\uDE00$"#, text: "😀", ecma: .match, icu: .match, why: "a surrogate pair in escapes"),
        Row(pattern: #"^\u{1F600}$"#, text: "😀", ecma: .match, icu: .refused, why: "\\u{…} (the u flag)"),
        Row(pattern: #"^.$"#, text: "😀", ecma: .match, icu: .match, why: "a code point, as with the u flag"),
        Row(pattern: #"^\p{Letter}+$"#, text: "\u{E9}t\u{E9}", ecma: .match, icu: .match, why: "\\p{…} as written"),
        Row(pattern: #"^\x41$"#, text: "A", ecma: .match, icu: .match, why: "\\xHH"),
        Row(pattern: #"^[\b]$"#, text: "\u{08}", ecma: .match, icu: .noMatch, why: "[\\b] is a backspace"),
        Row(pattern: "a*+", text: "a", ecma: .refused, icu: .match, why: "a quantifier after a quantifier"),
        Row(pattern: "(?i)a", text: "A", ecma: .refused, icu: .match, why: "inline flags are not ECMA-262's"),
        Row(pattern: "(?>a)", text: "a", ecma: .refused, icu: .match, why: "atomic groups are not ECMA-262's"),
        Row(pattern: "(?#c)a", text: "a", ecma: .refused, icu: .match, why: "comment groups are not ECMA-262's"),
        Row(pattern: "a*?b", text: "aab", ecma: .match, icu: .match, why: "a lazy quantifier stays"),
        Row(pattern: #"(?<n>a)\k<n>"#, text: "aa", ecma: .match, icu: .match, why: "named groups"),
        Row(pattern: "(?<=a)b", text: "ab", ecma: .match, icu: .match, why: "a bounded lookbehind"),
        // What stays different: refused (a "not checked" note), never a silent pass.
        Row(pattern: "(?<=a+)b", text: "aab", ecma: .refused, icu: .refused, why: "ICU needs a bounded lookbehind"),
        Row(pattern: "(?<\u{E9}>a)", text: "a", ecma: .refused, icu: .refused, why: "ICU's group names are ASCII"),
    ]

    static func icu(_ pattern: String, _ text: String) -> Result {
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return .refused }
        let range = NSRange(location: 0, length: text.utf16.count)
        return regex.firstMatch(in: text, range: range) == nil ? .noMatch : .match
    }

    static func tether(_ pattern: String, _ text: String) -> Result {
        guard let regex = try? ECMARegex(pattern) else { return .refused }
        return regex.isMatch(in: text) ? .match : .noMatch
    }

    @Test(arguments: rows)
    func eachDifference(_ row: Row) {
        #expect(Self.tether(row.pattern, row.text) == row.ecma)
        #expect(Self.icu(row.pattern, row.text) == row.icu, "ICU alone")
    }

    @Test func aPatternTetherDoesNotReadIsANoteNotAPass() throws {
        let source = try SchemaFixtureSource(file: "p.json", text: #"{"type": "string", "pattern": "(?<=a+)b"}"#)
        var compiler = SchemaCompiler(dialect: .openAPI31, source: source)
        let root = source.root("p.json")
        let schema = try compiler.compile(root.value, at: root.place)
        let found = schema.violations(of: .string("zzz"))
        #expect(found.map(\.severity) == [.note])
        #expect(found.first?.keyword == "pattern")
        #expect(found.first?.message.hasPrefix(#"not checked: pattern "(?<=a+)b" is not an ECMA-262 regular"#) == true)
    }
}
