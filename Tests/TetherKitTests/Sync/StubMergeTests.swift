import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

@Suite struct StubMergeTests {
    private func json(_ text: String) throws -> JSONValue { try JSONValue.parse(Data(text.utf8)) }

    @Test(arguments: [
        // A missing key is removed; the others keep the stub's curated values.
        (#"{"a": "curated", "gone": 1}"#, #"{"a": "live"}"#, false, #"{"a": "curated"}"#),
        // A type drift takes the live value; a live fraction for a stub integer too.
        (#"{"n": "1", "i": 1}"#, #"{"n": 1, "i": 2.5}"#, false, #"{"n": 1, "i": 2.5}"#),
        // A stub fraction accepts a live integer and stays.
        (#"{"f": 1.5}"#, #"{"f": 3}"#, false, #"{"f": 1.5}"#),
        // A live null where the stub has a value keeps the stub's value (the target needs a nullable rule); a stub
        // null stays whatever the live value.
        (#"{"c": "Acme", "d": null}"#, #"{"c": null, "d": {"x": 1}}"#, false, #"{"c": "Acme", "d": null}"#),
        // Extra live keys: only under strict, at the end.
        (#"{"a": 1}"#, #"{"z": true, "a": 2}"#, false, #"{"a": 1}"#),
        (#"{"a": 1}"#, #"{"z": true, "a": 2}"#, true, #"{"a": 1, "z": true}"#),
        // An array element takes the shape of every live element.
        (
            #"[{"id": 1, "tag": "x", "score": 1}]"#, #"[{"id": 5, "score": 2.5}, {"id": 6, "tag": null, "score": 3}]"#,
            false, #"[{"id": 1, "score": 2.5}]"#
        ),
        // Elements of one kind that become another take the live kind.
        (#"[1]"#, #"["a"]"#, false, #"["a"]"#),
        // Elements of several kinds (a union): each merged with the live elements of its kind, a kind the live array
        // lacks kept, a live kind the stub lacks added (each element took the last live one's kind, and the stub
        // held against none of the others).
        (#"{"xs": [1, "a", true]}"#, #"{"xs": [1, {"k": 1}, "z"]}"#, false, #"{"xs": [1, "a", true, {"k": 1}]}"#),
        (#"[1, {"a": 1, "b": 2}]"#, #"[{"a": 3}, 4.5]"#, false, #"[4.5, {"a": 1}]"#),
        (#"[1]"#, #"[2, "b", "c"]"#, false, #"[1, "b"]"#),
        // Empty arrays on either side leave the stub's.
        (#"{"a": [], "b": [1]}"#, #"{"a": [1], "b": []}"#, false, #"{"a": [], "b": [1]}"#),
        // A key a stub object has twice keeps its first value, the one the check read (the stub drifted: it held
        // both).
        (#"{"a": 1, "b": 2, "a": "x", "a": 3}"#, #"{"a": 5, "b": 6}"#, false, #"{"a": 1, "b": 2}"#),
        (#"[{"o": {"k": 1, "k": 2}}]"#, #"[{"o": {"k": 3}}]"#, true, #"[{"o": {"k": 1}}]"#),
    ])
    func mergeFollowsTheRules(stub: String, live: String, strict: Bool, expected: String) throws {
        let merged = StubMerge.merged(stub: try json(stub), live: try json(live), isStrict: strict)
        let want = try json(expected)
        #expect(merged == want)
        // What the merge makes holds against the live body, with the nullable rules it names: the structure check
        // agrees.
        var rules = ContractRules()
        rules.nullable = StubMerge.nullablePaths(stub: merged, live: try json(live))
        #expect(
            !ShapeCheck.findings(stub: merged, live: Data(live.utf8), strict: strict, rules: rules).contains {
                $0.isDrift
            })
    }

    /// The target's rules stay true after the merge: nothing they name is removed or nulled, and every rule path
    /// still names something in the new stub (else the next run would stop at a contract error).
    @Test(arguments: [
        // optional: the key absent from the live body stays; the type drift beside it is fixed.
        (#"{"bio": "b", "n": 1}"#, #"{"n": "1"}"#, #"{"optional": ["$.bio"]}"#, #"{"bio": "b", "n": "1"}"#),
        // nullable: a live null leaves the stub's typed value.
        (#"{"c": "Acme", "n": 1}"#, #"{"c": null, "n": "x"}"#, #"{"nullable": ["$.c"]}"#, #"{"c": "Acme", "n": "x"}"#),
        // ignore: the value stays as it is, whatever the live one.
        (#"{"t": {"x": 1}, "n": 1}"#, #"{"t": 5, "n": "x"}"#, #"{"ignore": ["$.t"]}"#, #"{"t": {"x": 1}, "n": "x"}"#),
        // maps: the stub's keys stay; their values take the shape of every live value.
        (
            #"{"u": {"1": {"n": "a", "s": 1}}}"#, #"{"u": {"7": {"n": "b", "s": 1.5}, "8": {"n": "c", "s": 2}}}"#,
            #"{"maps": ["$.u"]}"#, #"{"u": {"1": {"n": "a", "s": 1.5}}}"#
        ),
        // Inside array elements, [n] in a rule names every element, as in the live check.
        (
            #"{"i": [{"d": 1, "k": 1}]}"#, #"{"i": [{"k": "x"}]}"#, #"{"optional": ["$.i[0].d"]}"#,
            #"{"i": [{"d": 1, "k": "x"}]}"#
        ),
    ])
    func mergeKeepsTheRulesTrue(stub: String, live: String, rules: String, expected: String) throws {
        let manifest =
            #"{"service": "S", "baseURL": "http://127.0.0.1:9", "targets": [{"name": "t", "path": "/", "sampleData": {"json": \#(stub)}, "rules": \#(rules)}]}"#
        let folder = NSTemporaryDirectory() + "tether-merge-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data(manifest.utf8).write(to: URL(fileURLWithPath: folder + "/api.json"))
        let contractRules = try #require(try ManifestLoader(environment: [:]).load(paths: [folder]).first).rules
        let merged = StubMerge.merged(stub: try json(stub), live: try json(live), isStrict: false, rules: contractRules)
        #expect(merged == (try json(expected)))
        #expect(contractRules.problems(stub: .json(merged)).isEmpty, "\(contractRules.problems(stub: .json(merged)))")
        #expect(
            !ShapeCheck.findings(stub: merged, live: Data(live.utf8), strict: false, rules: contractRules).contains {
                $0.isDrift
            })
    }

    /// A live `null` where the stub has a value is a rule the target needs, named as the structure check walks:
    /// array elements and a map's values at `[*]`, each path once; a path the rules already allow, an ignored one
    /// and a stub `null` need none.
    @Test(arguments: [
        (#"{"c": "Acme", "d": null}"#, #"{"c": null, "d": null}"#, "{}", ["$.c"]),
        (
            #"{"items": [{"l": "Swift", "n": 1}], "o": {"p": 1}}"#,
            #"{"items": [{"l": null, "n": null}, {"l": null, "n": 2}], "o": null}"#, "{}",
            ["$.items[*].l", "$.items[*].n", "$.o"]
        ),
        (
            #"{"u": {"1": {"n": "a"}}}"#, #"{"u": {"7": {"n": null}, "8": null}}"#, #"{"maps": ["$.u"]}"#,
            ["$.u[*].n", "$.u[*]"]
        ),
        (
            #"{"a": 1, "b": 2, "t": {"x": 1}}"#, #"{"a": null, "b": null, "t": {"x": null}}"#,
            #"{"nullable": ["$.a"], "ignore": ["$.t"]}"#, ["$.b"]
        ),
    ])
    func liveNullsAreNullableRulesNotNulls(stub: String, live: String, rules: String, expected: [String]) throws {
        let manifest =
            #"{"service": "S", "baseURL": "http://127.0.0.1:9", "targets": [{"name": "t", "path": "/", "sampleData": {"json": \#(stub)}, "rules": \#(rules)}]}"#
        let folder = NSTemporaryDirectory() + "tether-merge-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data(manifest.utf8).write(to: URL(fileURLWithPath: folder + "/api.json"))
        var contractRules = try #require(try ManifestLoader(environment: [:]).load(paths: [folder]).first).rules
        let merged = StubMerge.merged(stub: try json(stub), live: try json(live), isStrict: false, rules: contractRules)
        #expect(merged == (try json(stub)), "a live null never reaches the stub")
        let paths = StubMerge.nullablePaths(stub: merged, live: try json(live), rules: contractRules)
        #expect(paths.map(\.description) == expected)
        contractRules.nullable += paths
        #expect(contractRules.problems(stub: .json(merged)).isEmpty, "\(contractRules.problems(stub: .json(merged)))")
        #expect(
            !ShapeCheck.findings(stub: merged, live: Data(live.utf8), strict: false, rules: contractRules).contains {
                $0.isDrift
            })
    }

    @Test func conflictingLiveElementsCannotBeFixed() throws {
        let live = #"[{"v": "a"}, {"v": 1}]"#
        let merged = StubMerge.merged(stub: try json(#"[{"v": "s"}]"#), live: try json(live), isStrict: false)
        #expect(ShapeCheck.findings(stub: merged, live: Data(live.utf8)).contains { $0.isDrift })
    }

    @Test func diffKeepsTheTreeAndCollapsesUnchangedSiblings() throws {
        let lines = StubDiff.lines(
            old: try json(#"{"a": 1, "b": 2, "c": 3, "d": {"x": 1, "y": "s"}, "e": [1]}"#),
            new: try json(#"{"a": 1, "b": 2, "c": 3, "d": {"x": 1, "y": null}, "e": [1], "f": true}"#))
        #expect(
            lines == [
                "  {",
                "    … (3 unchanged)",
                "    \"d\": {",
                "      … (1 unchanged)",
                "-     \"y\": \"s\"",
                "+     \"y\": null",
                "    },",
                "    … (1 unchanged)",
                "+   \"f\": true",
                "  }",
            ])
        #expect(StubDiff.lines(old: .integer(1), new: .integer(1)).isEmpty)
    }

    /// A key the stub has twice, once merged: the repeat is drawn as removed, and the first as what it became
    /// (the diff once paired the repeat with the kept key, and drew it as changed into the first's value).
    @Test func diffDrawsARepeatedKeyAsRemoved() throws {
        let stub = try json(#"{"id": 1, "name": "a", "id": "x"}"#)
        let merged = StubMerge.merged(stub: stub, live: try json(#"{"id": 2.5, "name": "b"}"#), isStrict: false)
        #expect(merged == (try json(#"{"id": 2.5, "name": "a"}"#)))
        #expect(
            StubDiff.lines(old: stub, new: merged) == [
                "  {",
                "-   \"id\": 1,",
                "+   \"id\": 2.5,",
                "    … (1 unchanged)",
                "-   \"id\": \"x\"",
                "  }",
            ])
    }
}
