import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// 0.2 baselines still load: for the drifts real checks make, the 0.3 key (read from the finding's typed fields) is
/// the key 0.2 cut from the message, or, for the few rules whose 0.2 key held a live value, that key as
/// `BaselineFile.Drift.migrated` reads it from a version 1 file.
@Suite struct BaselineGateCompatibilityTests {
    /// 0.2's key, kept here as the reference: indices as `[*]` anywhere in the path string, and the message's head
    /// before `, got`, ` (` and `: `, cut in that order (a validationType drift had a fixed rule).
    static func legacyKey(_ finding: Finding) -> BaselineFile.Drift {
        var rule: String
        if finding.path == "status" && finding.message.contains("outside the target's validationType") {
            rule = "outside validationType"
        } else {
            var head = Substring(finding.message)
            for marker in [", got", " (", ": "] {
                if let range = head.range(of: marker) { head = head[..<range.lowerBound] }
            }
            rule = String(head)
        }
        var output = ""
        var rest = Substring(finding.path)
        while let open = rest.firstIndex(of: "[") {
            output += rest[..<open]
            let after = rest[rest.index(after: open)...]
            if let close = after.firstIndex(of: "]"), close > after.startIndex, after[..<close].allSatisfy(\.isNumber) {
                output += "[*]"
                rest = after[after.index(after: close)...]
            } else {
                output += "["
                rest = after
            }
        }
        return BaselineFile.Drift(path: output + rest, rule: rule)
    }

    private static func contract(
        _ stub: StubBody, status: Int = 200, headers: [HTTPHeader] = [], valid: [Int]? = nil,
        rules: ContractRules = ContractRules()
    ) -> Contract {
        Contract(
            service: "S", name: "t", baseURL: "http://127.0.0.1",
            request: HTTPRequest(method: "GET", url: "http://x/t"),
            sampleData: stub, sampleResponse: .network(statusCode: status, headers: headers), validStatusCodes: valid,
            source: "test", rules: rules)
    }

    private static func json(_ text: String) -> StubBody {
        (try? JSONValue.parse(Data(text.utf8))).map { StubBody.json($0) } ?? .none
    }

    private static func findings(
        _ contract: Contract, _ body: Data, status: Int = 200, headers: [HTTPHeader] = [], strict: Bool = false
    ) -> [Finding] {
        ContractCheck.findings(
            contract: contract,
            response: HTTPResponse(statusCode: status, headers: headers, body: body, url: "http://x/t"),
            isStrict: strict
        ).filter(\.isDrift)
    }

