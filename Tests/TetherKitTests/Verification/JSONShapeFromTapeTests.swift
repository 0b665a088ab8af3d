import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// A stub kept as text has its shape compiled from simdjson's tape (`JSONShape(stubTape:rules:)`); it must be exactly
/// the shape its `JSONValue` compiles to, with and without rules.
@Suite struct JSONShapeFromTapeTests {
    private static func pattern(_ text: String) -> JSONPathPattern {
        do { return try JSONPathPattern(text) } catch { fatalError("\(text): \(error)") }
    }

    /// Rules over the generator's keys (`a` … `f`) at several depths, one set per case.
    private static let ruleSets: [ContractRules] = [
        ContractRules(),
        ContractRules(ignore: [pattern("$.a"), pattern("$[*].b")], optional: [pattern("$.c"), pattern("$.a.d")]),
        ContractRules(nullable: [pattern("$.b"), pattern("$[*].a")], maps: [pattern("$.e"), pattern("$[*].f")]),
        ContractRules(
            maps: [pattern("$")], formats: [ContractRules.FormatRule(pattern("$.a"), .uuid)],
            values: [ContractRules.ValuesRule(pattern("$.b"), [.string("x"), .integer(1)])]),
    ]

    private func shapes(_ text: Data, rules: ContractRules, parser: JSONParser) throws -> (JSONShape, JSONShape) {
        let fromValue = JSONShape(stub: try JSONReader().value(text), rules: rules)
        let fromTape = try parser.withDocument(text) { tape in
            JSONShape(stubTape: tape, textLength: text.count, rules: rules)
        }
        return (fromValue, fromTape)
    }

    @Test func randomStubsCompileToTheSameShapeEitherWay() throws {
        var random = SplitMix(state: 0x5EED)
        let parser = try JSONParser()
        var differing: [String] = []
        for round in 0..<3_000 {
            let text = Data(Self.randomValue(depth: 0, using: &random).serialized())
            let rules = Self.ruleSets[round % Self.ruleSets.count]
            let (fromValue, fromTape) = try shapes(text, rules: rules, parser: parser)
            if fromValue != fromTape { differing.append(String(decoding: text, as: UTF8.self)) }
        }
        #expect(differing.isEmpty, "\(differing.prefix(3))")
    }

    @Test func theRealWorldBodiesCompileToTheSameShapeEitherWay() throws {
        let parser = try JSONParser()
        let folder = FixturePaths.realWorld
        var bodies = 0
        for name in ["github.har", "github-quirks.har"] {
            let har = try JSONReader().value(Data(contentsOf: folder.appendingPathComponent(name)))
            guard case .array(let entries) = har["log"]?["entries"] else { continue }
            for entry in entries {
                guard case .string(let body) = entry["response"]?["content"]?["text"],
                    let (fromValue, fromTape) = try? shapes(Data(body.utf8), rules: ContractRules(), parser: parser)
                else { continue }
                bodies += 1
                #expect(fromValue == fromTape, "\(body.prefix(200))")
            }
        }
        #expect(bodies > 5)
    }

    /// Objects with repeated and shared keys, arrays of mixed elements, every scalar type, nulls, empty containers.
    static func randomValue(depth: Int, using random: inout SplitMix) -> JSONValue {
        let keys = ["a", "b", "c", "d", "e", "f", "a_longer_key_than_sixteen_bytes", "é"]
        switch Int.random(in: 0..<(depth > 3 ? 7 : 10), using: &random) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &random))
        case 2: return .integer(Int64.random(in: -5...5, using: &random))
        case 3: return .double(Double(Int.random(in: -9...9, using: &random)) / 4)
        case 4: return .string(keys.randomElement(using: &random)!)
        case 5: return .unsignedInteger(UInt64(Int64.max) + 1)
        case 6: return .string("")
        case 7, 8:
            let count = Int.random(in: 0...4, using: &random)
            return .object(
                (0..<count).map { _ in
                    JSONMember(keys.randomElement(using: &random)!, randomValue(depth: depth + 1, using: &random))
                })
        default:
            let count = Int.random(in: 0...4, using: &random)
            return .array((0..<count).map { _ in randomValue(depth: depth + 1, using: &random) })
        }
    }
}
