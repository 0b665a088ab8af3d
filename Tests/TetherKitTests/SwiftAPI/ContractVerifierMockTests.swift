import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// The GitHub targets of Moya's demo served by a `MockServer` on 127.0.0.1: the whole pipeline, libcurl included.
private func gitHubServer(reposBody: String = #"[{"name": "Moya", "stargazers_count": 1}]"#) throws -> MockServer {
    try MockServer { request in
        switch (request.method, request.path) {
        case ("GET", "/zen"):
            MockResponse(
                status: 200, headers: [HTTPHeader("Content-Type", "text/plain")],
                body: Data("Keep it logically awesome.".utf8))
        case ("GET", "/users/octocat"): .json(#"{"login": "octocat", "id": 583231, "name": "The Octocat"}"#)
        case ("GET", "/users/octocat/repos") where request.query == "sort=pushed": .json(reposBody)
        default: .json(#"{"message": "Not Found"}"#, status: 404)
        }
    }
}

private struct Repo: Decodable {
    var name: String
    var stargazersCount: Int
}

private var snakeCaseDecoder: JSONDecoder {
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    return decoder
}

@Suite struct ContractVerifierMockTests {
    @Test func moyasGitHubTargetsHoldAgainstAServerThatKeepsThem() async throws {
        let server = try gitHubServer()
        let report = await ContractVerifier(baseURL: URL(string: server.baseURL)).verify(GitHub.allCases)
        #expect(report.results.map(\.outcome) == [.passed, .passed, .passed], "\(report)")
        #expect(report.results.map(\.liveStatusCode) == [200, 200, 200])
        #expect(report.isPassing)
    }

    @Test func theTestingGuides401ClosureDriftsAgainstAServerThatAnswers200() async throws {
        let server = try gitHubServer()
        let verifier = ContractVerifier(
            endpointClosure: unauthorizedEndpointClosure, baseURL: URL(string: server.baseURL))
        let report = await verifier.verify([GitHub.zen])
        #expect(report.results.first?.outcome == .drifted)
        #expect(
            report.results.first?.findings.first
                == Finding(
                    .drift, .status, at: .status,
                    "expected 401, got 200: check the request's path and query, or fix the stub's status code",
                    expected: "401", actual: "200"))
    }

    @Test func aStructureDriftNamesThePath() async throws {
        let server = try gitHubServer(reposBody: #"[{"name": 12}]"#)
        let report = await ContractVerifier(baseURL: URL(string: server.baseURL)).verify([
            GitHub.userRepositories("octocat")
        ])
        let result = try #require(report.results.first)
        #expect(result.outcome == .drifted)
        #expect(result.findings.contains { $0.isDrift && $0.path == "$[0].name" }, "\(result.findings)")
    }

    @Test func theDecodeCheckFindsWhatTheStructureCheckCannot() async throws {
        // The stub has only "name", so the structure holds; the app's model also needs stargazers_count as an Int.
        let server = try gitHubServer(
            reposBody: #"[{"name": "Moya", "stargazers_count": 1}, {"name": "Aardvark", "stargazers_count": "2"}]"#)
        let verifier = ContractVerifier(baseURL: URL(string: server.baseURL))
        let report = await verifier.verify(
            GitHub.userRepositories("octocat"), decodes: [Repo].self, using: snakeCaseDecoder)
        let result = try #require(report.results.first)
        #expect(result.outcome == .drifted)
        let finding = try #require(result.findings.first { $0.isDrift })
        #expect(finding.path == "$[1].stargazers_count")
        #expect(finding.message.hasPrefix("Array<Repo> does not decode (typeMismatch, Int)"))
    }

    @Test func aMockHARIsReplayedForTheRun() async throws {
        let har = FixturePaths.packageRoot.appendingPathComponent("contracts/github.har").path
        let report = await ContractVerifier(mockHAR: har).verify([GitHubAPI.zen, GitHubAPI.userProfile])
        #expect(report.results.map(\.liveStatusCode) == [200, 200], "\(report)")
        #expect(report.results.allSatisfy { $0.contract.baseURL.hasPrefix("http://127.0.0.1:") })
    }

    @Test func aRequestTheHARDoesNotHoldIsAnErrorNotADrift() async throws {
        let har = FixturePaths.packageRoot.appendingPathComponent("contracts/github.har").path
        let report = await ContractVerifier(mockHAR: har).verify(RecordedOrNot.allCases)
        #expect(report.results.map(\.outcome.isError) == [false, true], "\(report)")
        #expect(report.results.first?.outcome == .passed)
        let message = try #require(
            report.results.last.flatMap { if case .error(let text) = $0.outcome { text } else { nil } })
        #expect(message.hasPrefix("not recorded in \(har): GET /nothere?page=2;"), "\(message)")
        #expect(report.results.last?.findings.isEmpty == true)
        #expect(report.exitCode == 3)
        #expect(!report.isPassing)
    }

    @Test func aMissingHARIsAnErrorForEveryTarget() async {
        let report = await ContractVerifier(mockHAR: "/nonexistent/github.har").verify([
            GitHub.zen, GitHub.userProfile("a"),
        ])
        #expect(report.results.count == 2)
        for result in report.results {
            guard case .error(let message) = result.outcome else {
                Issue.record("expected an error, got \(result.outcome)")
                continue
            }
            #expect(message.hasPrefix("cannot replay /nonexistent/github.har: "))
        }
        #expect(report.exitCode == 4)  // no target could be checked
    }

    @Test func exportedFilesGiveTheSameResultsWithTheCLIAsInCode() async throws {
        let server = try gitHubServer(reposBody: #"[{"name": 12}]"#)
        let folder = NSTemporaryDirectory() + "tether-roundtrip-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let targets: [GitHub] = GitHub.allCases
        try ContractManifest(service: "GitHub", targets: targets).write(to: folder)

        let inCode = await ContractVerifier(baseURL: URL(string: server.baseURL)).verify(targets)
        let cli = try TetherBinary.run(["verify", folder, "--base-url", server.baseURL, "--no-color"])
        #expect(cli.exitCode == inCode.exitCode.rawValue)
        #expect(inCode.exitCode == 1)
        // The same status word and findings per target, in the same order, on the console.
        let codeLines = inCode.rendered().split(separator: "\n").map {
            $0.replacingOccurrences(of: #"\d+\.\d{3}s"#, with: "T", options: .regularExpression)
        }
        let cliLines = cli.stdout.split(separator: "\n").filter { !$0.hasPrefix("JUnit report:") }
            .map { $0.replacingOccurrences(of: #"\d+\.\d{3}s"#, with: "T", options: .regularExpression) }
        #expect(codeLines == cliLines)
    }
}

/// One target contracts/github.har holds (`GET /zen`) and one it does not (`GET /nothere?page=2`).
private enum RecordedOrNot: CaseIterable, TargetType {
    case zen, nothere

    var baseURL: URL { literalURL("https://api.github.com") }
    var path: String { self == .zen ? "/zen" : "/nothere" }
    var method: TetherKit.Method { .get }
    var task: Task {
        self == .zen ? .requestPlain : .requestParameters(parameters: ["page": 2], encoding: URLEncoding.default)
    }
    var sampleData: Data { self == .zen ? Data("Keep it logically awesome.".utf8) : Data(#"{"id": 1}"#.utf8) }
    var headers: [String: String]? { nil }
}

extension Outcome {
    fileprivate var isError: Bool { if case .error = self { true } else { false } }
}

/// `ContractVerifier(spec:isOffline:)`: Moya's GitHub targets against the example's OpenAPI document.
@Suite struct ContractVerifierSpecTests {
    static let spec = FixturePaths.packageRoot.appendingPathComponent("contracts/github.openapi.yaml").path

    @Test func offlineTheTargetsHoldAgainstTheDocumentAndAnUnknownPathDrifts() async throws {
        let report = await ContractVerifier(spec: Self.spec, isOffline: true).verify(GitHub.allCases)
        #expect(report.results.map(\.outcome) == [.passed, .passed, .passed], "\(report)")
        #expect(report.results.allSatisfy { $0.liveStatusCode == nil }, "nothing was sent")

        let unknown = await ContractVerifier(spec: Self.spec, isOffline: true).verify([TestTarget()])
        let drift = try #require(unknown.results.first?.findings.first)
        #expect(drift.rule == .specOperation && drift.culprit == .stub, "\(drift)")
    }

    @Test func liveTheServiceThatBreaksTheDocumentIsNamed() async throws {
        let server = try gitHubServer()
        let report = await ContractVerifier(baseURL: URL(string: server.baseURL), spec: Self.spec)
            .verify([GitHub.userProfile("octocat")])
        let result = try #require(report.results.first)
        #expect(result.outcome == .drifted, "\(report)")
        // The server's user lacks fields the document requires: the service's drifts, not the stub's.
        let culprits = Set(result.findings.filter(\.isDrift).compactMap(\.culprit))
        #expect(culprits == [.service], "\(result.findings)")
        #expect(result.findings.contains { $0.path == "$.avatar_url" && $0.isDrift }, "\(result.findings)")
    }

    @Test func aDocumentThatCannotBeReadIsEveryTargetsError() async throws {
        let report = await ContractVerifier(spec: "/nonexistent/openapi.yaml", isOffline: true).verify(GitHub.allCases)
        #expect(report.results.allSatisfy { $0.outcome.isError }, "\(report)")
        #expect(!report.isPassing)
        // Each says what is wrong with it, not only how many problems it has.
        guard case .error(let message) = report.results.first?.outcome else { return }
        #expect(message.hasPrefix("--spec /nonexistent/openapi.yaml: 1 error; nothing was sent\n"), "\(message)")
        #expect(message.contains("/nonexistent/openapi.yaml: error: "), "\(message)")
    }
}

/// `ContractVerifier.signIn`: Moya's targets sent with a token fetched once from a token server on 127.0.0.1.
@Suite struct ContractVerifierSignInTests {
    @Test func theTargetsAreSentWithTheTokenAndItIsFetchedOnce() async throws {
        let issued = Locked(0)
        let server = try MockServer { request in
            if request.method == "POST" && request.path == "/oauth/token" {
                issued.withLock { $0 += 1 }
                return .json(#"{"access_token": "swift-api-token-123", "token_type": "Bearer"}"#)
            }
            guard
                request.headers.contains(where: {
                    $0.isNamed("Authorization") && $0.value == "Bearer swift-api-token-123"
                })
            else { return .json(#"{"message": "Requires authentication"}"#, status: 401) }
            return .json(#"{"login": "octocat", "id": 583231}"#)
        }
        var verifier = ContractVerifier(baseURL: URL(string: server.baseURL))
        let unsigned = await verifier.verify([GitHub.userProfile("octocat")])
        #expect(unsigned.results.first?.liveStatusCode == 401)
        verifier.signIn = .oauth2(
            OAuth2ClientCredentials(
                tokenURL: server.baseURL + "/oauth/token", clientID: "app", clientSecret: "client-secret-xyz"))
        let report = await verifier.verify([GitHub.userProfile("octocat"), GitHub.userProfile("octocat")])
        #expect(report.results.map(\.outcome) == [.passed, .passed], "\(report)")
        #expect(issued.withLock { $0 } == 1)
        #expect(report.run.secrets.contains("swift-api-token-123"))
    }
}
