import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

@Suite struct ShapeCheckDocumentTests {
    @Test func reportsEveryFindingInDocumentOrder() throws {
        let stub = #"""
            {"id": 1, "name": "x", "owner": {"login": "o", "id": 2, "site_admin": false},
             "topics": ["a"], "score": 1.5, "license": {"key": "mit"}}
            """#
        let live = #"""
            {"id": "1", "name": null, "owner": {"id": 2.5, "site_admin": "no", "type": "User"},
             "topics": ["a", 3], "score": 4, "license": null, "fork": false}
            """#
        #expect(
            try structureFindings(stub: stub, live: live) == [
                #"drift $.id: expected integer, got string "1": change the property's type, or fix the stub"#,
                "drift $.name: unexpected null (stub has string): make the property optional, or fix the stub",
                "drift $.owner.id: expected integer, got fractional number 2.5: declare it Double, or fix the stub",
                #"drift $.owner.site_admin: expected boolean, got string "no": change the property's type, or fix the stub"#,
                "note $.owner.type: key not in stub (string)",
                "drift $.owner.login: missing key (stub has string): make the property optional, or fix the stub",
                "drift $.topics[1]: expected string, got number 3: change the property's type, or fix the stub",
                "drift $.license: unexpected null (stub has object): make the property optional, or fix the stub",
                "note $.fork: key not in stub (boolean)",
            ])
    }

    @Test func repeatedFindingsAreReportedOnceWithACount() throws {
        let stub = #"{"items": [{"id": 1, "price": 1.5}]}"#
        var items: [String] = []
        for index in 0..<50 {
            items.append(index < 3 ? #"{"id": \#(index), "price": 2}"# : #"{"id": \#(index), "price": "12.50"}"#)
        }
        items.append(#"{"id": 50, "price": true}"#)
        items.append(#"{"price": 1}"#)
        items.append(#"{"price": 1}"#)
        let live = #"{"items": [\#(items.joined(separator: ","))]}"#
        #expect(
            try structureFindings(stub: stub, live: live) == [
                #"drift $.items[3].price: expected number, got string "12.50" … and in 46 more elements: change the property's type, or fix the stub"#,
                "drift $.items[50].price: expected number, got boolean true: change the property's type, or fix the stub",
                "drift $.items[51].id: missing key (stub has integer) … and in 1 more element: make the property optional, or fix the stub",
            ])
    }

    @Test func repeatedUnknownKeysAreCountedPerPathWhateverTheirOrder() throws {
        let stub = #"[{"id": 1, "owner": {"login": "o"}}]"#
        let live = #"""
            [{"id": 1, "a": 1, "b": "x", "owner": {"login": "p", "z": null}},
             {"b": "y", "id": 2, "a": 2, "owner": {"login": "q"}},
             {"id": 3, "c": true, "owner": {"z": 1, "login": "r"}, "a": 3},
             {"a": 4, "id": 4, "owner": {"login": "s", "z": 2}, "b": "z", "c": false}]
            """#
        #expect(
            try structureFindings(stub: stub, live: live) == [
                "note $[0].a: key not in stub (number) … and in 3 more elements",
                "note $[0].b: key not in stub (string) … and in 2 more elements",
                "note $[0].owner.z: key not in stub (null) … and in 2 more elements",
                "note $[2].c: key not in stub (boolean) … and in 1 more element",
            ])
    }

    @Test func strictModeMakesUnknownKeysDrifts() throws {
        let stub = #"{"a": 1, "b": {"c": 2}}"#
        let live = #"{"a": 1, "x": [], "b": {"c": 2, "d": null}}"#
        #expect(
            try structureFindings(stub: stub, live: live, strict: true) == [
                "drift $.x: key not in stub (array): add it to the stub, or drop --strict",
                "drift $.b.d: key not in stub (null): add it to the stub, or drop --strict",
            ])
        #expect(
            try structureFindings(stub: stub, live: live, strict: false) == [
                "note $.x: key not in stub (array)", "note $.b.d: key not in stub (null)",
            ])
    }

    @Test func objectsWithMoreThan64KeysTrackEveryKey() throws {
        let names = (0..<70).map { "k\($0)" }
        let stub = "{" + names.map { #""\#($0)": 1"# }.joined(separator: ",") + "}"
        let live =
            "{"
            + names.filter { $0 != "k3" && $0 != "k66" }.reversed().map { #""\#($0)": 1"# }
            .joined(separator: ",") + "}"
        #expect(
            try structureFindings(stub: stub, live: live) == [
                "drift $.k3: missing key (stub has integer): make the property optional, or fix the stub",
                "drift $.k66: missing key (stub has integer): make the property optional, or fix the stub",
            ])
        #expect(try structureFindings(stub: stub, live: stub) == [])
    }

    @Test func emptyBody() throws {
        #expect(
            try structureFindings(stub: "{}", live: "") == [
                "drift body: expected a JSON body, got an empty body: make sampleData empty, or fix the stub"
            ])
        #expect(
            try structureFindings(stub: "{}", live: " \n") == [
                "drift body: expected a JSON body, got an empty body: make sampleData empty, or fix the stub"
            ])
    }

    @Test func textBody() throws {
        let html = "<html>\n<head><title>502 Bad Gateway</title></head>\n<body>" + String(repeating: "x", count: 200)
        let result = try structureFindings(stub: "{}", live: html)
        #expect(result.count == 1)
        #expect(
            result.first?.hasPrefix(
                "drift body: expected a JSON body, got text: <html> <head><title>502 Bad Gateway</title></head> <body>xxx…; not valid JSON: "
            )
                == true)
    }

    @Test func truncatedJSONBodySaysWhere() throws {
        #expect(
            try structureFindings(stub: "{}", live: #"{"a": [1, 2"#) == [
                #"drift body: expected a JSON body, got text: {"a": [1, 2; not valid JSON: the input ends inside an array (missing ']') around line 1, column 12: check the request's path (an error page?), or make sampleData text"#
            ])
    }

    @Test func bodyThatIsNotUTF8() throws {
        let live = Data(#"{"name": "caf"#.utf8) + Data([0xE9]) + Data(#""}"#.utf8)
        let result = ShapeCheck.findings(stub: .object([JSONMember("name", .string("x"))]), live: live)
        #expect(
            renderedFindings(result) == [
                "drift body: expected a JSON body, got bytes that are not UTF-8 (at byte 13): check the request's path, or make sampleData base64"
            ])
    }

    @Test func bodyNestedTooDeep() throws {
        let live = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(
            try structureFindings(stub: "[]", live: live) == [
                "drift body: nested deeper than 1024 levels around line 1, column 1025"
            ])
    }

    @Test func bodyWithANumberOutOfRange() throws {
        let result = try structureFindings(stub: #"{"n": 1}"#, live: #"{"n": 1e400}"#)
        #expect(
            result == [
                "drift body: number out of range (integers beyond 64 bits and values such as 1e400 are not supported): 1e400 around line 1, column 7"
            ])
    }

    @Test func deepMatchingDocumentsAreWalkedWithoutRecursion() throws {
        // 1000 levels: within the parser's limit, deeper than a recursive walk would like on a small stack.
        let depth = 1000
        let stub = String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth)
        let live = String(repeating: #"{"a":"#, count: depth) + #""x""# + String(repeating: "}", count: depth)
        let result = try structureFindings(stub: stub, live: live)
        #expect(result.count == 1)
        #expect(
            result.first?.hasSuffix(
                #".a: expected integer, got string "x": change the property's type, or fix the stub"#)
                == true)
        #expect(try structureFindings(stub: stub, live: stub) == [])
    }

    @Test func largeBodyWithOneDriftAtTheEnd() throws {
        let element = #"{"id": 1, "name": "repo", "owner": {"login": "o", "id": 2}, "score": 1.5, "tags": ["a"]}"#
        let stub = "[" + element + "]"
        let count = 50_000
        var live = "["
        live.reserveCapacity(count * element.utf8.count)
        for _ in 0..<count - 1 { live += element + "," }
        live += #"{"id": 1, "name": "repo", "owner": {"login": null, "id": 2}, "score": 1.5, "tags": ["a"]}]"#
        #expect(live.utf8.count > 4_000_000)
        #expect(
            try structureFindings(stub: stub, live: live) == [
                "drift $[49999].owner.login: unexpected null (stub has string): make the property optional, or fix the stub"
            ])
    }
}
