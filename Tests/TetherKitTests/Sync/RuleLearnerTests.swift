import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// What `RuleLearner` proposes for a stub and a set of answers, and what it must never propose.
@Suite struct RuleLearnerTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var stub: String
        var samples: [String]
        var rules = ContractRules()
        /// `rule path` of every proposal, in order.
        var expected: [String]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "a key absent in some answers is optional", stub: #"{"a": 1, "b": "x"}"#,
            samples: [#"{"a": 1, "b": "y"}"#, #"{"a": 2}"#], expected: ["optional $.b"]),
        Case(
            name: "a value null in some answers is nullable", stub: #"{"a": {"b": 1}}"#,
            samples: [#"{"a": null}"#, #"{"a": {"b": 2}}"#], expected: ["nullable $.a"]),
        Case(
            name: "id-keyed objects whose keys differ are maps, and their values are walked",
            stub: #"{"users": {"17": {"n": "a", "m": 1}}}"#,
            samples: [
                #"{"users": {"18": {"n": "b", "m": 1}}}"#, #"{"users": {"19": {"n": "c"}, "20": {"n": "d", "m": 2}}}"#,
            ],
            expected: ["maps $.users", "optional $.users[*].m"]),
        Case(
            name: "UUID and prefixed ids are id-like",
            stub: #"{"by": {"123e4567-e89b-12d3-a456-426614174000": 1}, "sku": {"sku-1": true}}"#,
            samples: [#"{"by": {"00000000-0000-4000-8000-000000000000": 2}, "sku": {"sku-2": false}}"#],
            expected: ["maps $.by", "maps $.sku"]),
        Case(
            name: "an object of field names is no map, even when its keys differ",
            stub: #"{"p": {"name": "a", "size": 1}}"#, samples: [#"{"p": {"name": "a"}}"#, #"{"p": {"size": 2}}"#],
            expected: ["optional $.p.name", "optional $.p.size"]),
        Case(
            name: "objects keyed by changing keys, values of one shape, are maps, with an empty answer too",
            stub: #"{"reactions": {"u1": {"emoji": "+1", "at": 1}}}"#,
            samples: [
                #"{"reactions": {"u7": {"emoji": "heart", "at": 2}}}"#,
                #"{"reactions": {"u9": {"emoji": "+1", "at": 3}, "u3": {"emoji": "eyes"}}}"#,
                #"{"reactions": {}}"#,
            ],
            expected: ["maps $.reactions", "optional $.reactions[*].at"]),
        Case(
            name: "keys that differ are no map when a key is in every object", stub: #"{"p": {"a": "x", "b": "y"}}"#,
            samples: [#"{"p": {"a": "x", "b": "y", "c": "z"}}"#, #"{"p": {"a": "x"}}"#], expected: ["optional $.p.b"]),
        Case(
            name: "keys that differ are no map when no answer brings a key the stub lacks",
            stub: #"{"p": {"name": "a", "nick": "b"}}"#, samples: [#"{"p": {"name": "a"}}"#, #"{"p": {"nick": "c"}}"#],
            expected: ["optional $.p.name", "optional $.p.nick"]),
        Case(
            name: "keys that differ are no map when the values have different shapes",
            stub: #"{"p": {"u1": {"n": 1}}}"#, samples: [#"{"p": {"u7": {"n": "x"}}}"#, #"{"p": {"u8": [1]}}"#],
            expected: []),
        Case(
            name: "a renamed key is no map: every answer has the same keys", stub: #"{"p": {"old": 1}}"#,
            samples: [#"{"p": {"new": 2}}"#, #"{"p": {"new": 3}}"#], expected: []),
        Case(
            name: "elements of arrays merge at [*]", stub: #"{"items": [{"id": 1, "d": 0.5}]}"#,
            samples: [#"{"items": [{"id": 1, "d": 0.5}, {"id": 2}]}"#, #"{"items": []}"#],
            expected: ["optional $.items[*].d"]),
        Case(
            name: "a root array of objects", stub: #"[{"id": 1, "x": null, "y": 1}]"#,
            samples: [#"[{"id": 1, "x": "a", "y": null}, {"id": 2, "x": null, "y": 3}]"#],
            expected: ["nullable $[*].y"]),
        // What is not variation: never proposed.
        Case(
            name: "a key absent from every answer is a drift, not optional", stub: #"{"a": 1, "gone": 1}"#,
            samples: [#"{"a": 1}"#, #"{"a": 2}"#], expected: []),
        Case(
            name: "a value null in every answer is a drift, not nullable", stub: #"{"a": 1}"#,
            samples: [#"{"a": null}"#, #"{"a": null}"#], expected: []),
        Case(
            name: "a changed type is never hidden", stub: #"{"a": 1, "b": {"c": 1}}"#,
            samples: [#"{"a": "1", "b": {"c": 1}}"#, #"{"a": 2, "b": [1]}"#], expected: []),
        Case(
            name: "id keys that never differ are left as they are", stub: #"{"m": {"1": 1, "2": 2}}"#,
            samples: [#"{"m": {"1": 3, "2": 4}}"#], expected: []),
        Case(
            name: "one answer shows no variation", stub: #"{"a": 1, "b": 2}"#, samples: [#"{"a": 1, "b": 2}"#],
            expected: []),
        // The target's rules are respected.
        Case(
            name: "existing rules are not proposed again, ignored paths not entered",
            stub: #"{"a": 1, "b": {"c": 1}, "m": {"1": {"x": 1}}}"#,
            samples: [#"{"b": null, "m": {"2": {}}}"#, #"{"a": 1, "b": {"c": 1}, "m": {"3": {"x": 1}}}"#],
            rules: ContractRules(
                ignore: [try! JSONPathPattern("$.b")], optional: [try! JSONPathPattern("$.a")],
                maps: [try! JSONPathPattern("$.m")]),
            expected: ["optional $.m[*].x"]),
        Case(
            name: "a key only some stub elements have is optional already", stub: #"[{"a": 1, "b": 1}, {"a": 2}]"#,
            samples: [#"[{"a": 1}]"#, #"[{"a": 1, "b": 2}]"#], expected: []),
        Case(
            name: "a stub null shows no type to learn from", stub: #"{"a": null}"#,
            samples: [#"{"a": 1}"#, #"{"a": null}"#], expected: []),
        Case(
            name: "odd keys are written in brackets", stub: #"{"e-mail": "a", "2fa": true}"#,
            samples: [#"{"e-mail": "a", "2fa": true}"#, #"{}"#],
            expected: [#"optional $["e-mail"]"#, #"optional $["2fa"]"#]),
    ]

    @Test(arguments: cases)
    func proposals(_ test: Case) throws {
        let stub = try JSONValue.parse(Data(test.stub.utf8))
        let samples = try test.samples.map { try JSONValue.parse(Data($0.utf8)) }
        let proposals = RuleLearner.proposals(stub: stub, rules: test.rules, samples: samples)
        #expect(proposals.map { "\($0.rule.rawValue) \($0.path)" } == test.expected)
        // Every proposed path reads back as the same pattern, and the stub holds its own proposals.
        for proposal in proposals {
            #expect(try JSONPathPattern(proposal.path.description).steps == proposal.path.steps)
        }
        var rules = test.rules
        rules.optional += proposals.filter { $0.rule == .optional }.map(\.path)
        rules.nullable += proposals.filter { $0.rule == .nullable }.map(\.path)
        rules.maps += proposals.filter { $0.rule == .maps }.map(\.path)
        #expect(rules.problems(stub: .json(stub)).isEmpty, "\(rules.problems(stub: .json(stub)))")
    }

    @Test func evidenceCountsAnswersAndValues() throws {
        let stub = try JSONValue.parse(Data(#"{"items": [{"d": 1}], "c": "x"}"#.utf8))
        let samples = try [
            #"{"items": [{"d": 1}, {}], "c": null}"#, #"{"items": [{}], "c": "y"}"#,
            #"{"items": [{"d": 2}], "c": "z"}"#,
        ].map { try JSONValue.parse(Data($0.utf8)) }
        let proposals = RuleLearner.proposals(stub: stub, rules: ContractRules(), samples: samples)
        #expect(
            proposals.map(\.evidence) == ["absent in 2 of 3 responses (2 of 4 values)", "null in 1 of 3 responses"])
    }

    /// Keys that are not id-like (`u7`) still make a map when they change between answers and every value has one
    /// shape; the stub's own key never coming back and an empty answer are part of that, not a missing key.
    @Test func changingKeysOfOneShapeAreAMapWithEvidence() throws {
        let stub = try JSONValue.parse(Data(#"{"reactions": {"u1": {"emoji": "+1"}}}"#.utf8))
        let samples = try [
            #"{"reactions": {"u7": {"emoji": "heart"}}}"#,
            #"{"reactions": {"u9": {"emoji": "+1"}, "u3": {"emoji": "x"}}}"#,
            #"{"reactions": {}}"#,
        ].map { try JSONValue.parse(Data($0.utf8)) }
        let proposals = RuleLearner.proposals(stub: stub, rules: ContractRules(), samples: samples)
        #expect(proposals.map { "\($0.rule.rawValue) \($0.path)" } == ["maps $.reactions"])
        #expect(
            proposals.map(\.evidence) == [
                #"keys differ between answers and every value has one shape: 3 different key sets in 3 objects (the stub's: "u1")"#
            ])
    }

    @Test(arguments: [
        ("1017", true), ("0", true), ("123e4567-e89b-12d3-a456-426614174000", true), ("9f86d081", true),
        ("user_42", true), ("sku-1001", true), ("ns:7", true), ("name", false), ("v1", false), ("deadbeef", false),
        ("_1", false), ("a b_1", false), ("", false), ("login", false), ("2fa", false),
    ])
    func idLikeKeys(key: String, isID: Bool) {
        #expect(RuleLearner.isIDLike(key) == isID)
    }
}
