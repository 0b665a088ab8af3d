import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

private func contract(_ body: StubBody, method: String = "GET", name: String = "t") -> Contract {
    Contract(
        service: "S", name: name, baseURL: "http://127.0.0.1",
        request: HTTPRequest(method: method, url: "http://127.0.0.1/t"), sampleData: body,
        sampleResponse: .network(statusCode: 200, headers: []), source: "test")
}

/// `--exhaustive` and coverage: which stubs assert a body, and what fails when one does not.
@Suite struct BodyCoverageTests {
    @Test(arguments: [
        (StubBody.none, false), (.json(.object([])), false), (.json(.array([])), false),
        (.json(.array([.integer(1)])), false), (.json(.array([.object([])])), false),
        (.json(.object([JSONMember("id", .integer(1))])), true),
        (.json(.array([.object([JSONMember("id", .integer(1))])])), true), (.text(Data("hi".utf8)), true),
    ])
    func whichStubsHaveABodyContract(body: StubBody, isCovered: Bool) {
        #expect((BodyCoverage.gap(in: contract(body)) == nil) == isCovered)
        #expect(BodyCoverage(covered: isCovered ? 1 : 0, total: 1) == BodyCoverage([contract(body)]))
    }

    @Test(arguments: [
        ("{}", false), ("[]", false), (" [ 1 ]", false), ("[{}]", false), ("\"ok\"", false),
        (#"["{\"a\": 1}"]"#, false),
        ("{\"id\": 1}", true), ("\n[ {\n \"id\": 1}]", true), ("[{}, {\"id\": 1}]", true), ("[[{\"id\": 1}]]", true),
        ("[1, {\"id\": 1}]", true),
    ])
    func aStubKeptAsTextIsCoveredAsItsValueIs(text: String, isCovered: Bool) throws {
        // As a manifest's loader keeps an inline stub: the text is looked at first, the value where that says nothing.
        let stub = JSONStub(checkedText: Data(text.utf8))
        #expect(try JSONReader().value(Data(text.utf8)) == stub.value)
        #expect((BodyCoverage.gap(in: contract(.json(stub))) == nil) == isCovered, "\(text)")
        #expect((BodyCoverage.gap(in: contract(.json(stub.value))) == nil) == isCovered)
    }

    @Test func aResultKnowsItsCoverageFromItsContractAsItIsSet() {
        // A result's coverage is asked once, when it is made or its contract is set; the reports count it.
        let bodies: [StubBody] = [
            .none, .json(.object([])), .json(.object([JSONMember("id", .integer(1))])), .text(Data("hi".utf8)),
            .json(JSONStub(checkedText: Data("[{\"id\": 1}]".utf8))), .json(JSONStub(checkedText: Data("[]".utf8))),
        ]
        var offline = contract(.json(.object([JSONMember("id", .integer(1))])))
        offline.sampleResponse = .networkError(code: -1009, description: "offline")
        let contracts = bodies.map { contract($0) } + [offline, contract(.none, method: "HEAD")]
        var results = contracts.map { ContractResult(contract: $0, outcome: .passed) }
        let report = RunReport(results: results, startedAt: Date(), duration: 0, hostname: "h")
        #expect(report.coverage == BodyCoverage(contracts))
        #expect(report.coverage.description == "4/8")
        // Each result's contract replaced by the next one's: the counts follow the contracts, not the results.
        for index in results.indices {
            let shared = results[index]  // a copy shares the storage: the setter copies it first
            results[index].contract = contracts[(index + 1) % contracts.count]
            #expect(shared.contract == contracts[index])
            #expect(
                BodyCoverage(results: [results[index]]) == BodyCoverage([contracts[(index + 1) % contracts.count]]))
            #expect(BodyCoverage(results: [shared]) == BodyCoverage([contracts[index]]))
        }
    }

    @Test func headAndNetworkErrorTargets() {
        #expect(BodyCoverage.gap(in: contract(.none, method: "HEAD")) == nil)
        var offline = contract(.none)
        offline.sampleResponse = .networkError(code: -1009, description: "offline")
        #expect(BodyCoverage([offline, contract(.none, method: "HEAD")]).description == "1/2")
        #expect(BodyCoverage.exhaustiveFinding(for: offline) == nil)
    }

