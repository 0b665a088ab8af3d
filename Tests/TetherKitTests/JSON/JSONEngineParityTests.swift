import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@_spi(Testing) @testable import TetherEngine
@_spi(Testing) @testable import TetherKit

/// `JSONReader` (files) and simdjson's `JSONParser` (live bodies) behave as one: same documents accepted, same values,
/// and where simdjson refuses, the engine reports the reader's error (same words, same place).
@Suite struct JSONEngineParityTests {
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

    /// A depth limit of N means N nested containers for both (simdjson alone counts the document as a level).
    @Test(arguments: 1...6)
    func bothDrawTheDepthLimitAtTheSamePlace(depth: Int) throws {
        for levels in [depth - 1, depth, depth + 1] where levels >= 0 {
            // An empty container innermost is not a level: `[[]]` is one level deep, `[[1]]` two.
            let text = String(repeating: "[", count: levels) + "1" + String(repeating: "]", count: levels)
            let empty = String(repeating: "[", count: levels + 1) + String(repeating: "]", count: levels + 1)
            let readerTakesEmpty = (try? JSONReader(maxDepth: depth).value(Data(empty.utf8))) != nil
            let engineTakesEmpty = (try? JSONParser(maxDepth: depth).parse(Data(empty.utf8))) != nil
            #expect(readerTakesEmpty == engineTakesEmpty && readerTakesEmpty == (levels <= depth), "\(empty)")
            let reader = Result { () throws(JSONParseError) in try JSONReader(maxDepth: depth).value(Data(text.utf8)) }
            let engine = Result { () throws(JSONParseError) in try JSONParser(maxDepth: depth).parse(Data(text.utf8)) }
            switch (reader, engine) {
            case (.success(let a), .success(let b)): #expect(a == b && levels <= depth, "\(text)")
            case (.failure(let a), .failure(let b)): #expect(a == b && levels > depth, "\(text)")
            default: Issue.record("depth \(depth), \(levels) levels: reader \(reader) but engine \(engine)")
            }
        }
    }

    /// simdjson's read of a document with places (the spec loader's) gives `JSONReader.document`'s values and the
    /// same place for every value, key and value end, whitespace and a byte order mark around them or not.
    @Test(arguments: [
        "{\n  \"a\" :\t[ 1 , -2.5e3 ,\r\n true,false , null ,\"x\\\"y\"  ] ,\n  \"b\": { }, \"c\":[ ]\n}\n",
        "\u{FEFF}  {\"k\": \"v\"}  ", "\u{FEFF}7", "  \"text\"\n", "[[[{\"a\":[{}]}]]]", #"{"é": "\u00e9", "": ""}"#,
    ])
    func theEngineReadsADocumentWithTheReadersPlaces(text: String) throws {
        let bytes = Data(text.utf8)
        let reader = try JSONReader().document(bytes)
        let engine = try #require(try JSONParser().document(bytes))
        #expect(engine.root == reader.root)
        #expect(engine.positions == reader.positions)
    }

    /// A document of a megabyte or more is read on two threads (values on one, places on the other): the same
    /// document again.
    @Test func theEngineReadsALargeDocumentWithTheReadersPlaces() throws {
        var text = "\u{FEFF}{\"items\": ["
        for number in 0..<12_000 {
            text += number == 0 ? "\n" : ",\n"
            text += #"  {"id": \#(number), "name" : "item \#(number) \u00e9", "tags": [ "a" , "b\"c" ],"#
            text += #" "price": \#(Double(number) / 8), "ok": \#(number % 2 == 0), "next": null, "empty": {}}"#
        }
        text += "\n]}\n"
        let bytes = Data(text.utf8)
        #expect(bytes.count > 1 << 20)
        let reader = try JSONReader().document(bytes)
        let engine = try #require(try JSONParser().document(bytes))
        #expect(engine.root == reader.root)
        #expect(engine.positions == reader.positions)
        #expect(engine.lineAndColumn(ofValue: reader.positions.count - 1) == (12_001, 128))  // the last `{}`
    }

    @Test func bothSkipAByteOrderMark() throws {
        #expect(try JSONParser().parse(Data([0xEF, 0xBB, 0xBF]) + Data("[true]".utf8)) == .array([.bool(true)]))
    }
}

/// The reader against simdjson on thousands of mutated documents: same acceptance, same values, and where simdjson
/// refuses, the engine reports the reader's error (a differential test; the fuzzers go further).
@Suite struct JSONReaderDifferentialTests {
    private static let seeds = [
        #"{"a": [1, 2.5, -3e2, true, false, null], "b": {"c": "d\u00e9\n"}, "e": []}"#,
        #"[{"id": 9223372036854775807, "n": 18446744073709551615, "x": 0.1}, "\ud83d\ude00"]"#,
        "{\n  \"k\": \"v\",\n  \"l\": [ {}, [], \"\" ]\n}",
        "{ \"a\" : [ 1 , true , \"s\" ] , \"b\" : null }",
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
            // Every eighth document under a small depth limit, where the two count levels (empty containers are none).
            let depth = round % 8 == 0 ? 1 + round / 8 % 4 : 1024
            let reader = Result { () throws(JSONParseError) in try JSONReader(maxDepth: depth).value(data) }
            let engine = Result { () throws(JSONParseError) in
                try (depth == 1024 ? parser : JSONParser(maxDepth: depth)).parse(data)
            }
            // The spec loader's read: simdjson's values with the places of `JSONReader.document`, or nil to let the
            // reader say why not.
            // The check a stub kept as text gets: the reader's verdict, its error at the same place, nothing built.
            let checked = Result { () throws(JSONParseError) in try JSONReader(maxDepth: depth).check(data) }
            switch (reader, checked) {
            case (.success, .success): break
            case (.failure(let a), .failure(let b)) where a == b: break
            default: disagreements.append("check: " + String(decoding: data, as: UTF8.self).debugDescription)
            }
            let readerDocument = try? JSONReader(maxDepth: depth).document(data)
            let engineDocument = (depth == 1024 ? parser : try JSONParser(maxDepth: depth)).document(data)
            if readerDocument?.root != engineDocument?.root || readerDocument?.positions != engineDocument?.positions {
                disagreements.append("document: " + String(decoding: data, as: UTF8.self).debugDescription)
            }
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
