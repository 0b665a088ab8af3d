import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

@Suite struct JSONValueSerializationTests {
    private func text(_ value: JSONValue, pretty: Bool = false) -> String {
        String(decoding: value.serialized(pretty: pretty), as: UTF8.self)
    }

    @Test func compactFormHasNoWhitespaceAndKeepsOrder() {
        let value = JSONValue.object([
            JSONMember("b", .array([.integer(1), .double(2.5), .null])), JSONMember("a", .bool(false)),
            JSONMember("e", .object([])), JSONMember("f", .array([])),
        ])
        #expect(text(value) == #"{"b":[1,2.5,null],"a":false,"e":{},"f":[]}"#)
    }

    @Test func prettyFormIndentsByTwoAndEndsWithANewline() {
        let value = JSONValue.object([
            JSONMember("id", .integer(1)), JSONMember("tags", .array([.string("x"), .object([])])),
            JSONMember("owner", .object([JSONMember("login", .string("o"))])),
        ])
        #expect(
            text(value, pretty: true) == """
                {
                  "id": 1,
                  "tags": [
                    "x",
                    {}
                  ],
                  "owner": {
                    "login": "o"
                  }
                }

                """)
    }

    @Test func escapesQuotesBackslashesAndControlCharacters() {
        let value = JSONValue.string("a\"b\\c\n\t\u{1}\u{1F}é😀/")
        #expect(text(value) == #""a\"b\\c\n\t\u0001\u001fé😀/""#)
    }

    @Test func writesIntegersExactlyAndDoublesRoundTrippably() throws {
        let value = JSONValue.array([
            .integer(Int64.min), .integer(Int64.max), .unsignedInteger(UInt64.max), .double(1.0), .double(0.1),
            .double(1e-7), .double(1.7976931348623157e308), .double(.leastNonzeroMagnitude), .double(-0.0),
            .double(123456789.125),
        ])
        #expect(try JSONValue.parse(value.serialized()) == value)
        #expect(text(.array([.integer(Int64.max), .double(1.0)])) == "[9223372036854775807,1.0]")
    }

    @Test func nonFiniteDoublesBecomeNull() {
        #expect(text(.array([.double(.infinity), .double(.nan)])) == "[null,null]")
    }

    @Test(arguments: [
        #"{"slideshow":{"title":"Sample","slides":[{"title":"Wake up","items":[]},{"title":"Overview","n":null}]}}"#,
        #"[{"\u00e9":"\ud83d\ude00"},"\u0000\u001f",-0.5,1e+100,true]"#,
        #""just a string""#,
    ])
    func parseAndSerializeRoundTrip(original: String) throws {
        let value = try JSONValue.parse(Data(original.utf8))
        #expect(try JSONValue.parse(value.serialized()) == value)
        #expect(try JSONValue.parse(value.serialized(pretty: true)) == value)
        // The compact form agrees with Foundation's reading of the original.
        let ours = try JSONSerialization.jsonObject(with: value.serialized(), options: [.fragmentsAllowed])
        let theirs = try JSONSerialization.jsonObject(with: Data(original.utf8), options: [.fragmentsAllowed])
        let options: JSONSerialization.WritingOptions = [.sortedKeys, .fragmentsAllowed]
        #expect(
            try JSONSerialization.data(withJSONObject: ours, options: options)
                == JSONSerialization.data(withJSONObject: theirs, options: options))
    }

    @Test func deepValuesSerializeWithoutRecursion() throws {
        var value = JSONValue.integer(1)
        for _ in 0..<1000 { value = .array([value]) }
        let data = value.serialized()
        #expect(data.count == 2001)
        #expect(try JSONValue.parse(data) == value)
    }
}
