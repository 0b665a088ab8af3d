import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// The baseline's policy on values: keys, known and pending marks, fixed entries, the written file, and what the
/// exit code makes of them.
@Suite struct BaselineGateTests {
    private func contract(_ name: String, isPending: Bool = false) -> Contract {
        Contract(
            service: "Demo", name: name, baseURL: "http://127.0.0.1:9",
            request: HTTPRequest(method: "GET", url: "http://127.0.0.1:9/\(name)"), sampleData: .none, source: "t",
            isPending: isPending)
    }

    private let idDrift = Finding(
        .drift, .type, at: .jsonPath("$.items[3].id"), "expected integer, got string \"7\": fix the stub",
        expected: "integer", actual: "string \"7\"")
    private let nameDrift = Finding(
        .drift, .missingKey, at: .jsonPath("$.name"), "missing key (stub has string): make it optional")

    private func drifted(_ name: String, _ findings: [Finding], isPending: Bool = false) -> ContractResult {
        ContractResult(contract: contract(name, isPending: isPending), outcome: .drifted, findings: findings)
    }

    private func report(_ results: [ContractResult], gate: BaselineGate) -> RunReport {
        RunReport(
            results: results.map(gate.mark), startedAt: Date(), duration: 0, hostname: "h",
            fixed: gate.fixed(in: results))
    }

