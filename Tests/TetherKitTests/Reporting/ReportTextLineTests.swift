import Testing

@testable import TetherEngine

/// `ReportText.firstLine` reads the bytes before it walks characters (`mayBreakLines`): it must cut exactly where the
/// first character that is a newline starts, as the walk by characters alone does.
@Suite struct ReportTextLineTests {
    /// The walk by characters alone: what `firstLine` was, and must still give.
    static func firstLineByCharacters(_ text: String) -> String {
        guard let newline = text.firstIndex(where: \.isNewline) else { return text }
        return String(text[..<newline]) + " …"
    }

    /// Every newline `Character.isNewline` names, and lookalikes whose UTF-8 starts as one of them does (C2 or E2) or
    /// that follow one in a character of their own.
    static let pieces = [
        "\n", "\u{0B}", "\u{0C}", "\r", "\r\n", "\u{85}", "\u{2028}", "\u{2029}",
        "\u{A0}", "¢", "…", "€", "\u{2027}", "\u{202A}", "é", "e\u{301}", "\u{301}", "👩‍👩‍👧", "\t", " ", "a", "Z", "0",
    ]

    @Test(arguments: pieces) func eachPieceBeforeAndAfterTextCutsAsCharactersDo(_ piece: String) {
        for text in [piece, "head" + piece, piece + "tail", "head" + piece + "tail", "é" + piece + "\n" + "x"] {
            #expect(ReportText.firstLine(text) == Self.firstLineByCharacters(text), "\(Array(text.unicodeScalars))")
        }
    }

    @Test func twentyThousandRandomTextsCutAsCharactersDo() {
        var random = SplitMix(state: 24)
        var cut = 0
        for _ in 0..<20_000 {
            let count = Int(random.next() % 12)
            let text = (0..<count).map { _ in Self.pieces[Int(random.next() % UInt64(Self.pieces.count))] }.joined()
            let expected = Self.firstLineByCharacters(text)
            #expect(ReportText.firstLine(text) == expected, "\(Array(text.unicodeScalars))")
            if expected != text { cut += 1 }
        }
        #expect(cut > 5_000)  // most texts have a newline: the comparison is not of texts left whole
    }

    @Test func textWithoutTheBytesANewlineStartsWithIsOneLine() {
        let plain = "http://127.0.0.1:18431/c/48.json: Failed to connect to 127.0.0.1 port 18431 after 0 ms: é ü ß"
        #expect(!ReportText.mayBreakLines(plain))
        #expect(ReportText.firstLine(plain) == plain)
        #expect(ReportText.mayBreakLines("a\u{2029}b"))
        #expect(ReportText.firstLine("expected 200\u{2029}got 404") == "expected 200 …")
    }
}
