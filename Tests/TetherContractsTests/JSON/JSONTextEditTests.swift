import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore

@Suite struct JSONTextEditTests {
    /// `text` with the value at `location` turned into `value` (JSON text).
    private func edited(_ text: String, _ value: String, at location: String = "") throws -> String {
        let change = JSONTextEdit.Change(location: location, value: try JSONValue.parse(Data(value.utf8)))
        return String(decoding: try JSONTextEdit.applying([change], to: Data(text.utf8)), as: UTF8.self)
    }

    @Test(arguments: [
        // Deleting the first, a middle, the last member: the member goes with its comma and its line.
        ("{\n  \"a\": 1,\n  \"b\": 2,\n  \"c\": 3\n}\n", #"{"b": 2, "c": 3}"#, "{\n  \"b\": 2,\n  \"c\": 3\n}\n"),
        ("{\n  \"a\": 1,\n  \"b\": 2,\n  \"c\": 3\n}\n", #"{"a": 1, "c": 3}"#, "{\n  \"a\": 1,\n  \"c\": 3\n}\n"),
        ("{\n  \"a\": 1,\n  \"b\": 2,\n  \"c\": 3\n}\n", #"{"a": 1, "b": 2}"#, "{\n  \"a\": 1,\n  \"b\": 2\n}\n"),
        ("{\n  \"a\": 1,\n  \"b\": 2,\n  \"c\": 3\n}\n", #"{"b": 2}"#, "{\n  \"b\": 2\n}\n"),
        // No trailing newline stays without one; a value's bytes are replaced in place.
        ("{\n    \"a\": 1,\n    \"b\": \"x\"\n}", #"{"a": 1, "b": null}"#, "{\n    \"a\": 1,\n    \"b\": null\n}"),
        // Number spellings of untouched values are kept; `/` is not escaped in new text.
        (
            "{\"n\": 1.0e3, \"u\": \"http:\\/\\/a\", \"s\": 1}", #"{"n": 1000.0, "u": "http://a", "s": "a/b"}"#,
            "{\"n\": 1.0e3, \"u\": \"http:\\/\\/a\", \"s\": \"a/b\"}"
        ),
        // Inserting after the last surviving sibling, in the file's indent (four spaces), nested values too.
        (
            "{\n    \"a\": 1\n}\n", #"{"a": 1, "b": {"c": [true]}}"#,
            "{\n    \"a\": 1,\n    \"b\": {\n        \"c\": [\n            true\n        ]\n    }\n}\n"
        ),
        // A member added to a one-member object written on one line, as `tether learn` adds to a target's rules:
        // the gap after a comma is the file's (`, `), not nothing.
        (
            "{\n  \"r\": {\"a\": [1]}, \"s\": 1\n}\n", #"{"r": {"a": [1], "b": [2]}, "s": 1}"#,
            "{\n  \"r\": {\"a\": [1], \"b\": [2]}, \"s\": 1\n}\n"
        ),
        // Tabs.
        (
            "{\n\t\"a\": 1,\n\t\"b\": 2\n}\n", #"{"a": 1, "b": 2, "c": 3}"#,
            "{\n\t\"a\": 1,\n\t\"b\": 2,\n\t\"c\": 3\n}\n"
        ),
        // CRLF.
        (
            "{\r\n  \"a\": 1,\r\n  \"b\": 2\r\n}\r\n", #"{"b": 2, "c": {"d": 1}}"#,
            "{\r\n  \"b\": 2,\r\n  \"c\": {\r\n    \"d\": 1\r\n  }\r\n}\r\n"
        ),
        // Compact text stays compact, with its own separators.
        (#"{"a":1,"b":2}"#, #"{"a":1,"c":[1,2]}"#, #"{"a":1,"c":[1,2]}"#),
        (
            #"{ "a": 1, "b": 2 }"#, #"{"a": "x", "b": 2, "c": {"d": 1, "e": 2}}"#,
            #"{ "a": "x", "b": 2, "c": {"d": 1, "e": 2} }"#
        ),
        // Insertion into an empty object writes the object in the file's style.
        (
            "{\n  \"a\": {},\n  \"b\": 1\n}", #"{"a": {"x": 1}, "b": 1}"#,
            "{\n  \"a\": {\n    \"x\": 1\n  },\n  \"b\": 1\n}"
        ),
        // Key order of the survivors is kept; array elements are edited in place.
        (
            "[\n  {\"id\": 1, \"score\": 1, \"name\": \"a\"}\n]\n", #"[{"id": 1, "score": 1.5, "name": "a"}]"#,
            "[\n  {\"id\": 1, \"score\": 1.5, \"name\": \"a\"}\n]\n"
        ),
        // A type drift to a container in a pretty file writes it over lines at the value's indent.
        (
            "{\n  \"a\": \"x\",\n  \"b\": 1\n}\n", #"{"a": {"k": 1}, "b": 1}"#,
            "{\n  \"a\": {\n    \"k\": 1\n  },\n  \"b\": 1\n}\n"
        ),
    ])
    func rewritesMinimally(original: String, value: String, expected: String) throws {
        #expect(try edited(original, value) == expected)
    }

    @Test func patchesAnInlineSampleAndNothingElse() throws {
        let manifest = """
            {
              "service": "S",
              "targets": [
                { "name": "a", "sampleData": { "json": { "x": 1, "y": "gone" } } },
                { "name": "b", "sampleData": { "json": [ 1.50, 2 ] } }
              ]
            }

            """
        let first = JSONTextEdit.Change(
            location: "targets[0].sampleData.json", value: .object([JSONMember("x", .string("now"))]))
        let second = JSONTextEdit.Change(location: "targets[1].sampleData.json", value: .array([.double(1.5), .null]))
        let result = String(
            decoding: try JSONTextEdit.applying([first, second], to: Data(manifest.utf8)), as: UTF8.self)
        #expect(
            result
                == manifest.replacingOccurrences(of: #"{ "x": 1, "y": "gone" }"#, with: #"{ "x": "now" }"#)
                .replacingOccurrences(of: "[ 1.50, 2 ]", with: "[ 1.50, null ]"))
    }

    @Test func unchangedValueLeavesTheBytes() throws {
        let text = "{ \"a\" :  1.0E2 ,\"b\":[ ] }"
        #expect(try edited(text, #"{"a": 100.0, "b": []}"#) == text)
    }

    @Test func unknownLocationIsAnError() throws {
        #expect(throws: JSONTextEdit.Failure.noValue(location: "targets[3].sampleData.json")) {
            try edited(#"{"targets": []}"#, "1", at: "targets[3].sampleData.json")
        }
    }

    @Test func spansCoverEveryValue() throws {
        let text = #" {"a": [1, "x\"y", {}], "b": -2.5e3, "c": null} "#
        let document = try JSONReader().document(Data(text.utf8))
        let bytes = Array(text.utf8)
        let spans = (0..<document.positions.count).map { document.positions.span(of: $0) }
        let texts = spans.map { String(decoding: bytes[$0], as: UTF8.self) }
        #expect(
            texts == [
                #"{"a": [1, "x\"y", {}], "b": -2.5e3, "c": null}"#, #"[1, "x\"y", {}]"#, "1", #""x\"y""#, "{}",
                "-2.5e3", "null",
            ])
    }

    /// Every pair of these styles and new values: the edited text reads back as exactly the new value.
    static let styles = [
        "{\n  \"a\": 1,\n  \"b\": [1, 2],\n  \"c\": {\"d\": \"x\"}\n}\n",
        #"{"a":1,"b":[1,2],"c":{"d":"x"}}"#,
        "\u{FEFF}{\r\n\t\"a\": 1,\r\n\t\"b\": [\r\n\t\t1,\r\n\t\t2\r\n\t],\r\n\t\"c\": {\r\n\t\t\"d\": \"x\"\r\n\t}\r\n}",
        #"{ "a" : 1 , "b" : [ 1 , 2 ] , "c" : { "d" : "x" } }"#,
    ]
    static let newValues = [
        #"{"a": 1, "b": [1, 2], "c": {"d": "x"}}"#, #"{"b": [1, 2]}"#, #"{"c": {"d": null, "e": [{"f": 1}]}}"#,
        #"{"a": 2.5, "b": [null, "s"], "c": {}, "z": {"y": [1, {"x": "a/b"}]}}"#, #"{}"#, #"[1, "two"]"#, "null",
        #"{"c": {"d": "x"}, "a": 1}"#,
    ]

    @Test(arguments: styles, newValues)
    func editsReadBackAsTheNewValue(original: String, value: String) throws {
        let result = try edited(original, value)
        #expect(try JSONValue.parse(Data(result.utf8)) == JSONValue.parse(Data(value.utf8)), "\(result)")
        if original.contains("\r\n") && result.contains("\n") {
            #expect(!result.replacingOccurrences(of: "\r\n", with: "").contains("\n"), "a bare LF in CRLF text")
        }
    }

    @Test func findsKeysThatNeedQuoting() throws {
        let text = #"{"a b": [{"c.d": 1}]}"#
        #expect(try edited(text, "2", at: #"["a b"][0]["c.d"]"#) == #"{"a b": [{"c.d": 2}]}"#)
    }
}
