import Foundation
import Testing

@testable import Tether
@testable import TetherContracts

@Suite struct JSONParserTests {
    @Test func oneParserReadsDocumentsOfAnySizeInTurn() throws {
        let parser = try JSONParser()
        let large = "[" + Array(repeating: #"{"a":[1,2.5,"x"]}"#, count: 10_000).joined(separator: ",") + "]"
        let value = try parser.parse(Data(large.utf8))
        guard case .array(let elements) = value else {
            Issue.record("expected an array")
            return
        }
        #expect(elements.count == 10_000)
        #expect(try parser.parse(Data(#"{"b":null}"#.utf8)) == .object([JSONMember("b", .null)]))
        #expect(throws: JSONParseError.self) { try parser.parse(Data("[1,".utf8)) }
        // A failed parse leaves the parser usable.
        #expect(try parser.parse(Data("[true]".utf8)) == .array([.bool(true)]))
    }

    @Test func keepsItsDepthLimit() throws {
        let parser = try JSONParser(maxDepth: 4)
        #expect(try parser.parse(Data("[[[1]]]".utf8)) == .array([.array([.array([.integer(1)])])]))
        do {
            _ = try parser.parse(Data("[[[[[1]]]]]".utf8))
            Issue.record("expected an error")
        } catch {
            #expect(error.description == "nested deeper than 4 levels around line 1, column 5")
        }
    }

    @Test func aKeptParserGivesTheSameFindings() throws {
        let shape = JSONShape(stub: try JSONValue.parse(Data(#"[{"id":1,"name":"x"}]"#.utf8)))
        let parser = try JSONParser()
        for live in [#"[{"id":1,"name":"y"},{"id":"2"}]"#, "", #"[{"id":1.5,"name":null}]"#, "[]"] {
            #expect(shape.findings(live: Data(live.utf8), parser: parser) == shape.findings(live: Data(live.utf8)))
        }
        #expect(
            renderedFindings(shape.findings(live: Data(#"[{"id":"2"}]"#.utf8), parser: parser)) == [
                #"drift $[0].id: expected integer, got string "2": change the property's type, or fix the stub"#,
                "drift $[0].name: missing key (stub has string): make the property optional, or fix the stub",
            ])
    }
}
