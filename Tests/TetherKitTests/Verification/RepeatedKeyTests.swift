import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// A key a stub object has twice is a drift at its second place: `JSONDecoder` reads the first value and
/// `JSONSerialization` the last, so the app's reading of the stub depends on which it uses. The shape finds the
/// repeat while it compiles (`JSONShape.hasRepeatedKey`), and only then is the stub walked again for the places.
@Suite struct RepeatedKeyTests {
    /// The drifts' rules and paths, from the stub as a value (`ShapeCheck`) and as text (a manifest's, read from
    /// simdjson's tape by `ContractCheck`): the two must agree.
    private func drifts(_ stub: String, _ live: String, rules: ContractRules = ContractRules()) throws -> [String] {
        let value = try JSONValue.parse(Data(stub.utf8))
        let fromValue = ShapeCheck.findings(stub: value, live: Data(live.utf8), rules: rules)
        var contract = Contract(
            service: "S", name: "t", baseURL: "http://127.0.0.1:9", request: HTTPRequest(method: "GET", url: "/t"),
            sampleData: StubBody.classify(Data(stub.utf8)).body, source: "t")
        contract.rules = rules
        let fromText = ContractCheck.findings(
            contract: contract, response: HTTPResponse(statusCode: 200, body: Data(live.utf8), url: "/t"),
            parser: try JSONParser())
        #expect(fromValue == fromText, "\(fromValue)\nvs\n\(fromText)")
        return fromValue.filter(\.isDrift).map { "\($0.rule) \($0.path)" }
    }

    @Test func eachRepeatedKeyIsADriftAtItsPlaceInDocumentOrder() throws {
        let stub = #"""
            {"id": 1, "user": {"n": 1, "n": 2, "n": 3, "m": true}, "id": "x",
             "items": [{"a": 1}, {"a": 2, "b": 1, "a": 3}], "later": {"k": 1}, "later": {"k": 1, "k": 2}}
            """#
        let live = #"{"id": 5, "user": {"n": 1, "m": false}, "items": [{"a": 1, "b": 2}], "later": {"k": 1}}"#
        // Once per key and object (`n` three times is one drift); inside a value that is itself a repeat (the
        // second `later`), nothing: the check never reads it. The structure's own findings follow.
        #expect(
            try drifts(stub, live) == [
                "repeatedKey $.user.n", "repeatedKey $.id", "repeatedKey $.items[1].a", "repeatedKey $.later",
            ])
        // Without repeats, nothing of the kind.
        #expect(try drifts(#"{"id": 1, "user": {"n": 1}}"#, #"{"id": 2, "user": {"n": 3}}"#).isEmpty)
    }

    /// Wide objects take other paths in the shape (a set over 64 members) and in the walk (a dictionary over 16).
    @Test(arguments: [3, 20, 70])
    func wideObjectsFindTheirRepeatsToo(width: Int) throws {
        let members = (0..<width).map { #""k\#($0)": \#($0)"# }
        let stub = "{" + (members + [#""k1": "again""#]).joined(separator: ", ") + "}"
        let live = "{" + members.joined(separator: ", ") + "}"
        #expect(try drifts(stub, live) == ["repeatedKey $.k1"])
        #expect(try drifts("[" + stub + ", " + live + "]", "[" + live + "]") == ["repeatedKey $[0].k1"])
    }

    /// Keys that Swift's `String` calls equal but whose bytes differ are two keys, not a repeat.
    @Test func keysAreComparedByTheirBytes() throws {
        #expect(try drifts("{\"\u{E9}\": 1, \"e\u{301}\": 2}", "{\"\u{E9}\": 1, \"e\u{301}\": 2}").isEmpty)
    }

    @Test func anIgnoredPlaceIsNotNamedAndAMapsKeysAre() throws {
        let stub = #"{"meta": {"a": 1, "a": 2}, "byID": {"x": {"n": 1}, "x": {"n": 2}}}"#
        let live = #"{"meta": {"a": 1}, "byID": {"y": {"n": 3}}}"#
        var rules = ContractRules()
        rules.ignore = [try JSONPathPattern("$.meta")]
        rules.maps = [try JSONPathPattern("$.byID")]
        #expect(try drifts(stub, live, rules: rules) == ["repeatedKey $.byID.x"])
    }

    /// On random stubs (repeated keys among them), the shape sees a repeat exactly when some object has one, and the
    /// walk then names at least one; the stub without its repeats holds against itself.
    @Test func theShapeAndTheWalkAgreeOnRandomStubs() throws {
        var random = SplitMix(state: 0xD0B1E)
        var repeated = 0
        for _ in 0..<2_000 {
            let stub = JSONShapeFromTapeTests.randomValue(depth: 0, using: &random)
            let expected = Self.hasRepeatedKey(stub)
            let shape = JSONShape(stub: stub)
            #expect(shape.hasRepeatedKey == expected, "\(String(decoding: stub.serialized(), as: UTF8.self))")
            #expect(ShapeCheck.repeatedKeys(in: stub).isEmpty == !expected)
            if expected { repeated += 1 }
        }
        #expect(repeated > 100)
    }

    /// An independent reading: some object, anywhere, has a key twice (by bytes).
    private static func hasRepeatedKey(_ value: JSONValue) -> Bool {
        switch value {
        case .object(let members):
            let keys = members.map { Array($0.key.utf8) }
            return Set(keys).count != keys.count || members.contains { hasRepeatedKey($0.value) }
        case .array(let elements): return elements.contains { hasRepeatedKey($0) }
        default: return false
        }
    }

    /// Against an OpenAPI document, the repeat is the stub's, whatever the service and the spec say at that place,
    /// and named once though both of the stub's checks find it.
    @Test func theTriangleBlamesTheStubOnce() {
        let live = [
            Finding(.drift, .repeatedKey, at: .jsonPath("$.id"), "twice"),
            Finding(.drift, .type, at: .jsonPath("$.id"), "expected integer", expected: "integer"),
        ]
        let stub = [Finding(.drift, .repeatedKey, at: .jsonPath("$.id"), "twice", culprit: .stub)]
        let service = [Finding(.drift, .specSchema, at: .jsonPath("$.id"), "breaks", culprit: .service)]
        let judged = SpecTriangle.judge(live: live, stub: stub, service: service)
        #expect(judged.map { "\($0.rule) \($0.culprit?.rawValue ?? "-")" } == ["repeatedKey stub", "type service"])
        // Only the stub's check found it (the status differed, so the body was not compared): named once still.
        let alone = SpecTriangle.judge(live: [], stub: stub, service: service)
        #expect(
            alone.map { "\($0.rule) \($0.culprit?.rawValue ?? "-")" } == ["repeatedKey stub", "specSchema service"])
    }
}
