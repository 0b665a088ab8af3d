import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

@Suite struct JSONValueParsingTests {
    private func parse(_ text: String) throws -> JSONValue {
        try JSONValue.parse(Data(text.utf8))
    }

    private func parseError(_ bytes: Data) -> JSONParseError? {
        do {
            _ = try JSONValue.parse(bytes)
            return nil
        } catch {
            return error
        }
    }

    @Test func keepsMemberOrderAndRepeatedKeys() throws {
        let value = try parse(#"{"z": 1, "a": 2, "m": {"y": null, "b": true}, "a": 3}"#)
        #expect(
            value
                == .object([
                    JSONMember("z", .integer(1)), JSONMember("a", .integer(2)),
                    JSONMember("m", .object([JSONMember("y", .null), JSONMember("b", .bool(true))])),
                    JSONMember("a", .integer(3)),
                ]))
        #expect(value["a"] == .integer(2))
    }

    @Test func keepsIntegersApartFromFractions() throws {
        let value = try parse(
            "[0, -7, 1.0, 1.5, 2e3, 9223372036854775807, -9223372036854775808, 18446744073709551615, 1E-2]")
        #expect(
            value
                == .array([
                    .integer(0), .integer(-7), .double(1.0), .double(1.5), .double(2000), .integer(Int64.max),
                    .integer(Int64.min), .unsignedInteger(UInt64.max), .double(0.01),
                ]))
    }

    @Test func parsesScalarsAtTheRoot() throws {
        #expect(try parse("true") == .bool(true))
        #expect(try parse(" null ") == .null)
        #expect(try parse(#""x""#) == .string("x"))
        #expect(try parse("42") == .integer(42))
    }

    @Test func decodesEscapesAndSurrogatePairs() throws {
        let value = try parse(#"["\u00e9\n\t\"\\\/", "\ud83d\ude00", "é😀", "\u0000"]"#)
        #expect(value == .array([.string("é\n\t\"\\/"), .string("😀"), .string("é😀"), .string("\u{0}")]))
    }

    @Test func emptyInputIsAnError() {
        let error = parseError(Data())
        #expect(error?.reason == .empty)
        #expect(error?.description == "not valid JSON: the input is empty")
        #expect(parseError(Data("  \n ".utf8))?.reason == .empty)
    }

    @Test(arguments: [
        (#"{"a": [1, 2"#, 1, 12),
        (#"{"a": 1} x"#, 1, 10),
        ("{\n  \"a\": 1,,\n}", 2, 10),
        ("[1 2]", 1, 4),
        ("{\"a\" 1}", 1, 6),
    ])
    func invalidJSONNamesTheProblemAndWhere(text: String, line: Int, column: Int) {
        let error = parseError(Data(text.utf8))
        #expect(error?.reason == .invalid)
        #expect(error?.description.hasPrefix("not valid JSON: ") == true)
        #expect(error?.line == line)
        #expect(error?.column == column)
    }

    @Test func unclosedStringSaysSo() {
        let error = parseError(Data(#"{"a": "abc}"#.utf8))
        #expect(error?.reason == .invalid)
        #expect(error?.detail.contains("string") == true)
    }

    @Test func deepNestingIsAnErrorNotACrash() {
        let deep =
            Data(repeating: UInt8(ascii: "["), count: 100_000) + Data(repeating: UInt8(ascii: "]"), count: 100_000)
        let error = parseError(deep)
        #expect(error?.reason == .tooDeep)
        #expect(error?.description == "nested deeper than 1024 levels around line 1, column 1025")
    }

    @Test func depthLimitIsAdjustable() throws {
        let text = String(repeating: "[", count: 20) + String(repeating: "]", count: 20)
        #expect(throws: JSONParseError.self) { try JSONValue.parse(Data(text.utf8), maxDepth: 10) }
        var value = try JSONValue.parse(Data(text.utf8), maxDepth: 100)
        var depth = 0
        while case .array(let elements) = value {
            depth += 1
            value = elements.first ?? .null
        }
        #expect(depth == 20)
    }

    @Test(arguments: ["1e400", "[1, -1e400]", "[1180591620717411303424]", "{\"n\": -18446744073709551616}"])
    func numbersOutOfRangeAreNamed(text: String) {
        let error = parseError(Data(text.utf8))
        #expect(error?.reason == .numberOutOfRange)
        #expect(
            error?.detail.hasPrefix(
                "number out of range (integers beyond 64 bits and values such as 1e400 are not supported)") == true)
        #expect(error?.line == 1)
    }

    @Test func malformedNumbersAreNotOutOfRange() {
        let error = parseError(Data("[01]".utf8))
        #expect(error?.reason == .invalid)
        #expect(error?.detail == "not valid JSON: malformed number 01")
        #expect(error?.column == 2)
    }

    @Test func invalidUTF8GivesTheByteOffset() {
        let bytes = Data(#"{"name": "caf"#.utf8) + Data([0xC3, 0x28]) + Data(#""}"#.utf8)
        let error = parseError(bytes)
        #expect(error?.reason == .invalidUTF8)
        #expect(error?.detail == "not valid UTF-8 (byte 0xC3 at offset 13)")
    }

    @Test func parsesASliceOfLargerData() throws {
        let whole = Data("xx[1,{\"a\":true}]yy".utf8)
        let slice = whole[2..<(whole.count - 2)]
        #expect(try JSONValue.parse(slice) == .array([.integer(1), .object([JSONMember("a", .bool(true))])]))
    }

    @Test func validateChecksWithoutBuildingAValue() throws {
        try JSONValue.validate(Data(#"{"a": [1, 2.5, "x", null]}"#.utf8))
        #expect(throws: JSONParseError.self) { try JSONValue.validate(Data(#"{"a": [1, 2.5"#.utf8)) }
    }

    @Test func parsesInputWhoseEndSitsAtAPageBoundary() throws {
        // The padded copy is what keeps simdjson from reading past the end of the caller's bytes.
        let pageSize = 4096
        let text = "[" + String(repeating: "1,", count: (pageSize - 3) / 2) + "1]"
        let value = try JSONValue.parse(Data(text.utf8))
        guard case .array(let elements) = value else {
            Issue.record("expected an array")
            return
        }
        #expect(elements.count == (pageSize - 3) / 2 + 1)
    }
}
