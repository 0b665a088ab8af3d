import Foundation
import Testing

@testable import TetherContracts

@Suite struct JSONReaderTests {
    private func readError(_ text: String) -> JSONParseError? {
        do {
            _ = try JSONReader().value(Data(text.utf8))
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: [
        ("[1, 2,]", 1, 6, "not valid JSON: a comma before ']' (remove the trailing comma)"),
        ("{\n  \"a\": 1,\n}", 2, 9, "not valid JSON: a comma before '}' (remove the trailing comma)"),
        ("{\"a\": 1 \"b\": 2}", 1, 9, "not valid JSON: expected ',' or '}' after an object member, got '\"'"),
        ("{a: 1}", 1, 2, "not valid JSON: expected a key in double quotes, got 'a'"),
        ("{\"a\" 1}", 1, 6, "not valid JSON: expected ':' after the key \"a\", got '1'"),
        ("[tru]", 1, 2, "not valid JSON: malformed literal 'tru' (expected true)"),
        ("[1.]", 1, 2, "not valid JSON: malformed number 1."),
        ("[-]", 1, 2, "not valid JSON: malformed number -"),
        ("[1x]", 1, 2, "not valid JSON: malformed number 1x"),
        ("[\"a\tb\"]", 1, 4, "not valid JSON: control character U+0009 inside a string (it must be escaped)"),
        ("[\"\\x\"]", 1, 3, "not valid JSON: malformed string (a bad escape sequence: \\x)"),
        ("[\"\\ud800\"]", 1, 3, "not valid JSON: malformed string (a bad escape sequence: a lone surrogate \\uD800)"),
        ("[\"abc]", 1, 2, "not valid JSON: a string is not closed (missing quote)"),
        ("{\"é\": [1, 2", 1, 12, "not valid JSON: the input ends inside an array (missing ']')"),
        ("[1] [2]", 1, 5, "not valid JSON: text after the end of the document: '['"),
        ("// comment\n{}", 1, 1, "not valid JSON: expected a value, got '/'"),
        ("[NaN]", 1, 2, "not valid JSON: expected a value, got 'N'"),
    ])
    func errorsSayWhatAndWhere(text: String, line: Int, column: Int, detail: String) {
        let error = readError(text)
        #expect(error?.detail == detail)
        #expect(error?.line == line)
        #expect(error?.column == column)
    }

    @Test func aByteOrderMarkAtTheStartIsSkippedAndNotCounted() throws {
        let bom = Data([0xEF, 0xBB, 0xBF])
        #expect(try JSONReader().value(bom + Data(#"{"a": 1}"#.utf8)) == .object([JSONMember("a", .integer(1))]))
        let error = #expect(throws: JSONParseError.self) { try JSONReader().value(bom + Data("[1,]".utf8)) }
        #expect(error?.line == 1)
        #expect(error?.column == 3)
        // Anywhere but the start it is a character, and outside a string not JSON.
        #expect(throws: JSONParseError.self) { try JSONReader().value(Data("[1]".utf8) + bom) }
        #expect(throws: JSONParseError.self) { try JSONReader().value(bom) }
    }

    @Test func invalidUTF8IsFoundBeforeAnythingElse() {
        let error = #expect(throws: JSONParseError.self) {
            try JSONReader().value(Data("[\"a\",\n\"".utf8) + Data([0xFF]) + Data("\"]".utf8))
        }
        #expect(error?.reason == .invalidUTF8)
        #expect(error?.line == 2)
        #expect(error?.column == 2)
    }

    @Test func documentKnowsWhereEachValueAndKeyStarts() throws {
        let text = "{\n  \"service\": \"A\",\n  \"targets\": [\n    {\"name\": 1},\n    []\n  ]\n}"
        let document = try JSONReader().document(Data(text.utf8))
        // Pre-order: 0 root, 1 "A", 2 targets array, 3 first target, 4 its name, 5 the empty array.
        #expect(document.lineAndColumn(ofValue: 0) == (1, 1))
        #expect(document.lineAndColumn(ofValue: 1) == (2, 14))
        #expect(document.lineAndColumn(ofValue: 1, key: true) == (2, 3))
        #expect(document.lineAndColumn(ofValue: 2, key: true) == (3, 3))
        #expect(document.lineAndColumn(ofValue: 3) == (4, 5))
        #expect(document.lineAndColumn(ofValue: 4, key: true) == (4, 6))
        #expect(document.lineAndColumn(ofValue: 4) == (4, 14))
        #expect(document.lineAndColumn(ofValue: 5) == (5, 5))
        #expect(document.positions.next(after: 2) == 6)
        #expect(document.positions.next(after: 3) == 5)
        #expect(document.positions.next(after: 1) == 2)
    }

    @Test func documentPlacesMatchTheErrorScanWithABOMAndWideCharacters() throws {
        // Long enough to span several of the document's checkpoints, with wide characters across their edges.
        let long = (0..<300).map { #"{"é\#($0)": "😀ü"}"# + ($0 % 7 == 0 ? ",\n" : ", ") }.joined()
        let text = "{\"é😀\": [1,\n  {\"ü\": \"x\"}, " + long + "0], \"b\": null}"
        for bytes in [Data(text.utf8), Data([0xEF, 0xBB, 0xBF]) + Data(text.utf8)] {
            let document = try JSONReader().document(bytes)
            for index in 0..<document.positions.count {
                for key in [false, true] {
                    let offset = document.positions.offset(of: index, key: key)
                    let scanned = JSONInputScan.lineAndColumn(ofByte: offset, in: bytes)
                    #expect(document.lineAndColumn(ofValue: index, key: key) == scanned, "value \(index) key \(key)")
                }
            }
            #expect(document.lineAndColumn(ofValue: 0) == (1, 1))
        }
    }

    @Test func columnsCountCharactersNotBytes() {
        let error = readError("{\"café\": ,}")
        #expect(error?.column == 10)
    }
}