    /// The drifts of real checks: every rule the CLI can put in a baseline, on bodies chosen to make it fire.
    static func corpus() throws -> [Finding] {
        let pattern = { (text: String) throws -> JSONPathPattern in try JSONPathPattern(text) }
        let xml = [HTTPHeader("Content-Type", "application/xml")]
        let feed = #"<f xmlns="urn:a" v="1"><t>x</t><e id="1"><k>1</k></e><e id="2"><k>2</k></e></f>"#
        func xmlFindings(_ live: String, strict: Bool = false) -> [Finding] {
            findings(contract(.text(Data(feed.utf8)), headers: xml), Data(live.utf8), headers: xml, strict: strict)
        }
        var all: [Finding] = []
        let stub = json(#"{"a": 1, "s": "x", "b": 2, "items": [{"id": 1}], "n": null}"#)
        all += findings(
            contract(stub), Data(#"{"a": "x", "s": null, "items": [{"id": 1}, {"id": 2.5}, {}], "z": 1}"#.utf8),
            strict: true)
        all += findings(contract(stub), Data(#"[1]"#.utf8))
        let ruled = ContractRules(
            formats: [
                .init(try pattern("$.at"), .dateTime), .init(try pattern("$.mail"), .email),
                .init(try pattern("$.n"), .int32),
            ],
            values: [.init(try pattern("$.state"), [.string("open"), .string("closed")])])
        all += findings(
            contract(json(#"{"at": "2024-01-01T00:00:00Z", "mail": "a@b.c", "n": 1, "state": "open"}"#), rules: ruled),
            Data(#"{"at": "yesterday", "mail": "nobody", "n": 4294967296, "state": "gone"}"#.utf8))
        all += findings(contract(stub), Data())
        all += findings(contract(stub), Data("<html>error (500): oops</html>".utf8))
        all += findings(contract(stub), Data([0x7B, 0x22, 0xFF, 0x22, 0x7D]))
        all += findings(
            contract(stub), Data((String(repeating: "[", count: 2000) + String(repeating: "]", count: 2000)).utf8))
        all += findings(contract(stub), Data(#"{"a": 1e400}"#.utf8))
        all += findings(contract(.text(Data("hello".utf8))), Data())
        all += findings(contract(.text(Data("hello".utf8))), Data(#"{"a": 1}"#.utf8))
        all += findings(contract(stub), Data(), status: 404)
        all += findings(contract(stub, rules: ContractRules(status: [200, 201])), Data(), status: 404)
        all += findings(
            contract(stub, status: 404, valid: Array(200...299)),
            Data(#"{"a": 1, "s": "x", "b": 2, "items": [], "n": 1}"#.utf8), status: 404)
        all += findings(
            contract(
                stub,
                headers: [
                    HTTPHeader("Content-Type", "application/json"), HTTPHeader("X-Version", "2"),
                    HTTPHeader("Set-Cookie", "a=1"),
                ]), Data(#"{"a": 1, "s": "x", "b": 2, "items": [], "n": 1}"#.utf8),
            headers: [HTTPHeader("Content-Type", "text/html"), HTTPHeader("Set-Cookie", "b=2")])
        all += [try #require(BodyCoverage.exhaustiveFinding(for: contract(.none)))]
        all += xmlFindings(#"<g xmlns="urn:a"/>"#)
        all += xmlFindings(
            #"<f xmlns="urn:a" w="2"><t><b/></t><e><k>1</k><q/></e><e id="3"><k><i/></k></e></f>"#, strict: true)
        all += xmlFindings(#"<f xmlns="urn:a" v="1"><t>x</t><b:e xmlns:b="urn:b"/></f>"#)
        all += xmlFindings(#"<f xmlns="urn:a" v="1"><e id="1"><k>1</k></e></f>"#)
        all += xmlFindings("")
        all += xmlFindings("<f><unclosed></f>")
        all += xmlFindings(#"<?xml version="1.0"?><!-- nothing -->"#)
        all += xmlFindings(#"<!DOCTYPE f [<!ENTITY x "y">]><f xmlns="urn:a" v="1">&x;</f>"#)
        return all
    }

    @Test func realDriftsKeepTheirKeysOrTheMigrationGivesThem() throws {
        let drifts = try Self.corpus()
        // Every rule the CLI can put in a baseline is in the corpus (the Swift API's are not: it writes none; nor is
        // a body too large for the parser, 4 GB).
        let swiftAPIOnly: Set<Finding.Rule> = [.decode, .notVerified, .stubNotXML, .tooLarge]
        let notes: Set<Finding.Rule> = [.notCompared, .stubNull, .emptyStubArray, .specNotChecked]
        // Nor are the rules new in 0.3 (an OpenAPI document's, a stub's repeated key): no baseline of 0.2 holds them.
        let specOnly: Set<Finding.Rule> = [
            .specOperation, .specParameter, .specRequestBody, .specStatus, .specHeader, .specMediaType, .specSchema,
            .repeatedKey,
        ]
        #expect(
            Set(drifts.map(\.rule))
                == Set(Finding.Rule.allCases).subtracting(swiftAPIOnly).subtracting(notes).subtracting(specOnly),
            "\(Set(Finding.Rule.allCases).subtracting(drifts.map(\.rule)))")
        let contract = Self.contract(.none)
        var migrated: Set<Finding.Rule> = []
        for drift in drifts {
            let key = BaselineGate.drift(of: drift, in: contract)
            let legacy = Self.legacyKey(drift)
            #expect(key == legacy.migrated, "\(drift.rule): \(drift)")
            if legacy != key { migrated.insert(drift.rule) }
            #expect(key.rule != drift.message)
        }
        // Only the rules whose 0.2 key held a live value (or a parse error's place) changed.
        #expect(migrated.isSubset(of: [.format, .value, .allowedStatus, .tooDeep, .content]), "\(migrated)")
    }

    @Test func aVersion1BaselineKeepsItsDriftsKnown() throws {
        let drifts = try Self.corpus()
        let contract = Self.contract(.none)
        let legacy = drifts.map(Self.legacyKey)
        let entries = legacy.map { #"{ "path": \#(quoted($0.path)), "rule": \#(quoted($0.rule)) }"# }
        let text = """
            {"tetherBaseline": 1, "targets": [
              {"service": "S", "target": "t", "hasPassed": false, "drifts": [\(entries.joined(separator: ",\n"))]}
            ]}
            """
        let path = NSTemporaryDirectory() + "tether-baseline-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let gate = BaselineGate(file: try BaselineFile.load(path: path))
        let marked = gate.mark(ContractResult(contract: contract, outcome: .drifted, findings: drifts))
        #expect(marked.isKnownDrift)
        #expect(marked.knownDrifts.count == drifts.count)
        // Written again, it is version 2, with the value-free keys.
        let written = String(decoding: gate.updated(with: [marked]).serialized(), as: UTF8.self)
        #expect(written.contains(#""tetherBaseline": 2"#))
        #expect(!written.contains("yesterday") && !written.contains("gone") && !written.contains("4294967296"))
    }

    private func quoted(_ text: String) -> String {
        String(decoding: JSONValue.string(text).serialized(), as: UTF8.self)
    }
}
