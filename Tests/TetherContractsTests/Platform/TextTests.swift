import Foundation
import Testing

@testable import TetherCore

/// The string operations of `Platform/Text.swift` give what Foundation's NSString gives, on hand-picked texts and on
/// random ones built from the characters that make the differences (spaces of every kind, line breaks, combining
/// accents, `%`, surrogate pairs).
@Suite struct TextTests {
    /// Texts that have broken such code before: empty, all space, accents that combine with what they follow.
    static let samples = [
        "", " ", "\t", "  a  ", "\u{A0}a\u{3000}", "a\u{2028}", "\n a \r\n", "\u{85}x\u{85}", "<\u{301}a<", "e\u{301}e",
        "${a}${", "%41%42", "%4", "%zz", "%C3%A9", "%FF", "a+b%20c", "😀 x 😀", "._a._", "...", "x_y.z",
        "Content-Type", "content-type", "ÉTÉ", "été",
    ]
    static let alphabet: [String] = [
        "a", "b", " ", "\t", "\n", "\r", "\u{A0}", "\u{2003}", "\u{2028}", "\u{85}", "\u{301}", "e", "<", "%", "4",
        "1", "C", "3", "A", "9", "😀", ".", "_", "$", "{", "}", "/", "~",
    ]

    static func randomTexts(count: Int, seed: UInt64) -> [String] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { _ in
            (0..<Int.random(in: 0...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
                .joined()
        }
    }

    static var texts: [String] { samples + randomTexts(count: 3_000, seed: 24) }

    @Test func trimmingIsFoundations() {
        for text in Self.texts {
            #expect(text.trimmingWhitespace() == text.trimmingCharacters(in: .whitespaces), "\(text.debugDescription)")
            #expect(
                text.trimmingWhitespaceAndNewlines() == text.trimmingCharacters(in: .whitespacesAndNewlines),
                "\(text.debugDescription)")
            #expect(
                text.trimming(scalarsIn: "._") == text.trimmingCharacters(in: CharacterSet(charactersIn: "._")),
                "\(text.debugDescription)")
        }
    }

    /// Compared with Foundation's on texts without combining marks: beside one, swift-corelibs-foundation 6.3
    /// compares characters (`<` does not match in `<\u{301}`), Darwin's compares UTF-16 code units, as ours compares
    /// scalars (`combiningMarksAreMatchedScalarByScalar`).
    @Test func findingAndReplacingIsFoundations() {
        let targets = ["<", "${", "a", "e", "%", "😀", " ", "ab"]
        for text in Self.texts where !text.unicodeScalars.contains("\u{301}") {
            for target in targets {
                let ours = text.rangeOfText(target).map { text.utf8.distance(from: text.startIndex, to: $0.lowerBound) }
                let theirs = (text as NSString).range(of: target).location
                let theirsUTF8 =
                    theirs == NSNotFound ? nil : String((text as NSString).substring(to: theirs)).utf8.count
                #expect(ours == theirsUTF8, "\(text.debugDescription) \(target.debugDescription)")
                #expect(
                    text.replacingText(target, with: "[\(target)]")
                        == (text as NSString).replacingOccurrences(of: target, with: "[\(target)]"),
                    "\(text.debugDescription) \(target.debugDescription)")
                #expect(
                    text.componentsOfText(separatedBy: target) == text.components(separatedBy: target),
                    "\(text.debugDescription) \(target.debugDescription)")
            }
        }
    }

    /// What Darwin's NSString gives: a `<` or `%` before a combining accent is still found, escaped and split on.
    @Test func combiningMarksAreMatchedScalarByScalar() {
        #expect("a<\u{301}b".replacingText("<", with: "&lt;") == "a&lt;\u{301}b")
        #expect("%\u{301}".replacingText("%", with: "%25") == "%25\u{301}")
        #expect("e\u{301}e".componentsOfText(separatedBy: "e") == ["", "\u{301}", ""])
        let accented = "a\u{301}"
        #expect(
            accented.rangeOfText("\u{301}").map { accented.utf8.distance(from: accented.startIndex, to: $0.lowerBound) }
                == 1)
    }

    @Test func percentDecodingIsFoundations() {
        for text in Self.texts {
            let theirs = text.removingPercentEncoding
            // swift-corelibs-foundation 6.3 answers some bytes that are not UTF-8 with U+FFFD, others with nil (as
            // Darwin's does, and ours always).
            if theirs?.unicodeScalars.contains("\u{FFFD}") == true {
                #expect(text.percentDecoded == nil, "\(text.debugDescription)")
            } else {
                #expect(text.percentDecoded == theirs, "\(text.debugDescription)")
            }
        }
        #expect("%C3%A9".percentDecoded == "é")
        #expect("%C3".percentDecoded == nil)
        #expect("%4".percentDecoded == nil)
    }

    @Test func paddingIsFoundations() {
        // Foundation cuts between the two halves of a surrogate pair (and the half left becomes U+FFFD); ours keeps
        // whole scalars: compared on texts of the basic plane, and the pair below.
        #expect("a😀".padded(toLength: 2) == "a")
        #expect("a😀".padded(toLength: 3) == "a😀")
        for text in Self.texts where text.unicodeScalars.allSatisfy({ $0.value <= 0xFFFF }) {
            for length in [0, 1, 3, 8, 20] {
                #expect(
                    text.padded(toLength: length)
                        == (text as NSString).padding(toLength: length, withPad: " ", startingAt: 0),
                    "\(text.debugDescription) \(length)")
            }
        }
    }

    @Test func formattingIsFoundations() {
        for seconds in [0, 0.0005, 0.0015, 0.0125, 1.2345, 12.3456, 1e9, -0.5] {
            #expect(formatted("%.3fs", seconds) == String(format: "%.3fs", seconds), "\(seconds)")
        }
        for byte in [0, 9, 10, 0x7F, 0xFF] as [UInt8] {
            #expect(formatted("%%%02X", byte) == String(format: "%%%02X", byte), "\(byte)")
        }
        for value in [-1, 0, 7, 255] as [Int32] {
            #expect(formatted(" (byte 0x%02X)", value) == String(format: " (byte 0x%02X)", value), "\(value)")
        }
    }

    @Test func headerNamesCompareAsFoundationDoes() {
        for (a, b) in [("Content-Type", "content-type"), ("ÉTÉ", "été"), ("a", "b"), ("X-ÿ", "X-Ÿ"), ("", "")] {
            #expect(a.equalsIgnoringCase(b) == (a.caseInsensitiveCompare(b) == .orderedSame), "\(a) \(b)")
        }
    }
}

/// A reproducible source of random numbers (SplitMix64), for texts a failure can be replayed with.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
