import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

private struct Repository: Decodable {
    enum Visibility: String, Decodable {
        case `public`, `private`
    }

    var name: String
    var stars: Int
    var visibility: Visibility
    var pushedAt: Date
}

private struct Page: Decodable {
    var items: [Item]

    struct Item: Decodable {
        var name: String
        var price: Double
    }
}

private func repositories(_ third: String) -> String {
    """
    [{"name": "a", "stars": 1, "visibility": "public", "pushedAt": "2024-01-01T00:00:00Z"},
     {"name": "b", "stars": 2, "visibility": "private", "pushedAt": "2024-01-02T00:00:00Z"},
     \(third)]
    """
}

private var isoDecoder: JSONDecoder {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    return decoder
}

/// `ContractVerifier.verify` from Swift code, against a transport test double.
@Suite struct ContractVerifierTests {
    @Test func targetsThatHoldPass() async throws {
        let transport = StubTransport { request in
            let body = request.url.hasSuffix("/zen") ? "Speak like a human." : #"{"login": "octocat", "id": 1}"#
            return .success(HTTPResponse(statusCode: 200, body: Data(body.utf8), url: request.url))
        }
        let report = await ContractVerifier.stubbed(transport).verify([GitHub.zen, .userProfile("octocat")])
        #expect(report.results.map(\.outcome) == [.passed, .passed])
        #expect(report.isPassing)
        #expect(report.exitCode == 0)
        #expect(report.nothingCheckedReason == nil)
        #expect(
            transport.requests.map(\.url) == ["https://api.github.com/zen", "https://api.github.com/users/octocat"])
    }

    @Test func aStatusOtherThanTheStubsIsADrift() async {
        let report = await ContractVerifier.stubbed(StubTransport(status: 404, body: "{}")).verify([
            GitHub.userProfile("x")
        ])
        #expect(report.results.first?.outcome == .drifted)
        #expect(
            report.results.first?.findings.first
                == Finding(
                    .drift, .status, at: .status,
                    "expected 200, got 404: check the request's path and query, or fix the stub's status code",
                    expected: "200", actual: "404"))
        #expect(!report.isPassing)
        #expect(report.exitCode == 1)
        #expect(report.failures.count == 1)
        #expect(report.rendered().contains("status: expected 200, got 404"))
    }

    @Test func aTransportFailureIsAnError() async {
        let transport = StubTransport { request in
            .failure(TransportError(message: "Couldn't connect to server", url: request.url, code: 7))
        }
        let report = await ContractVerifier.stubbed(transport).verify([GitHub.zen])
        #expect(report.results.first?.outcome == .error("https://api.github.com/zen: Couldn't connect to server"))
        #expect(report.exitCode == 4)  // its only target could not be checked: nothing was checked
        #expect(!report.isPassing)
    }

    @Test func noTargetsReportsThatNothingWasCheckedAndIsNotAPass() async {
        let transport = StubTransport(status: 200)
        let report = await ContractVerifier.stubbed(transport).verify([GitHub]())
        #expect(report.results.isEmpty)
        #expect(report.isNothingChecked)
        #expect(!report.isPassing)
        #expect(report.exitCode == 4)
        #expect(report.nothingCheckedReason == "nothing was checked: no targets were given")
        #expect(report.rendered().hasSuffix("nothing was checked: no targets were given\n"))
        #expect(transport.requests.isEmpty)
    }

    @Test func anUploadIsSkippedWithItsReasonAndNeverSent() async {
        let transport = StubTransport(status: 200)
        let upload = TestTarget(name: "avatar", method: .post, task: .uploadFile(literalURL("file:///tmp/a.png")))
        let report = await ContractVerifier.stubbed(transport).verify([upload, TestTarget(name: "list")])
        #expect(report.results.map(\.contract.name) == ["avatar", "list"])
        guard case .skipped(let reason) = report.results.first?.outcome else {
            Issue.record("expected the upload to be skipped, got \(String(describing: report.results.first?.outcome))")
            return
        }
        #expect(reason.contains("upload"))
        #expect(report.results.last?.outcome == .passed)
        #expect(transport.requests.map(\.url) == ["https://api.example.com/things"])
        #expect(report.isPassing)
    }

    @Test func onlySkippedTargetsIsNothingChecked() async {
        let upload = TestTarget(name: "avatar", method: .post, task: .uploadFile(literalURL("file:///tmp/a.png")))
        let report = await ContractVerifier.stubbed(StubTransport(status: 200)).verify([upload])
        #expect(!report.isPassing)
        #expect(report.nothingCheckedReason == "nothing was checked: every target was skipped or could not be checked")
    }

    @Test func aBrokenTargetIsAnErrorNamingItAndTheOthersStillRun() async {
        let broken = TestTarget(
            name: "profile", sampleData: Data("oops".utf8), headers: ["Content-Type": "application/json"])
        let transport = StubTransport(status: 200)
        let report = await ContractVerifier.stubbed(transport).verify([broken, TestTarget(name: "list")])
        #expect(report.contractErrors.count == 1)
        #expect(
            report.contractErrors.first?.description.hasPrefix("TestTarget.profile: sampleData is not valid JSON")
                == true)
        guard case .error(let message) = report.results.first?.outcome else {
            Issue.record("expected an error result")
            return
        }
        #expect(message.hasPrefix("TestTarget.profile: sampleData is not valid JSON"))
        #expect(report.results.last?.outcome == .passed)
        #expect(transport.requests.count == 1)
        #expect(!report.isPassing)
    }

    /// From `parallelConversionCount` targets on (with two cores or more), contracts are built on other threads:
    /// each is the one its target makes alone, in target order, and broken and skipped targets keep their places.
    @Test func manyTargetsBecomeTheContractsEachMakesAlone() async throws {
        let count = ContractVerifier.parallelConversionCount + 89
        let targets = (0..<count).map { index in
            switch index % 7 {
            case 3:  // text where its content type says JSON
                TestTarget(
                    name: "t\(index)", sampleData: Data("oops".utf8), headers: ["Content-Type": "application/json"])
            case 5: TestTarget(name: "t\(index)", method: .post, task: .uploadFile(literalURL("file:///tmp/a.png")))
            default: TestTarget(name: "t\(index)", path: "/things/\(index)", sampleData: Data(#"{"id": 1}"#.utf8))
            }
        }
        let transport = StubTransport(status: 200, body: #"{"id": 2}"#)
        let report = await ContractVerifier.stubbed(transport).verify(targets)
        try #require(report.results.count == count)
        var sent: [String] = []
        for (index, (target, result)) in zip(targets, report.results).enumerated() {
            #expect(result.contract.name == "t\(index)")
            switch index % 7 {
            case 3:
                #expect(throws: ContractError.self) { try contract(target) }
                guard case .error(let message) = result.outcome else {
                    Issue.record("t\(index): expected an error, got \(result.outcome)")
                    continue
                }
                #expect(message.hasPrefix("TestTarget.t\(index): sampleData is not valid JSON"))
            case 5:
                #expect(
                    result.outcome
                        == .skipped("the task is an upload: Tether does not send uploads, so only the stub is kept"))
                #expect(result.contract == (try contract(target)))
            default:
                #expect(result.outcome == .passed)
                #expect(result.contract == (try contract(target)))
                sent.append("https://api.example.com/things/\(index)")
            }
        }
        #expect(report.contractErrors.map(\.file) == targets.indices.filter { $0 % 7 == 3 }.map { "TestTarget.t\($0)" })
        #expect(transport.requests.map(\.url).sorted() == sent.sorted())
    }

    @Test func validationTypeMakesAStatusOutsideItADriftEvenWhenTheStubDiffers() async throws {
        struct Guarded: TargetType {
            var baseURL: URL { literalURL("https://api.github.com") }
            var path: String { "/user" }
            var method: TetherKit.Method { .get }
            var task: Task { .requestPlain }
            var validationType: ValidationType { .successCodes }
            var headers: [String: String]? { nil }
        }
        let closure = { (target: Guarded) -> Endpoint in
            Endpoint(
                url: URL(target: target).absoluteString, sampleResponseClosure: { .networkResponse(401, Data()) },
                method: target.method, task: target.task, httpHeaderFields: nil)
        }
        let verifier = ContractVerifier(
            endpointClosure: closure, verifier: ContractRunner(transport: StubTransport(status: 401), hostname: "test"))
        let report = await verifier.verify([Guarded()])
        let result = try #require(report.results.first)
        #expect(result.outcome == .drifted)
        #expect(
            result.findings.filter(\.isDrift) == [
                Finding(
                    .drift, .validationType, at: .status,
                    "401 is outside the target's validationType (successCodes, 200-299): fix the request, or widen validationType"
                )
            ])
    }

    @Test func credentialsInAnEndpointsOwnURLNeverReachAReport() async throws {
        let closure = { (target: GitHub) -> Endpoint in
            Endpoint(
                url: "https://bot:pw%21@mirror.test/user", sampleResponseClosure: { .networkResponse(200, Data()) },
                method: target.method, task: target.task, httpHeaderFields: nil)
        }
        let transport = StubTransport { request in
            .success(HTTPResponse(statusCode: 500, body: Data("bad pw! for bot:pw%21".utf8), url: request.url))
        }
        let verifier = ContractVerifier(
            endpointClosure: closure, verifier: ContractRunner(transport: transport, hostname: "test"))
        let report = await verifier.verify([GitHub.zen])
        #expect(transport.requests.map(\.url) == ["https://bot:pw%21@mirror.test/user"])
        let path = NSTemporaryDirectory() + "tether-swiftapi-" + UUID().uuidString + "/junit.xml"
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try report.writeJUnit(to: path)
        let console = report.rendered()
        #expect(console.contains("GET https://<redacted>@mirror.test/user"), "\(console)")
        for text in [console, try String(contentsOfFile: path, encoding: .utf8)] {
            #expect(!text.contains("pw!") && !text.contains("pw%21"), "\(text)")
        }
    }

    @Test func theBaseURLOverrideSendsEveryRequestThere() async {
        let transport = StubTransport(status: 200, body: "Speak like a human.")
        let report = await ContractVerifier.stubbed(transport, baseURL: literalURL("http://127.0.0.1:8080")).verify([
            GitHub.zen
        ])
        #expect(transport.requests.map(\.url) == ["http://127.0.0.1:8080/zen"])
        #expect(report.results.first?.contract.baseURL == "http://127.0.0.1:8080")
    }

    @Test func theReportWritesTheCLIsJUnit() async throws {
        let report = await ContractVerifier.stubbed(StubTransport(status: 500)).verify([GitHub.zen])
        let path = NSTemporaryDirectory() + "tether-swiftapi-" + UUID().uuidString + "/junit.xml"
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try report.writeJUnit(to: path)
        let xml = try String(contentsOfFile: path, encoding: .utf8)
        #expect(xml == String(decoding: try JUnitWriter.xml(for: report.run), as: UTF8.self))
        #expect(xml.contains(#"<testcase classname="GitHub" name="zen""#))
        #expect(xml.contains("expected 200, got 500"))
    }

    @Test func theJUnitReportOfNoTargetsIsAnErrorNotAnEmptyPass() async throws {
        let report = await ContractVerifier.stubbed(StubTransport(status: 200)).verify([GitHub]())
        let path = NSTemporaryDirectory() + "tether-swiftapi-" + UUID().uuidString + "/junit.xml"
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try report.writeJUnit(to: path)
        let xml = try String(contentsOfFile: path, encoding: .utf8)
        #expect(xml.contains(#"tests="1" failures="0" errors="1""#))
        #expect(xml.contains("nothing was checked: no targets were given"))
    }

    // MARK: Decode check

    @Test func aBodyThatDecodesPasses() async throws {
        let body = repositories(
            #"{"name": "c", "stars": 3, "visibility": "public", "pushedAt": "2024-01-03T00:00:00Z"}"#)
        let report = await ContractVerifier.stubbed(StubTransport(status: 200, body: body))
            .verify(GitHub.userRepositories("octocat"), decodes: [Repository].self, using: isoDecoder)
        #expect(report.results.first?.outcome == .passed)
        #expect(report.results.first?.findings.filter(\.isDrift) == [])
    }

    @Test(arguments: [
        (
            #"{"name": "c", "stars": "3", "visibility": "public", "pushedAt": "2024-01-03T00:00:00Z"}"#, "$[2].stars",
            "typeMismatch"
        ),
        (
            #"{"name": "c", "stars": 3, "visibility": "internal", "pushedAt": "2024-01-03T00:00:00Z"}"#,
            "$[2].visibility", "dataCorrupted"
        ),
        (#"{"name": "c", "stars": 3, "visibility": "public", "pushedAt": "03/01/2024"}"#, "$[2]", "dataCorrupted"),
        (
            #"{"name": null, "stars": 3, "visibility": "public", "pushedAt": "2024-01-03T00:00:00Z"}"#, "$[2].name",
            "valueNotFound"
        ),
        (#"{"stars": 3, "visibility": "public", "pushedAt": "2024-01-03T00:00:00Z"}"#, "$[2].name", "keyNotFound"),
    ])
    func aDecodingErrorIsADriftAtItsCodingPath(third: String, path: String, kind: String) async throws {
        let report = await ContractVerifier.stubbed(StubTransport(status: 200, body: repositories(third)))
            .verify(GitHub.userRepositories("octocat"), decodes: [Repository].self, using: isoDecoder)
        let result = try #require(report.results.first)
        #expect(result.outcome == .drifted)
        let finding = try #require(result.findings.first { $0.message.contains("does not decode") })
        // Foundation on Linux reports a failed date strategy at the object holding the date, not at its key.
        #expect(finding.path == path || (path == "$[2]" && finding.path == "$[2].pushedAt"))
        #expect(finding.message.hasPrefix("Array<Repository> does not decode (\(kind)"))
    }

    @Test func theCodingPathNamesNestedKeysAndIndices() async throws {
        struct Shop: TargetType {
            var baseURL: URL { literalURL("https://shop.test") }
            var path: String { "/items" }
            var method: TetherKit.Method { .get }
            var task: Task { .requestPlain }
            var sampleData: Data { Data(#"{"items": [{"name": "a", "price": 1.5}]}"#.utf8) }
            var headers: [String: String]? { nil }
        }
        let body =
            #"{"items": [{"name": "a", "price": 1}, {"name": "b", "price": 2}, {"name": "c", "price": 3}, {"name": "d", "price": "4.99"}]}"#
        let report = await ContractVerifier.stubbed(StubTransport(status: 200, body: body)).verify(
            Shop(), decodes: Page.self)
        let finding = try #require(report.results.first?.findings.first { $0.message.contains("does not decode") })
        #expect(finding.path == "$.items[3].price")
        #expect(finding.message.contains("typeMismatch"))
    }

    @Test func keysOfASnakeCaseDecoderAreShownAsTheBodySpellsThem() async throws {
        struct Repo: Decodable {
            var fullName: String
            var stargazersCount: Int
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        for (body, path) in [
            (#"[{"full_name": "a", "stargazers_count": 1}, {"full_name": "b"}]"#, "$[1].stargazers_count"),
            (#"[{"full_name": "a", "stargazers_count": true}]"#, "$[0].stargazers_count"),
        ] {
            let report = await ContractVerifier.stubbed(StubTransport(status: 200, body: body))
                .verify(GitHub.userRepositories("octocat"), decodes: [Repo].self, using: decoder)
            let finding = try #require(report.results.first?.findings.first { $0.message.contains("does not decode") })
            #expect(finding.path == path)
        }
    }

    @Test func theBodyIsNotDecodedWhenTheStatusDiffers() async throws {
        let report = await ContractVerifier.stubbed(StubTransport(status: 404, body: "{}"))
            .verify(GitHub.userRepositories("octocat"), decodes: [Repository].self)
        let result = try #require(report.results.first)
        #expect(!result.findings.contains { $0.message.contains("does not decode") })
        #expect(
            result.findings.contains(
                Finding(
                    .note, .notCompared, at: .body,
                    "not decoded as Array<Repository>: the status differs from the stub's")))
    }

    @Test(arguments: [
        ([] as [String], "$"),
        (["items", "Index 3", "price"], "$.items[3].price"),
        (["odd key", "a-b"], #"$["odd key"]["a-b"]"#),
    ])
    func codingPathsReadAsJSONPaths(keys: [String], expected: String) {
        let codingPath: [any CodingKey] = keys.map { key in
            if key.hasPrefix("Index "), let index = Int(key.dropFirst(6)) { return TestKey(index: index) }
            return TestKey(stringValue: key)
        }
        #expect(DecodeCheck.path(codingPath) == expected)
    }
}

private struct TestKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
    }

    init(index: Int) {
        self.stringValue = "Index \(index)"
        self.intValue = index
    }

    init?(intValue: Int) {
        self.init(index: intValue)
    }
}
