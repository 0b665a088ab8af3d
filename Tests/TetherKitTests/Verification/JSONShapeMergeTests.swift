import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// The merge of stub array elements, for narrow objects (linear key search) and wide ones (over 32 keys).
@Suite struct JSONShapeMergeTests {
    private func object(_ keys: [String]) -> JSONValue { .object(keys.map { JSONMember($0, .integer(1)) }) }

    @Test(arguments: [3, 40])
    func aKeyMissingFromSomeStubElementsIsOptionalAndOneInAllIsRequired(width: Int) {
        let keys = (0..<width).map { "k\($0)" }
        let stub = JSONValue.array([object(keys), object(Array(keys.dropLast()))])
        let liveWithoutLast = "[" + String(decoding: object(Array(keys.dropLast())).serialized(), as: UTF8.self) + "]"
        #expect(ShapeCheck.findings(stub: stub, live: Data(liveWithoutLast.utf8)).filter(\.isDrift).isEmpty)
        let liveWithoutFirst = "[" + String(decoding: object(Array(keys.dropFirst())).serialized(), as: UTF8.self) + "]"
        let drifts = ShapeCheck.findings(stub: stub, live: Data(liveWithoutFirst.utf8)).filter(\.isDrift)
        #expect(drifts.map(\.path) == ["$[0].k0"])
    }

    @Test func aKeyRepeatedInOneStubObjectCountsOnce() {
        let stub = JSONValue.array([
            .object([JSONMember("a", .integer(1)), JSONMember("a", .string("x"))]),
            .object([JSONMember("a", .integer(2))]),
        ])
        // Required (in both elements), typed by the first occurrence only: an integer. The repeat is a drift of its
        // own, at the first element's second `a`.
        #expect(drifts(stub, #"[{"a": 5}]"#) == ["repeatedKey $[0].a"])
        #expect(drifts(stub, #"[{}]"#) == ["repeatedKey $[0].a", "missingKey $[0].a"])
    }

    /// The drifts' rules and paths.
    private func drifts(_ stub: JSONValue, _ live: String) -> [String] {
        ShapeCheck.findings(stub: stub, live: Data(live.utf8)).filter(\.isDrift).map { "\($0.rule) \($0.path)" }
    }

    /// One stub object (no merge: `JSONShape.compileMembers`), narrow and wide (over 64 members with the repeats):
    /// a repeated key counts once, typed by its first occurrence, and stays required; the key after the repeats
    /// keeps its own type.
    @Test(arguments: [1, 40])
    func aKeyRepeatedInTheOnlyStubObjectCountsOnce(width: Int) {
        let padding = (0..<width).map { JSONMember("k\($0)", .integer(1)) }
        let stub = JSONValue.object(
            padding + [JSONMember("a", .integer(1))] + padding + [
                JSONMember("a", .string("x")), JSONMember("z", .bool(true)),
            ])
        let live = { (a: String?) in
            let members =
                padding.map { "\"\($0.key)\": 1" } + (a.map { ["\"a\": \($0)"] } ?? []) + ["\"z\": true"]
            return Data(("{" + members.joined(separator: ", ") + "}").utf8)
        }
        // Every key is there twice (the padding too), each a drift of its own at its second place.
        let repeats = padding.map { "repeatedKey $.\($0.key)" } + ["repeatedKey $.a"]
        #expect(drifts(stub, String(decoding: live("5"), as: UTF8.self)) == repeats)
        #expect(drifts(stub, String(decoding: live("\"x\""), as: UTF8.self)) == repeats + ["type $.a"])
        #expect(drifts(stub, String(decoding: live(nil), as: UTF8.self)) == repeats + ["missingKey $.a"])
    }

    /// Caught by the structure fuzzer's self-check (input: `Fuzz/Corpus/structure/regression-canonically-equal-keys`):
    /// `"\u00e9"` and `"e\u0301"` are two JSON keys, but Swift's `String` equality merged them into one, so a stub
    /// did not hold against itself and a live object with only the second key drifted.
    @Test(arguments: [1, 40])
    func keysThatSwiftCallsEqualButDifferInBytesStayApart(width: Int) {
        let padding = (0..<width).map { JSONMember("k\($0)", .integer(1)) }
        let stub = JSONValue.object(
            padding + [JSONMember("\u{E9}", .integer(1)), JSONMember("e\u{301}", .string("x"))])
        let findings = ShapeCheck.findings(stub: stub, live: stub.serialized(), strict: true)
        #expect(findings.isEmpty)
        let elements = JSONValue.array([
            .object(padding + [JSONMember("\u{E9}", .integer(1))]),
            .object(padding + [JSONMember("e\u{301}", .integer(2))]),
        ])
        let live = Data((#"[{"# + padding.map { #""\#($0.key)":1,"# }.joined() + "\"e\u{301}\":2}]").utf8)
        #expect(ShapeCheck.findings(stub: elements, live: live, strict: true).filter(\.isDrift).isEmpty)
    }
}
