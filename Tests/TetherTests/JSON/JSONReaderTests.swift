import Foundation
import Testing

@testable import Tether

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
        // The engine's parser for live bodies accepts it too: one behaviour.
        #expect(try JSONParser().parse(bom + Data("[true]".utf8)) == .array([.bool(true)]))
        // Anywhere but the start it is a character, and outside a string not JSON.
        #expect(throws: JSONParseError.self) { try JSONReader().value(Data("[1]".utf8) + bom) }
        #expect(throws: JSONParseError.self) { try JSONReader().value(bom) }
    }

    /// The file reader and the engine's simdjson parser accept the same documents and build the same values; where
    /// both refuse, the engine's error is the reader's (same words, same place).
    @Test(arguments: [
        #"{"z": 1, "a": [true, false, null], "m": {"y": -0.5e-3, "b": "\u00e9\n"}}"#,
        "[0, -0, 1E2, 1e-2, 9223372036854775807, 9223372036854775808, -9223372036854775808]",
        #""\ud83d\ude00 \u0000 \/""#, " \n\t 42 \r\n", "[]", "{}", "[[[[]]]]",
        "[1,]", #"{"a":1,}"#, "[01]", "[1e400]", "[18446744073709551616]", "{\"a\" 1}", "[\"a", "", "   ",
        "[1] x", "nul", "[tRue]", "[\"\\u12\"]", "{\"a\":}", "[,1]", "[1,,2]", "{,}", "\"\u{1}\"",
    ])
    func agreesWithTheEngineParser(text: String) throws {
        let bytes = Data(text.utf8)
        let reader = Result { () throws(JSONParseError) in try JSONReader().value(bytes) }
        let engine = Result { () throws(JSONParseError) in try JSONParser().parse(bytes) }
        switch (reader, engine) {
        case (.success(let a), .success(let b)): #expect(a == b)
        case (.failure(let a), .failure(let b)): #expect(a == b)
        default: Issue.record("reader \(reader) but engine \(engine) for \(text.debugDescription)")
        }
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

    @Test func columnsCountCharactersNotBytes() {
        let error = readError("{\"café\": ,}")
        #expect(error?.column == 10)
    }
}

/// The reader against simdjson on thousands of mutated documents: same acceptance, same values, and where simdjson
/// refuses, the engine reports the reader's error (a differential test; the fuzzers go further).
@Suite struct JSONReaderDifferentialTests {
    /// A small deterministic generator (SplitMix64), so a failure names an input that reproduces.
    private struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    private static let seeds = [
        #"{"a": [1, 2.5, -3e2, true, false, null], "b": {"c": "d\u00e9\n"}, "e": []}"#,
        #"[{"id": 9223372036854775807, "n": 18446744073709551615, "x": 0.1}, "\ud83d\ude00"]"#,
        "{\n  \"k\": \"v\",\n  \"l\": [ {}, [], \"\" ]\n}",
    ]
    private static let alphabet = Array(#"{}[],:"\ 0123456789.-+eEtrufalsn\/bu"#.utf8) + [0x0A, 0xC3, 0xA9, 0x01]

    @Test func agreesOnMutatedDocuments() throws {
        var random = SplitMix(state: 0x7E7E)
        let parser = try JSONParser()
        var disagreements: [String] = []
        var accepted = 0
        for round in 0..<6_000 {
            var bytes = Array(Self.seeds[round % Self.seeds.count].utf8)
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let position = Int.random(in: 0...bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0 where position < bytes.count: bytes.remove(at: position)
                case 1: bytes.insert(Self.alphabet.randomElement(using: &random) ?? 0x20, at: position)
                default:
                    if position < bytes.count { bytes[position] = Self.alphabet.randomElement(using: &random) ?? 0x20 }
                }
            }
            let data = Data(bytes)
            let reader = Result { () throws(JSONParseError) in try JSONReader().value(data) }
            let engine = Result { () throws(JSONParseError) in try parser.parse(data) }
            switch (reader, engine) {
            case (.success(let a), .success(let b)) where a == b: accepted += 1
            case (.failure(let a), .failure(let b)) where a == b: continue
            default: disagreements.append(String(decoding: data, as: UTF8.self).debugDescription)
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(5))")
        // Both sides of the line are exercised: many mutants stay JSON, most do not.
        #expect(accepted > 300 && accepted < 5_000, "\(accepted) accepted")
    }
}
