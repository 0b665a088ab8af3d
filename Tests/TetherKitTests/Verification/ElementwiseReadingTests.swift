import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@_spi(Testing) @testable import TetherEngine
@_spi(Testing) @testable import TetherKit

/// A large body that is one array is read element by element (`JSONParser.withElements`): whatever it holds, the
/// findings are exactly those of reading it whole, and a body that is not a valid array is read whole.
@Suite struct ElementwiseReadingTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var stub: String
        var live: [UInt8]
        /// Whether it can be read element by element (else it is read whole); `nil`: exactly when it is JSON.
        var isElementwise: Bool?
        var testDescription: String { String(decoding: live.prefix(40), as: UTF8.self) }

        init(_ stub: String, _ live: String, _ isElementwise: Bool?) {
            self.init(stub, Array(live.utf8), isElementwise)
        }

        init(_ stub: String, _ live: [UInt8], _ isElementwise: Bool?) {
            self.stub = stub
            self.live = live
            self.isElementwise = isElementwise
        }
    }

    static let manyKeys =
        "{" + (0..<70).map { #""k\#($0)":\#($0)"# }.joined(separator: ",") + "}"

    static let cases: [Case] = [
        Case(
            #"[{"id":1,"name":"x"}]"#,
            #"[{"id":1,"name":"y"},{"id":"2"},{"id":2.5,"name":null,"extra":[1,{"a":2}]},{"id":3,"extra":{}}]"#, true),
        Case("[1]", #"[1,2.5,"x",null,true,[1],{"a":1},-0,1e5,18446744073709551615]"#, true),
        Case("[[1]]", #"[[1,2],[],[["x"]],[3]]"#, true),
        Case(
            #"[{"a":{"b":[{"c":1}]}}]"#, #"[{"a":{"b":[{"c":"x"},{"c":2},{}]}},{"a":{"b":[{"d":1}]}},{"a":[]}]"#, true),
        Case(#"[{"a":1}]"#, #"[{"a":1,"x":1},{"a":2,"x":2,"y":3},{"x":4,"a":1},{"y":{"z":1}}]"#, true),
        Case(#"[{"s":"x"}]"#, #"[{"s":"a\"b\\c\u00e9\ud83d\ude00"},{"s":"\/"},{"s\u0041":1}]"#, true),
        Case(
            "[\(manyKeys)]",
            "[\(manyKeys),{\"k3\":1},\(manyKeys.replacingOccurrences(of: "\"k69\":69", with: "\"k69\":\"x\""))]", true),
        // Braces, brackets and commas inside strings, where a window may be cut.
        Case(
            #"[{"s":"x","o":{"p":[1]}}]"#,
            #"[{"s":"{{{","o":{"p":[1,2]}},{"s":"a{b,]}c","o":{"p":[]}},{"s":"}{","o":{"p":["{"]}},{"o":{}}]"#, true),
        Case(#"[{"a":1}]"#, #"[{"a":1},{"a":"{x"},{"a":2},{"a":"y{"},tru]"#, false),
        Case(#"[{"a":1}]"#, #"[{"a":1},{"a":"{x"},{"a":2},{"a":"y{"}]{"#, false),
        Case(#"[{"a":1}]"#, #"[{"a":1},{"a":"{x"},{"a":2},{"a":"y{"},]"#, false),
        Case(#"[{"a":1}]"#, #"[{"a":1},{"a":"{x"},{"a":2},{"a":"y{"}  "#, false),
        Case(#"[{"a":1}]"#, #"[{"a":1},{"a":"{x"},{"a":2},{"a":"y{"} , "#, false),
        Case(#"[{"a":1}]"#, #"[{"a":1},{"a":"{x"},{"a":2},{"a":"y{"}] { "#, false),
        Case(#"[{"a":1}]"#, #"[{"a":1},{"a":"{x"},{"a":2}  ,  {"a":"y{"}]   "#, true),
        // (`Data` keeps up to 15 bytes inline, a copy that is not padded: the bodies here are longer.)
        Case("[1]", "\u{FEFF}[1,2,3,4,5,6,7,8,9]", true),
        Case("[1]", " \n[ 1 ,\t2 ,\t3 ] \r\n", true),
        Case("[1]", "[1]                  ", true),
        // Around the depth limit: read element by element exactly when the whole body is within it.
        Case(#"[{"a":1}]"#, String(repeating: "[", count: 1023) + String(repeating: "]", count: 1023), true),
        Case(#"[{"a":1}]"#, String(repeating: "[", count: 1024) + String(repeating: "]", count: 1024), nil),
        Case(#"[{"a":1}]"#, String(repeating: "[", count: 1025) + String(repeating: "]", count: 1025), nil),
        Case(#"[{"a":1}]"#, String(repeating: "[", count: 1026) + String(repeating: "]", count: 1026), false),
        // Not read element by element: not an array, not JSON, or a stub that leaves the root open.
        Case("[1]", "[]", false), Case("[1]", "[1,,2]", false), Case("[1]", "[1,]", false), Case("[1]", "[,1]", false),
        Case("[1]", "[1 2]", false), Case("[1]", "[1]x", false), Case("[1]", "[1]]", false),
        Case("[1]", "[1][2]", false),
        Case("[1]", #"[{"a":1]"#, false), Case("[1]", "[1,[2}]", false), Case("[1]", "[", false),
        Case("[1]", "[1", false), Case("[1]", #"[1,"x"#, false), Case("[1]", #"["a\qb"]"#, false),
        Case("[1]", "[tru]", false), Case("[1]", "[123456789012345678901234567890]", false),
        Case("[1]", [UInt8(ascii: "["), UInt8(ascii: "\""), 0xFF, 0xFE, UInt8(ascii: "\""), UInt8(ascii: "]")], false),
        Case("[1]", [UInt8(ascii: "["), UInt8(ascii: "\""), 0x01, UInt8(ascii: "\""), UInt8(ascii: "]")], false),
        Case("[1]", #"{"a":1}"#, false), Case("[1]", #""x""#, false), Case("[1]", "", false), Case("[1]", "  ", false),
        Case("[]", "[1,2]", false), Case("null", "[1,2]", false), Case(#"{"a":1}"#, "[1,2]", false),
    ]

    @Test(arguments: cases, [false, true])
    func findsWhatReadingItWholeFinds(_ test: Case, strict: Bool) throws {
        let shape = JSONShape(stub: try JSONValue.parse(Data(test.stub.utf8)))
        let parser = try JSONParser()
        let whole = shape.findings(live: Data(test.live), strict: strict, parser: parser, elementwiseFrom: .max)
        let elementwise = shape.elementwiseFindings(
            live: JSONParser.paddedCopy(of: Data(test.live)), strict: strict, parser: parser)
        #expect((elementwise != nil) == (test.isElementwise ?? !whole.contains { $0.path == "body" }))
        if let elementwise { #expect(elementwise == whole) }
        // In small windows of the index: cut before a '{' in a string, elements longer than a window, a window
        // ending after a ','.
        for window in [1, 3, 8, 20, 64] {
            let windowed = shape.elementwiseFindings(
                live: JSONParser.paddedCopy(of: Data(test.live)), strict: strict, parser: parser, windowBytes: window)
            #expect(windowed == elementwise, "window \(window)")
        }
        // Through the entry a run takes, with a body from the transport's buffer: the same findings either way.
        let padded = PaddedBytes()
        #expect(test.live.withUnsafeBytes { padded.append($0) })
        #expect(shape.findings(live: padded.takeData(), strict: strict, parser: parser, elementwiseFrom: 0) == whole)
    }

    /// Cut into parts read in parallel at every `{` (guesses in strings, in nested objects, at the first element and
    /// at later ones), and at pairs of them, in windows small and large: the findings of reading it in one part.
    @Test(arguments: cases, [false, true])
    func findsTheSameReadInParts(_ test: Case, strict: Bool) throws {
        let shape = JSONShape(stub: try JSONValue.parse(Data(test.stub.utf8)))
        let parser = try JSONParser()
        let live = JSONParser.paddedCopy(of: Data(test.live))
        let whole = shape.elementwiseFindings(live: live, strict: strict, parser: parser, cuts: [])
        let braces = test.live.indices.filter { test.live[$0] == UInt8(ascii: "{") }.prefix(40)
        for cut in braces {
            for window in [1, 8, 1 << 20] {
                let parts = shape.elementwiseFindings(
                    live: live, strict: strict, parser: parser, windowBytes: window, cuts: [cut])
                #expect(parts == whole, "cut at \(cut), window \(window)")
            }
        }
        for first in braces.prefix(12) {
            for second in braces.prefix(12) where second > first {
                let parts = shape.elementwiseFindings(
                    live: live, strict: strict, parser: parser, windowBytes: 3, cuts: [first, second])
                #expect(parts == whole, "cuts at \(first) and \(second)")
            }
        }
    }

    /// The parts run through the `perform` given (the fuzzer's threads of its own), whatever its order: here one after
    /// the other, last part first, with the findings of reading the body in one part.
    @Test func partsRunThroughTheGivenPerform() throws {
        let test = Self.cases[0]
        let shape = JSONShape(stub: try JSONValue.parse(Data(test.stub.utf8)))
        let parser = try JSONParser()
        let live = JSONParser.paddedCopy(of: Data(test.live))
        let whole = shape.elementwiseFindings(live: live, strict: false, parser: parser, cuts: [])
        let braces = test.live.indices.filter { test.live[$0] == UInt8(ascii: "{") }
        var calls: [Int] = []
        let parts = shape.elementwiseFindings(
            live: live, strict: false, parser: parser, cuts: [braces[1], braces[3]],
            perform: { iterations, body in
                calls.append(iterations)
                for index in (0..<iterations).reversed() { body(index) }
            })
        #expect(calls == [3])
        #expect(parts == whole)
    }

    /// A body large enough to be read in parts by default (two parts of at least `JSONShape.partBytes`): the cuts
    /// fall on elements, and the findings are those of reading it whole, with drifts found only in the later part,
    /// in both, and keys not in the stub in both, each counted once over the whole body.
    @Test func aBodyLargeEnoughIsReadInPartsWithTheFindingsOfReadingItWhole() throws {
        let element = #"{"id":7,"name":"repo","owner":{"login":"o","id":1},"topics":["a","b"],"license":null}"#
        let early = #"{"id":"7","name":"repo","owner":{"login":"o","id":1},"topics":["a"],"license":null,"x":1}"#
        let late = #"{"id":7,"name":null,"owner":{"login":"o"},"topics":[1],"license":null,"x":2,"y":{"a":"{"}}"#
        let count = 2 * JSONShape.partBytes / element.utf8.count + 1_000
        let text =
            "["
            + (0..<count).map { $0 == 3 ? early : $0 > count / 2 && $0 % 4_999 == 1 ? late : element }
            .joined(separator: ",\n") + "]"
        let live = JSONParser.paddedCopy(of: Data(text.utf8))
        #expect(live.count >= 2 * JSONShape.partBytes)
        let cuts = JSONParser.cuts(live, parts: 2)
        #expect(cuts.count == 1)
        for cut in cuts {
            #expect(live[cut] == UInt8(ascii: "{") && live[cut - 2] == UInt8(ascii: ",") && cut >= live.count / 2)
        }
        let shape = JSONShape(stub: try JSONValue.parse(Data("[\(element)]".utf8)))
        let parser = try JSONParser()
        let whole = shape.findings(live: live, strict: false, parser: parser, elementwiseFrom: .max)
        let parts = try #require(shape.elementwiseFindings(live: live, strict: false, parser: parser, cuts: cuts))
        #expect(parts == whole)
        #expect(shape.findings(live: live, parser: parser) == whole)
        let lateCount = (count / 2 + 1..<count).filter { $0 % 4_999 == 1 }.count
        let first = (count / 2 + 1..<count).first { $0 % 4_999 == 1 }!
        #expect(
            renderedFindings(whole).prefix(3) == [
                #"drift $[3].id: expected integer, got string "7": change the property's type, or fix the stub"#,
                "note $[3].x: key not in stub (number) … and in \(lateCount) more elements",
                "drift $[\(first)].name: unexpected null (stub has string) … and in \(lateCount - 1) more elements: "
                    + "make the property optional, or fix the stub",
            ])
    }

    /// Every rule case (those with a root array are read element by element) finds the same either way.
    @Test(arguments: ContractRulesTests.cases)
    func rulesFindTheSame(_ test: ContractRulesTests.Case) throws {
        let rules = try test.rules()
        let shape = JSONShape(stub: try JSONValue.parse(Data(test.stub.utf8)), rules: rules)
        let parser = try JSONParser()
        let strict = rules.isStrict ?? test.strict
        let live = Data(test.live.utf8)
        let whole = shape.findings(live: live, strict: strict, parser: parser, elementwiseFrom: .max)
        if let elementwise = shape.elementwiseFindings(
            live: JSONParser.paddedCopy(of: live), strict: strict, parser: parser)
        {
            #expect(elementwise == whole)
        }
    }

    /// The bench's kind of body, large enough for the default threshold: read element by element, same findings.
    @Test func aLargeArrayIsReadElementByElement() throws {
        let element = #"{"id":7,"name":"repo","owner":{"login":"o","id":1},"topics":["a","b"],"license":null}"#
        let drifted = #"{"id":"7","name":"repo","owner":{"login":"o"},"topics":[1],"license":{"key":"mit"},"x":1}"#
        let text = "[" + (0..<20_000).map { $0 % 997 == 5 ? drifted : element }.joined(separator: ",") + "]"
        #expect(text.utf8.count >= JSONShape.elementwiseMinimumBytes)
        let shape = JSONShape(stub: try JSONValue.parse(Data("[\(element)]".utf8)))
        let parser = try JSONParser()
        let padded = PaddedBytes()
        #expect(Data(text.utf8).withUnsafeBytes { padded.append($0) })
        let live = padded.takeData()
        let elementwise = try #require(
            shape.elementwiseFindings(live: JSONParser.paddedCopy(of: live), strict: false, parser: parser))
        #expect(shape.findings(live: live, parser: parser) == elementwise)
        #expect(
            shape.findings(live: Data(text.utf8), strict: false, parser: parser, elementwiseFrom: .max) == elementwise)
        #expect(
            renderedFindings(elementwise).first
                == #"drift $[5].id: expected integer, got string "7" … and in 20 more elements: change the property's type, or fix the stub"#
        )
    }
}
