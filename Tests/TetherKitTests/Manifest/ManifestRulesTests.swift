import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

private func shop(rules: String = "", targetRules: String, stub: String = #"{"id": 1, "state": "open"}"#) -> String {
    let service = rules.isEmpty ? "" : #""rules": \#(rules), "#
    return #"""
        {"service": "Shop", "baseURL": "http://127.0.0.1:9", \#(service)"targets": [
          {"name": "order", "path": "/o", "sampleData": {"json": \#(stub)}, "rules": \#(targetRules)},
          {"name": "other", "path": "/p", "sampleData": {"json": {"other": true}}}
        ]}
        """#
}

/// The manifest's `"rules"`: read, checked against the stubs, merged over the service's.
@Suite struct ManifestRulesTests {
    func load(_ manifest: String) throws -> [Contract] {
        let folder = try ContractFolder(["api.json": manifest])
        return try ManifestLoader(environment: [:]).load(paths: [folder.path])
    }

    /// Every error as `file:line:column: error: location: message`, the folder's path taken out.
    func errors(_ manifest: String) throws -> [String] {
        let folder = try ContractFolder(["api.json": manifest])
        do {
            _ = try ManifestLoader(environment: [:]).load(paths: [folder.path])
            Issue.record("expected a contract error")
            return []
        } catch {
            return error.errors.map { $0.diagnostic.replacingOccurrences(of: folder.path + "/", with: "") }
        }
    }

    @Test func readsEveryRule() throws {
        let contracts = try load(
            shop(
                targetRules: #"""
                    {"ignore": ["$.id"], "optional": ["$.state"], "nullable": ["$.state"], "maps": ["$"],
                     "strict": true, "formats": {"$.id": "int32"}, "values": {"$.state": ["open", "closed"]},
                     "status": [200, 304]}
                    """#))
        let rules = try #require(contracts.first?.rules)
        #expect(rules.ignore.map(\.description) == ["$.id"])
        #expect(rules.optional.map(\.description) == ["$.state"])
        #expect(rules.nullable.map(\.description) == ["$.state"])
        #expect(rules.maps.map(\.description) == ["$"])
        #expect(rules.isStrict == true)
        let id = try JSONPathPattern("$.id")
        let state = try JSONPathPattern("$.state")
        #expect(rules.formats == [.init(id, .int32)])
        #expect(rules.values == [.init(state, [.string("open"), .string("closed")])])
        #expect(rules.status == [200, 304])
        #expect(contracts.last?.rules.isEmpty == true)
    }

    @Test(arguments: [
        ("successCodes", Array(200...299)), ("successAndRedirectCodes", Array(200...399)),
    ])
    func statusTakesMoyasNames(name: String, codes: [Int]) throws {
        let contracts = try load(shop(targetRules: #"{"status": "\#(name)"}"#))
        #expect(contracts.first?.rules.status == codes)
    }

    @Test func serviceRulesApplyToTheTargetsThatHaveThePathAndTargetsOverride() throws {
        let contracts = try load(
            shop(
                rules: #"{"ignore": ["$.other"], "strict": true, "values": {"$.state": ["open"]}}"#,
                targetRules: #"{"strict": false, "values": {"$.state": ["open", "closed"]}}"#))
        #expect(contracts[0].rules.ignore.isEmpty)
        #expect(contracts[0].rules.isStrict == false)
        #expect(contracts[0].rules.values.map(\.values) == [[.string("open"), .string("closed")]])
        #expect(contracts[1].rules.ignore.map(\.description) == ["$.other"])
        #expect(contracts[1].rules.isStrict == true)
    }

    struct ErrorCase: CustomTestStringConvertible, Sendable {
        var name: String
        var manifest: String
        var expected: String
        var testDescription: String { name }
    }

    static let errorCases: [ErrorCase] = [
        ErrorCase(
            name: "a target path that matches nothing in its stub",
            manifest: shop(targetRules: #"{"ignore": ["$.stat"]}"#),
            expected:
                "api.json:2:108: error: targets[0].rules.ignore[0]: target 'order': rules.ignore: path '$.stat' matches nothing in the stub: fix the path (or the stub); a rule on a path the stub lacks would check nothing"
        ),
        ErrorCase(
            name: "a service path that matches no stub",
            manifest: shop(rules: #"{"nullable": ["$.nope"]}"#, targetRules: "{}"),
            expected:
                "api.json:1:77: error: rules.nullable[0]: rules.nullable: path '$.nope' matches nothing in any stub of service 'Shop': fix the path, or move the rule to the targets that have it"
        ),
        ErrorCase(
            name: "a stub that breaks its own values",
            manifest: shop(targetRules: #"{"values": {"$.state": ["closed"]}}"#),
            expected:
                #"api.json:2:119: error: targets[0].rules.values["$.state"]: target 'order': rules.values: the stub's own value at '$.state' breaks it: "open" is not one of closed: fix the stub or the list"#
        ),
        ErrorCase(
            name: "a stub that breaks its own formats",
            manifest: shop(targetRules: #"{"formats": {"$.state": "uuid"}}"#),
            expected:
                #"api.json:2:120: error: targets[0].rules.formats["$.state"]: target 'order': rules.formats: the stub's own value at '$.state' breaks it: "open" is not a uuid: fix the stub or the format"#
        ),
        ErrorCase(
            name: "an unknown rule",
            manifest: shop(targetRules: #"{"nullabel": ["$.state"]}"#),
            expected: "api.json:2:97: error: targets[0].rules.nullabel: unknown key (did you mean 'nullable'?)"),
        ErrorCase(
            name: "an unknown format",
            manifest: shop(targetRules: #"{"formats": {"$.id": "int23"}}"#),
            expected:
                #"api.json:2:117: error: targets[0].rules.formats["$.id"]: rules.formats: unknown format 'int23' (did you mean 'int32'?); expected one of: date-time, date, uuid, uri, email, int32, int64"#
        ),
        ErrorCase(
            name: "a path that is not a path",
            manifest: shop(targetRules: #"{"optional": ["state"]}"#),
            expected:
                "api.json:2:110: error: targets[0].rules.optional[0]: rules.optional: 'state' is not a JSON path (column 1: expected '$' (the root) first, as in $.user.email)"
        ),
        ErrorCase(
            name: "optional on something that is no key",
            manifest: shop(targetRules: #"{"optional": ["$"]}"#),
            expected:
                "api.json:2:110: error: targets[0].rules.optional[0]: target 'order': rules.optional: path '$' does not end in a key: only an object's key can be absent (use rules.ignore for an element)"
        ),
        ErrorCase(
            name: "an unknown status name",
            manifest: shop(targetRules: #"{"status": "successCode"}"#),
            expected:
                "api.json:2:107: error: targets[0].rules.status: rules.status: unknown name 'successCode' (did you mean 'successCodes'?); expected a list of status codes such as [200, 304], or one of: successCodes, successAndRedirectCodes"
        ),
    ]

    @Test(arguments: errorCases) func contractError(_ error: ErrorCase) throws {
        let actual = try errors(error.manifest)
        #expect(actual == [error.expected], "\(actual)")
    }
}

/// The built binary: a rule's finding in the report, and a broken rule stopping the run before any request.
@Suite(.serialized) struct RulesEndToEndTests {
    static func manifest(_ baseURL: String, rules: String) -> String {
        #"""
        {"service": "Shop", "baseURL": "\#(baseURL)", "rules": {"formats": {"$.id": "uuid"}}, "targets": [
          {"name": "order", "path": "/o", "rules": \#(rules),
           "sampleData": {"json": {"id": "123e4567-e89b-12d3-a456-426614174000", "state": "open", "updated_at": "x"}}}
        ]}
        """#
    }

    @Test func aBrokenRuleIsAFindingThatNamesTheRule() throws {
        let seen = SeenRequests()
        let server = try MockServer { request in
            seen.record(request)
            return .json(#"{"id": "not-a-uuid", "state": "archived"}"#, status: 201)
        }
        let folder = try ContractFolder([
            "shop.json": Self.manifest(
                server.baseURL,
                rules: #"{"values": {"$.state": ["open", "closed"]}, "ignore": ["$.updated_at"], "status": [200, 201]}"#
            )
        ])
        let run = try TetherBinary.run(["verify", folder.path, "--no-color"])
        #expect(run.exitCode == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains(#"$.state: "archived" is not one of open, closed (rules.values)"#), "\(run.stdout)")
        #expect(run.stdout.contains(#"$.id: "not-a-uuid" is not a uuid (rules.formats)"#), "\(run.stdout)")
        #expect(!run.stdout.contains("updated_at"), "\(run.stdout)")
        #expect(!run.stdout.contains("status"), "\(run.stdout)")
        #expect(try #require(run.junit).contains("(rules.values)"))
        #expect(seen.all.count == 1)
    }

    @Test func aRuleOnAPathTheStubLacksExitsTwoAndSendsNothing() throws {
        let seen = SeenRequests()
        let server = try MockServer { request in
            seen.record(request)
            return .json("{}")
        }
        let folder = try ContractFolder([
            "shop.json": Self.manifest(server.baseURL, rules: #"{"ignore": ["$.updated"]}"#)
        ])
        let run = try TetherBinary.run(["verify", folder.path, "--no-color"])
        #expect(run.exitCode == 2, "\(run.stdout)\(run.stderr)")
        #expect(
            run.stderr.contains(
                "shop.json:2:56: error: targets[0].rules.ignore[0]: target 'order': rules.ignore: path '$.updated' matches nothing in the stub"
            ),
            "\(run.stderr)")
        #expect(seen.all.isEmpty)
    }
}
