import Foundation
import Testing

@testable import TetherContracts
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

    private let idDrift = Finding(.drift, "$.items[3].id", "expected integer, got string \"7\": fix the stub")
    private let nameDrift = Finding(.drift, "$.name", "missing key (stub has string): make it optional")

    private func drifted(_ name: String, _ findings: [Finding], isPending: Bool = false) -> ContractResult {
        ContractResult(contract: contract(name, isPending: isPending), outcome: .drifted, findings: findings)
    }

    private func report(_ results: [ContractResult], gate: BaselineGate) -> RunReport {
        RunReport(
            results: results.map(gate.mark), startedAt: Date(), duration: 0, hostname: "h",
            fixed: gate.fixed(in: results))
    }

    @Test(arguments: [
        ("$.id", "expected integer, got string \"7\": change it", "$.id", "expected integer"),
        ("$.items[12].tags[0]", "expected string, got number 3", "$.items[*].tags[*]", "expected string"),
        ("$[\"a[1]\"]", "unexpected null (stub has string)", "$[\"a[*]\"]", "unexpected null"),
        ("status", "expected 200, got 503: check the path", "status", "expected 200"),
        ("status", "404 is outside the target's validationType (2xx): widen it", "status", "outside validationType"),
        (
            "header Content-Type", "expected \"application/json\", got \"text/html\": fix", "header Content-Type",
            "expected \"application/json\""
        ),
        ("$", "User does not decode (keyNotFound): no value for id", "$", "User does not decode"),
    ])
    func keysHoldNoLiveValues(path: String, message: String, keyPath: String, rule: String) {
        let key = BaselineGate.drift(of: Finding(.drift, path, message), in: contract("user"))
        #expect(key == BaselineFile.Drift(path: keyPath, rule: rule))
    }

    @Test func aSecretNeverReachesAKey() {
        var withSecret = contract("user")
        withSecret.secrets = ["s3cr3t-token"]
        let key = BaselineGate.drift(
            of: Finding(.drift, "header X-Token", "expected \"s3cr3t-token\", got \"x\""), in: withSecret)
        #expect(!key.rule.contains("s3cr3t"))
    }

    @Test func recordedDriftIsKnownAndDoesNotFailTheGate() {
        let gate = BaselineGate(
            file: BaselineFile(targets: [
                .init(
                    service: "Demo", target: "list", hasPassed: true,
                    drifts: [.init(path: "$.items[*].id", rule: "expected integer")])
            ]))
        // The same drift on another element, another live value: still the recorded one.
        let moved = Finding(.drift, "$.items[0].id", "expected integer, got boolean true: fix the stub")
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
                  "tetherBaseline": 1,
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
        ("{\"tetherBaseline\": 2, \"targets\": []}", ":1:", "newer than this tether reads"),
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