    @Test func exhaustiveModeMakesAnUnassertedBodyADrift() {
        let live = Result<HTTPResponse, TransportError>.success(
            HTTPResponse(statusCode: 200, headers: [], body: Data("{}".utf8), url: "http://127.0.0.1/t"))
        let loose = ContractRunner.result(contract: contract(.json(.object([]))), response: live, isStrict: false)
        #expect(loose.outcome == .passed)
        let exhaustive = ContractRunner.result(
            contract: contract(.json(.object([]))), response: live, isStrict: false, isExhaustive: true)
        #expect(exhaustive.outcome == .drifted)
        #expect(
            exhaustive.findings.filter(\.isDrift).map(\.description) == [
                "body: no body contract: the stub's JSON has no key at all ({}), so nothing about the body is "
                    + "asserted: add sampleData with the fields the app reads, or drop --exhaustive"
            ])
        #expect(exhaustive.failsGate())
    }

    @Test func theSwiftAPIFailsCasesTheVerificationLeftOut() async {
        let transport = StubTransport(status: 200, body: "Half measures are as bad as nothing at all.")
        var verifier = ContractVerifier.stubbed(transport)
        let loose = await verifier.verify([GitHub.zen])
        #expect(loose.results.count == 1 && loose.isPassing)
        verifier.checks.isExhaustive = true
        let report = await verifier.verify([GitHub.zen])
        #expect(report.results.map(\.outcome) == [.passed, .drifted, .drifted])
        #expect(report.results.dropFirst().map(\.contract.name) == ["userProfile", "userRepositories"])
        #expect(
            report.results.last?.findings.first?.message.hasPrefix(
                #"not verified: GitHub.userRepositories("octocat") is a case of GitHub.allCases"#) == true,
            "\(report.results.last?.findings ?? [])")
        #expect(!report.isPassing && report.exitCode == 1)
        #expect(report.coverage == BodyCoverage(covered: 3, total: 3))
        #expect(report.rendered().contains("coverage: 3/3 targets with a body contract"))
        let all = await verifier.verify(GitHub.allCases)
        #expect(all.results.count == 3)
        #expect(!all.results.contains { $0.findings.contains { $0.path == "target" } })
    }
}

/// Exhaustive mode on the shipped example (`scripts/example`: contracts/ replayed from contracts/github.har).
@Suite(.serialized) struct ExhaustiveExampleTests {
    @Test func theShippedExampleIsCoveredAndPassesExhaustively() throws {
        let contracts = FixturePaths.packageRoot.appendingPathComponent("contracts").path
        let run = try TetherBinary.run([
            "verify", contracts, "--mock", contracts + "/github.har", "--exhaustive", "--no-color",
        ])
        #expect(run.exitCode == 0, "\(run.stdout)\(run.stderr)")
        // offline is a networkError stub: skipped, and not a body contract.
        #expect(run.stdout.contains("coverage: 5/6 targets with a body contract"), "\(run.stdout)")
        let junit = try #require(run.junit)
        #expect(junit.contains(#"<property name="tether.coverage" value="5/6"/>"#), "\(junit)")
    }

    @Test func theExampleWithAnEmptyAndAKeylessStubFailsExhaustively() throws {
        let root = FixturePaths.packageRoot.appendingPathComponent("contracts")
        let manifest = try String(contentsOf: root.appendingPathComponent("github.json"), encoding: .utf8)
        let zen = #""sampleData": { "text": "Half measures are as bad as nothing at all." }"#
        let unauthorized =
            #""sampleData": { "json": { "message": "Requires authentication", "documentation_url": "https://docs.github.com/rest" } }"#
        #expect(manifest.contains(zen) && manifest.contains(unauthorized))
        let edited = manifest.replacingOccurrences(of: zen, with: #""sampleData": { "text": "" }"#)
            .replacingOccurrences(of: unauthorized, with: #""sampleData": { "json": {} }"#)
        var files = ["github.json": edited]
        for sample in ["issue.json", "userProfile.json", "userRepositories.json"] {
            files["samples/" + sample] = try String(
                contentsOf: root.appendingPathComponent("samples/" + sample), encoding: .utf8)
        }
        let folder = try ContractFolder(files)
        let har = root.appendingPathComponent("github.har").path
        let loose = try TetherBinary.run(["verify", folder.path, "--mock", har, "--no-color"])
        #expect(loose.exitCode == 0, "\(loose.stdout)\(loose.stderr)")
        #expect(loose.stdout.contains("coverage: 3/6 targets with a body contract"), "\(loose.stdout)")
        let run = try TetherBinary.run(["verify", folder.path, "--mock", har, "--exhaustive", "--no-color"])
        #expect(run.exitCode == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("DRIFT GitHub.zen"), "\(run.stdout)")
        #expect(run.stdout.contains("DRIFT GitHub.unauthorized"))
        #expect(
            run.stdout.contains("no body contract: the stub has no body (sampleData is empty, Moya's Data() default)"))
        #expect(run.stdout.contains("no body contract: the stub's JSON has no key at all ({})"))
        #expect(run.stdout.contains("3 passed, 2 failed"), "\(run.stdout)")
        let junit = try #require(run.junit)
        #expect(junit.contains(#"<property name="tether.coverage" value="3/6"/>"#))
        #expect(junit.contains("no body contract"))
    }
}
