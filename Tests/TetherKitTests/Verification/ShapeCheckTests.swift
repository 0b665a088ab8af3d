import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// Renders findings as `drift $.a: message` / `note $.a: message`, so that expectations read like the report.
func renderedFindings(_ findings: [Finding]) -> [String] {
    findings.map { "\($0.kind == .drift ? "drift" : "note") \($0.path): \($0.message)" }
}

func structureFindings(stub: String, live: String, strict: Bool = false) throws -> [String] {
    renderedFindings(
        ShapeCheck.findings(stub: try JSONValue.parse(Data(stub.utf8)), live: Data(live.utf8), strict: strict))
}

@Suite struct ShapeCheckTests {
    struct Rule: CustomTestStringConvertible, Sendable {
        var name: String
        var stub: String
        var live: String
        var expected: [String]
        var testDescription: String { name }
    }

    static let rules: [Rule] = [
        Rule(
            name: "same structure, other values", stub: #"{"a":"x","n":1,"b":true,"o":{"k":[1]}}"#,
            live: #"{"a":"yy","n":7,"b":false,"o":{"k":[3,4]}}"#, expected: []),
        Rule(
            name: "string expected", stub: #"{"a":"x"}"#, live: #"{"a":12}"#,
            expected: ["drift $.a: expected string, got number 12: change the property's type, or fix the stub"]),
        Rule(
            name: "number expected", stub: #"{"price":1.5}"#, live: #"{"price":"12.50"}"#,
            expected: [
                #"drift $.price: expected number, got string "12.50": change the property's type, or fix the stub"#
            ]),
        Rule(
            name: "integer rejects a fraction", stub: #"{"id":1}"#, live: #"{"id":1.5}"#,
            expected: ["drift $.id: expected integer, got fractional number 1.5: declare it Double, or fix the stub"]),
        Rule(
            name: "integer rejects an exponent", stub: #"{"id":1}"#, live: #"{"id":1e3}"#,
            expected: ["drift $.id: expected integer, got fractional number 1000.0: declare it Double, or fix the stub"]
        ),
        Rule(name: "fraction accepts an integer", stub: #"{"p":1.5}"#, live: #"{"p":2}"#, expected: []),
        Rule(
            name: "integer accepts a 64-bit unsigned", stub: #"{"n":1}"#, live: #"{"n":18446744073709551615}"#,
            expected: []),
        Rule(
            name: "boolean expected", stub: #"{"a":true}"#, live: #"{"a":"true"}"#,
            expected: [#"drift $.a: expected boolean, got string "true": change the property's type, or fix the stub"#]),
        Rule(
            name: "object expected", stub: #"{"a":{"b":1}}"#, live: #"{"a":[1,2]}"#,
            expected: ["drift $.a: expected object, got array [1,2]: change the property's type, or fix the stub"]),
        Rule(
            name: "array expected", stub: #"{"a":[1]}"#, live: #"{"a":{"x":1,"y":[null]}}"#,
            expected: [
                #"drift $.a: expected array, got object {"x":1,"y":[null]}: change the property's type, or fix the stub"#
            ]),
        Rule(
            name: "root type", stub: #"{"a":1}"#, live: "[1]",
            expected: ["drift $: expected object, got array [1]: change the property's type, or fix the stub"]),
        Rule(
            name: "missing key", stub: #"{"owner":{"login":"x","id":1}}"#, live: #"{"owner":{"id":2}}"#,
            expected: [
                "drift $.owner.login: missing key (stub has string): make the property optional, or fix the stub"
            ]),
        Rule(
            name: "unexpected null", stub: #"{"bio":"x"}"#, live: #"{"bio":null}"#,
            expected: ["drift $.bio: unexpected null (stub has string): make the property optional, or fix the stub"]),
        Rule(
            name: "stub null accepts anything", stub: #"{"bio":null}"#, live: #"{"bio":"x"}"#,
            expected: ["note $.bio: stub has null: any value accepted (got string)"]),
        Rule(name: "stub null and live null", stub: #"{"bio":null}"#, live: #"{"bio":null}"#, expected: []),
        Rule(
            name: "key not in stub", stub: #"{"a":1}"#, live: #"{"a":1,"extra":"x"}"#,
            expected: ["note $.extra: key not in stub (string)"]),
        Rule(
            name: "empty stub object", stub: "{}", live: #"{"x":1,"y":{}}"#,
            expected: ["note $.x: key not in stub (number)", "note $.y: key not in stub (object)"]),
        Rule(
            name: "empty stub array", stub: #"{"tags":[]}"#, live: #"{"tags":["a",1]}"#,
            expected: ["note $.tags: stub array is empty: elements not checked"]),
        Rule(name: "empty stub array, empty live array", stub: #"{"tags":[]}"#, live: #"{"tags":[]}"#, expected: []),
        Rule(
            name: "key that is not an identifier", stub: #"{"a b":1,"1st":2,"q\"":3}"#,
            live: #"{"a b":"x","1st":"y","q\"":"z"}"#,
            expected: [
                #"drift $["a b"]: expected integer, got string "x": change the property's type, or fix the stub"#,
                #"drift $["1st"]: expected integer, got string "y": change the property's type, or fix the stub"#,
                #"drift $["q\""]: expected integer, got string "z": change the property's type, or fix the stub"#,
            ]),
        Rule(
            name: "array element", stub: #"{"slides":[{"title":"t"}]}"#,
            live: #"{"slides":[{"title":"a"},{"title":12}]}"#,
            expected: [
                "drift $.slides[1].title: expected string, got number 12: change the property's type, or fix the stub"
            ]),
        Rule(
            name: "stub elements of different types", stub: #"[1,"a"]"#, live: #"[2,"b",true]"#,
            expected: [
                "drift $[2]: expected string or integer, got boolean true: change the property's type, or fix the stub"
            ]),
        Rule(
            name: "key missing from some stub elements is optional", stub: #"[{"a":1,"b":2},{"a":3}]"#,
            live: #"[{"a":1},{"b":5}]"#,
            expected: ["drift $[1].a: missing key (stub has integer): make the property optional, or fix the stub"]),
        Rule(
            name: "null among stub elements makes them nullable", stub: #"[{"a":1},{"a":null}]"#,
            live: #"[{"a":null},{"a":2},{"a":"x"}]"#,
            expected: [#"drift $[2].a: expected integer, got string "x": change the property's type, or fix the stub"#]),
        Rule(name: "stub elements integer and fraction accept both", stub: "[1, 2.5]", live: "[1.5, 3]", expected: []),
        Rule(
            name: "live keys in another order", stub: #"{"a":1,"b":"x","c":true}"#,
            live: #"{"c":false,"b":"y","a":2}"#, expected: []),
        Rule(
            name: "long values are cut", stub: #"{"a":1}"#,
            live: #"{"a":"\#(String(repeating: "x", count: 100))"}"#,
            expected: [
                #"drift $.a: expected integer, got string "\#(String(repeating: "x", count: 59))…: change the property's type, or fix the stub"#
            ]),
        Rule(
            name: "control characters in excerpts are escaped", stub: #"{"a":1}"#, live: #"{"a":"x\ny"}"#,
            expected: [#"drift $.a: expected integer, got string "x\ny": change the property's type, or fix the stub"#]),
    ]

    @Test(arguments: rules)
    func rule(_ rule: Rule) throws {
        #expect(try structureFindings(stub: rule.stub, live: rule.live) == rule.expected)
    }

    @Test func precompiledShapeGivesTheSameFindings() throws {
        let shape = JSONShape(stub: try JSONValue.parse(Data(#"{"a":1,"b":"x"}"#.utf8)))
        let live = Data(#"{"a":"1"}"#.utf8)
        #expect(
            renderedFindings(shape.findings(live: live)) == [
                #"drift $.a: expected integer, got string "1": change the property's type, or fix the stub"#,
                "drift $.b: missing key (stub has string): make the property optional, or fix the stub",
            ])
        #expect(shape.findings(live: live) == shape.findings(live: live))
    }

    /// Key bytes are compared in overlapping words: for every length up to 40, equal bytes in two buffers are equal
    /// and one differing byte anywhere is seen, whatever follows the compared bytes.
    @Test func keyBytesCompareAsTheByteLoopDoes() {
        var generator = SystemRandomNumberGenerator()
        for count in 0...40 {
            let a = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) } + [0, 0, 0, 0, 0, 0, 0, 0]
            var b = a.map { $0 }  // its own buffer
            for offset in count..<b.count { b[offset] = 0xFF }  // past the compared bytes: never read
            for position in -1..<count {
                var c = b
                if position >= 0 { c[position] ^= UInt8.random(in: 1...255, using: &generator) }
                let equal = a.withUnsafeBufferPointer { x in
                    c.withUnsafeBufferPointer { y in bytesEqual(x.baseAddress!, y.baseAddress!, count) }
                }
                #expect(equal == (position < 0), "length \(count), byte \(position)")
            }
        }
    }
}