    /// Every rule's key, from its typed fields: where (array indices as `[*]`) and the rule with the stub's side.
    static let keys: [(finding: Finding, path: String, rule: String)] = [
        (Finding(.drift, .status, at: .status, "", expected: "200", actual: "503"), "status", "expected 200"),
        (
            Finding(.drift, .allowedStatus, at: .status, "", expected: "one of 200, 201", actual: "404"), "status",
            "not one of 200, 201"
        ),
        (Finding(.drift, .validationType, at: .status, ""), "status", "outside validationType"),
        (
            Finding(.drift, .missingHeader, at: .header("X-Version"), "", expected: "2", actual: "absent"),
            "header X-Version", "missing"
        ),
        (
            Finding(
                .drift, .header, at: .header("Content-Type"), "", expected: "application/json", actual: "text/html"),
            "header Content-Type", #"expected "application/json""#
        ),
        (
            Finding(.drift, .header, at: .header("Set-Cookie"), "", expected: "<redacted>", actual: "<redacted>"),
            "header Set-Cookie", "expected <redacted>"
        ),
        (Finding(.drift, .notJSON, at: .body, ""), "body", "expected a JSON body"),
        (Finding(.drift, .tooDeep, at: .body, ""), "body", "nested too deep"),
        (Finding(.drift, .numberOutOfRange, at: .body, ""), "body", "number out of range"),
        (Finding(.drift, .tooLarge, at: .body, ""), "body", "document too large for the JSON parser"),
        (Finding(.drift, .emptyBody, at: .body, ""), "body", "expected a non-empty body"),
        (Finding(.drift, .unexpectedJSON, at: .body, ""), "body", "expected a body that is not JSON"),
        (Finding(.drift, .noBodyContract, at: .body, ""), "body", "no body contract"),
        (
            Finding(.drift, .type, at: .jsonPath("$.items[12].tags[0]"), "", expected: "string", actual: "number 3"),
            "$.items[*].tags[*]", "expected string"
        ),
        (
            Finding(.drift, .integer, at: .jsonPath("$[3].price"), "", expected: "integer", actual: "fractional 1.5"),
            "$[*].price", "expected integer"
        ),
        (
            Finding(.drift, .null, at: .json(JSONLocation([.key("a[1]")])), "", expected: "string", actual: "null"),
            #"$["a[1]"]"#, "unexpected null"
        ),
        (Finding(.drift, .missingKey, at: .jsonPath("$.name"), ""), "$.name", "missing key"),
        (Finding(.drift, .extraKey, at: .jsonPath("$.plan"), ""), "$.plan", "key not in stub"),
        (Finding(.drift, .repeatedKey, at: .jsonPath("$.items[2].id"), ""), "$.items[*].id", "key twice in the stub"),
        (
            Finding(.drift, .format, at: .jsonPath("$.at"), "", expected: "date-time", actual: #""x""#), "$.at",
            "not a date-time"
        ),
        (
            Finding(.drift, .format, at: .jsonPath("$.mail"), "", expected: "email", actual: #""x""#), "$.mail",
            "not an email"
        ),
        (
            Finding(.drift, .format, at: .jsonPath("$.n"), "", expected: "int32", actual: "4294967296"), "$.n",
            "does not fit int32"
        ),
        (
            Finding(.drift, .value, at: .jsonPath("$.state"), "", expected: #"one of ["open"]"#, actual: #""gone""#),
            "$.state", #"not one of ["open"]"#
        ),
        (Finding(.drift, .stubNotXML, at: .body, ""), "body", "the stub is not XML"),
        (Finding(.drift, .notXML, at: .body, ""), "body", "expected an XML body"),
        (Finding(.drift, .xmlEntities, at: .body, ""), "body", "the XML body declares entities in its DTD"),
        (
            Finding(.drift, .rootElement, at: .xml(XMLLocation(steps: [.init(name: "atom:feed")])), ""), "/atom:feed",
            "expected root element <feed>"
        ),
        (
            Finding(
                .drift, .missingAttribute,
                at: .xml(
                    XMLLocation(steps: [.init(name: "feed"), .init(name: "entry", position: 2)], attribute: "id")),
                ""), "/feed/entry[*]/@id", "missing attribute"
        ),
        (
            Finding(.drift, .extraAttribute, at: .xml(XMLLocation(steps: [.init(name: "feed")], attribute: "v")), ""),
            "/feed/@v", "attribute not in stub"
        ),
        (
            Finding(.drift, .content, at: .xml(XMLLocation(steps: [.init(name: "t")])), "", expected: "text"), "/t",
            "expected text"
        ),
        (
            Finding(.drift, .content, at: .xml(XMLLocation(steps: [.init(name: "t")])), "", expected: "elements"),
            "/t", "expected child elements"
        ),
        (
            Finding(.drift, .namespace, at: .xml(XMLLocation(steps: [.init(name: "f"), .init(name: "a:link")])), ""),
            "/f/a:link", "expected <link>"
        ),
        (
            Finding(.drift, .missingElement, at: .xml(XMLLocation(steps: [.init(name: "f"), .init(name: "id")])), ""),
            "/f/id", "missing element"
        ),
        (
            Finding(.drift, .extraElement, at: .xml(XMLLocation(steps: [.init(name: "f"), .init(name: "x")])), ""),
            "/f/x", "element not in stub"
        ),
        (Finding(.drift, .decode, at: .json(.root), "", expected: "User"), "$", "User does not decode"),
        (Finding(.drift, .notVerified, at: .target, ""), "target", "not verified"),
        (
            Finding(.drift, .specOperation, at: .target, "", expected: "GET /users/{username}", actual: "GET /u/x"),
            "target", "no such operation in the spec"
        ),
        (
            Finding(.drift, .specParameter, at: .query("per_page"), "", expected: "in its schema", actual: "200"),
            "query per_page", "parameter in its schema"
        ),
        (
            Finding(.drift, .specRequestBody, at: .target, "", expected: "required", actual: "absent"), "target",
            "request body required"
        ),
        (
            Finding(.drift, .specStatus, at: .status, "", expected: "200, 404", actual: "410"), "status",
            "status not in the spec"
        ),
        (
            Finding(.drift, .specHeader, at: .header("X-Total-Count"), "", expected: "in its schema", actual: "many"),
            "header X-Total-Count", "response header in its schema"
        ),
        (
            Finding(.drift, .specMediaType, at: .body, "", expected: "application/xml", actual: "application/json"),
            "body", "media type not in the spec"
        ),
        (
            Finding(
                .drift, .specSchema, at: .json(JSONLocation([.index(3), .key("state")])), "", expected: "one of [a]",
                actual: "\"b\"", culprit: .stub,
                specPlace: SpecPlace(
                    file: "openapi.yaml", pointer: "#/components/schemas/pr/properties/state/enum",
                    line: 812, column: 9)),
            "$[*].state", "breaks the spec's enum"
        ),
    ]

    /// The key is read from the rule, the location and the stub's side: no live value, and the message plays no part
    /// (reworded entirely, the key stays).
    @Test(arguments: keys)
    func keysComeFromTheRuleAndTheStubSideNotTheMessage(finding: Finding, path: String, rule: String) {
        var finding = finding
        finding.message = "expected string, got number 12 (stub has string): fix the stub"
        let key = BaselineGate.drift(of: finding, in: contract("user"))
        #expect(key == BaselineFile.Drift(path: path, rule: rule))
        finding.message = "reworded: \(UUID().uuidString), got (something): else"
        #expect(BaselineGate.drift(of: finding, in: contract("user")) == key)
    }

    /// Every rule that can make a drift has its row above; notes are never keyed.
    @Test func everyRuleThatDriftsHasAKey() {
        let notes: Set<Finding.Rule> = [.notCompared, .stubNull, .emptyStubArray, .specNotChecked]
        #expect(Set(Self.keys.map(\.finding.rule)) == Set(Finding.Rule.allCases).subtracting(notes))
    }

    @Test func aSecretNeverReachesAKey() {
        var withSecret = contract("user")
        withSecret.secrets = ["s3cr3t-token"]
        let key = BaselineGate.drift(
            of: Finding(
                .drift, .header, at: .header("X-Token"), "expected \"s3cr3t-token\", got \"x\"",
                expected: "s3cr3t-token", actual: "x"), in: withSecret)
        #expect(key.rule == #"expected "<redacted>""#)
    }

    @Test func recordedDriftIsKnownAndDoesNotFailTheGate() {
        let gate = BaselineGate(
            file: BaselineFile(targets: [
                .init(
                    service: "Demo", target: "list", hasPassed: true,
                    drifts: [.init(path: "$.items[*].id", rule: "expected integer")])
            ]))
        // The same drift on another element, another live value: still the recorded one.
        let moved = Finding(
            .drift, .type, at: .jsonPath("$.items[0].id"), "expected integer, got boolean true: fix the stub",
            expected: "integer", actual: "boolean true")
        let known = report([drifted("list", [moved])], gate: gate)
        #expect(known.results[0].isKnownDrift)
        #expect(known.exitCode == 0)
        let new = report([drifted("list", [moved, nameDrift])], gate: gate)
        #expect(!new.results[0].isKnownDrift)
        #expect(new.results[0].knownDrifts == [moved])
        #expect(new.exitCode == 1)
    }

    @Test func aTargetNewSinceTheBaselineIsPending() {
        let gate = BaselineGate(file: BaselineFile(targets: [.init(service: "Demo", target: "old", hasPassed: true)]))
        let run = report(
            [drifted("fresh", [idDrift]), ContractResult(contract: contract("old"), outcome: .passed)], gate: gate)
        #expect(run.results[0].isPending)
        #expect(!run.results[1].isPending)
        #expect(run.exitCode == 0)
        #expect(run.counts.pending == 1)
    }

    @Test func aPendingTargetFailsOnceItHasPassed() {
        let never = BaselineGate(file: BaselineFile(targets: [.init(service: "Demo", target: "p", hasPassed: false)]))
        #expect(report([drifted("p", [idDrift], isPending: true)], gate: never).exitCode == 0)
        let passed = BaselineGate(file: BaselineFile(targets: [.init(service: "Demo", target: "p", hasPassed: true)]))
        #expect(report([drifted("p", [idDrift], isPending: true)], gate: passed).exitCode == 1)
        // Without a baseline nothing remembers a pass: a pending target stays pending.
        #expect(report([drifted("p", [idDrift], isPending: true)], gate: BaselineGate()).exitCode == 0)
        #expect(report([drifted("q", [idDrift])], gate: BaselineGate()).exitCode == 1)
    }

    @Test func aPendingTargetThatCannotBeCheckedDoesNotFailTheGate() {
        let error = ContractResult(contract: contract("p", isPending: true), outcome: .error("refused"))
        let pass = ContractResult(contract: contract("q"), outcome: .passed)
        #expect(report([error, pass], gate: BaselineGate()).exitCode == 0)
        var plain = error
        plain.contract.isPending = false
        #expect(report([plain, pass], gate: BaselineGate()).exitCode == 3)
    }

    @Test func goneDriftIsFixedAndTheUpdatePrunesIt() {
        let file = BaselineFile(targets: [
            .init(
                service: "Demo", target: "user", hasPassed: false,
                drifts: [
                    .init(path: "$.name", rule: "missing key"), .init(path: "$.items[*].id", rule: "expected integer"),
                ]),
            .init(service: "Demo", target: "elsewhere", hasPassed: true, drifts: [.init(path: "$", rule: "x")]),
        ])
        let gate = BaselineGate(file: file)
        let results = [drifted("user", [idDrift])]
        let run = report(results, gate: gate)
        #expect(
            run.fixed == [
                FixedDrift(service: "Demo", target: "user", drift: .init(path: "$.name", rule: "missing key"))
            ])
        #expect(run.exitCode == 0)
        let updated = gate.updated(with: run.results)
        #expect(
            updated.target(service: "Demo", name: "user")?.drifts == [
                .init(path: "$.items[*].id", rule: "expected integer")
            ])
        // A target not checked in this run keeps its entry.
        #expect(updated.target(service: "Demo", name: "elsewhere") == file.target(service: "Demo", name: "elsewhere"))
        let fixedAll = gate.updated(with: [ContractResult(contract: contract("user"), outcome: .passed)])
        #expect(
            fixedAll.target(service: "Demo", name: "user") == .init(service: "Demo", target: "user", hasPassed: true))
    }

    @Test func aTargetNoLongerDeclaredByItsServiceIsDropped() {
        let file = BaselineFile(targets: [
            .init(service: "Demo", target: "renamed", hasPassed: true),
            .init(service: "Demo", target: "user", hasPassed: true),
            .init(service: "Other", target: "x", hasPassed: true),
        ])
        let updated = BaselineGate(file: file).updated(with: [], declared: [contract("user")])
        #expect(updated.targets.map(\.target) == ["user", "x"])
    }

    @Test func aNewTargetThatCouldNotBeCheckedIsNotAdded() {
        let updated = BaselineGate(file: BaselineFile()).updated(with: [
            ContractResult(contract: contract("down"), outcome: .error("refused"))
        ])
        #expect(updated.targets.isEmpty)
    }

    @Test func flakyFailsOnlyWhenAsked() {
        let flaky = ContractResult(contract: contract("f"), outcome: .passed, attempts: 3)
        #expect(flaky.isFlaky)
        var run = RunReport(results: [flaky], startedAt: Date(), duration: 0, hostname: "h")
        #expect(run.exitCode == 0)
        run.failsOnFlaky = true
        #expect(run.exitCode == 3)
        #expect(!ContractResult(contract: contract("g"), outcome: .drifted, attempts: 3).isFlaky)
    }

    @Test func theFileIsSortedAndReadsBack() throws {
        let file = BaselineFile(targets: [
            .init(service: "Zed", target: "a", hasPassed: true),
            .init(
                service: "Demo", target: "user \"quoted\"", hasPassed: false,
                drifts: [
                    .init(path: "$.b", rule: "missing key"), .init(path: "$.a", rule: "expected integer"),
                ]),
        ])
        let text = String(decoding: file.serialized(), as: UTF8.self)
        #expect(
            text == """
                {
                  "tetherBaseline": 2,
                  "targets": [
                    {
                      "service": "Demo",
                      "target": "user \\"quoted\\"",
                      "hasPassed": false,
                      "drifts": [
                        { "path": "$.a", "rule": "expected integer" },
                        { "path": "$.b", "rule": "missing key" }
                      ]
                    },
                    {
                      "service": "Zed",
                      "target": "a",
                      "hasPassed": true,
                      "drifts": []
                    }
                  ]
                }

                """)
        let folder = try ContractFolder(["baseline.json": text])
        #expect(try BaselineFile.load(path: folder.file("baseline.json")) == file)
    }

    @Test(arguments: [
        ("{\"tetherBaseline\": 1, \"targets\": [", ":1:", "not a baseline file"),
        (
            "{\"tetherBaseline\": 1,\n \"targets\": [\n  {\"service\": \"Demo\", \"target\": \"u\", \"hasPasssed\": true}]}",
            ":3:", "did you mean 'hasPassed'?"
        ),
        (
            "{\"tetherBaseline\": 1, \"targets\": [{\"service\": \"Demo\", \"target\": \"u\", \"hasPassed\": \"yes\"}]}",
            ":1:", "expected true or false, got string"
        ),
        ("{\"targets\": []}", ":1:1", "missing key \"tetherBaseline\""),
        ("{\"tetherBaseline\": 3, \"targets\": []}", ":1:", "newer than this tether reads"),
        (
            "{\"tetherBaseline\": 1, \"targets\": [{\"service\": \"D\", \"target\": \"u\", \"hasPassed\": true},"
                + " {\"service\": \"D\", \"target\": \"u\", \"hasPassed\": true}]}", ":1:", "listed twice"
        ),
    ])
    func aMalformedFileIsNamedWithLineAndColumn(text: String, place: String, message: String) throws {
        let folder = try ContractFolder(["baseline.json": text])
        let path = folder.file("baseline.json")
        #expect {
            try BaselineFile.load(path: path)
        } throws: { error in
            let text = "\(error)"
            return text.hasPrefix(path + place) && text.contains(message)
        }
    }

    @Test func aMissingFileSaysHowToWriteIt() {
        #expect {
            try BaselineFile.load(path: "/nonexistent/baseline.json")
        } throws: { error in
            "\(error)"
                == "/nonexistent/baseline.json: no baseline file here (run once with --update-baseline to write it)"
        }
    }
}
