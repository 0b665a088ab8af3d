import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The GitHub targets of the shipped contracts/github.json, as Swift targets.
enum GitHubAPI: CaseIterable, TargetType {
    case zen, userProfile, userRepositories, createIssue, avatar, offline

    var baseURL: URL { literalURL("https://api.github.com") }
    var path: String {
        switch self {
        case .zen, .offline: "/zen"
        case .userProfile: "/users/octocat"
        case .userRepositories: "/users/octocat/repos"
        case .createIssue: "/repos/octocat/Hello-World/issues"
        case .avatar: "/user/avatar"
        }
    }
    var method: TetherKit.Method {
        switch self {
        case .createIssue, .avatar: .post
        default: .get
        }
    }
    var task: Task {
        switch self {
        case .userRepositories:
            .requestParameters(parameters: ["per_page": 2, "q": "a b&${x}"], encoding: URLEncoding.default)
        case .createIssue: .requestJSONEncodable(["title": "Found a bug in ${HOME}", "labels": "bug"])
        case .avatar: .uploadFile(literalURL("file:///tmp/avatar.png"))
        default: .requestPlain
        }
    }
    var sampleData: Data {
        switch self {
        case .zen: Data("Half measures are as bad as nothing at all.".utf8)
        case .userProfile: Data(#"{"login": "octocat", "id": 1, "plan": {"name": "free", "space": 976562499.5}}"#.utf8)
        case .userRepositories: Data(#"[{"name": "Repo Name"}]"#.utf8)
        case .createIssue: Data(#"{"number": 1, "title": "Found a bug"}"#.utf8)
        case .avatar, .offline: Data()
        }
    }
    var validationType: ValidationType { self == .userProfile ? .successCodes : .none }
    var headers: [String: String]? {
        ["Accept": "application/vnd.github+json", "Authorization": "Bearer s3cr3t-token"]
    }
}

/// The endpoint closure of the export tests: a 201 with headers for createIssue, a network error for offline.
func gitHubAPIEndpoint(_ target: GitHubAPI) -> Endpoint {
    let endpoint = MoyaProvider.defaultEndpointMapping(for: target)
    switch target {
    case .createIssue:
        let response = HTTPURLResponse(
            url: URL(target: target), statusCode: 201, httpVersion: nil,
            headerFields: ["Content-Type": "application/json"])
        return Endpoint(
            url: endpoint.url,
            sampleResponseClosure: {
                response.map { .response($0, target.sampleData) } ?? .networkResponse(599, Data())
            },
            method: endpoint.method, task: endpoint.task, httpHeaderFields: endpoint.httpHeaderFields)
    case .offline:
        return Endpoint(
            url: endpoint.url,
            sampleResponseClosure: {
                .networkError(
                    NSError(domain: NSURLErrorDomain, code: -1009, userInfo: [NSLocalizedDescriptionKey: "offline"]))
            },
            method: endpoint.method, task: endpoint.task, httpHeaderFields: endpoint.httpHeaderFields)
    default:
        return endpoint
    }
}

private func temporaryFolder() -> String {
    NSTemporaryDirectory() + "tether-export-" + UUID().uuidString
}

/// Exporting Swift targets writes file contracts that load back into the same contracts.
@Suite struct ContractManifestTests {
    let converter = TargetConverter(endpointClosure: gitHubAPIEndpoint)

    @Test func exportedFilesLoadBackIntoTheSameContracts() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let export = try ContractManifest(
            service: "GitHubAPI", targets: GitHubAPI.allCases, converter: converter,
            variables: ["GITHUB_TOKEN": "s3cr3t-token"])
        let manifestPath = try export.write(to: folder)
        #expect(manifestPath == folder + "/githubapi.json")

        let inCode = try converter.contracts(for: GitHubAPI.allCases).map { try $0.get() }
            .filter { $0.skipReason == nil }.map(\.contract)
        let loaded = try ManifestLoader(environment: ["GITHUB_TOKEN": "s3cr3t-token"]).load(paths: [folder])
        #expect(loaded.count == 5)
        for (file, code) in zip(loaded, inCode) {
            var comparable = file
            comparable.source = code.source
            comparable.secrets = code.secrets
            if comparable.sampleData != .none {  // files know where their stubs are written
                #expect(comparable.stubSource?.manifest == manifestPath)
            }
            comparable.stubSource = code.stubSource
            #expect(comparable.declaration?.file == manifestPath)  // files know where each target is declared
            comparable.declaration = code.declaration
            #expect(comparable == code)
        }
        #expect(loaded.first?.secrets == ["s3cr3t-token"])
    }

    @Test func theManifestUsesTheDocumentedFormat() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try ContractManifest(
            service: "GitHubAPI", targets: GitHubAPI.allCases, converter: converter,
            variables: ["GITHUB_TOKEN": "s3cr3t-token"]
        ).write(to: folder)
        let manifest = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!manifest.contains("s3cr3t-token"))
        #expect(manifest.contains(#""Authorization": "Bearer ${GITHUB_TOKEN}""#))
        #expect(manifest.contains(#""requestJSONEncodable": {"#))
        #expect(manifest.contains(#""title": "Found a bug in $${HOME}""#))
        #expect(manifest.contains(#""q": "a b&$${x}""#))
        #expect(
            manifest.contains(#""sampleData": {"#)
                && manifest.contains(#""file": "samples/githubapi/userProfile.json""#))
        #expect(manifest.contains(#""validationType": "successCodes""#))
        #expect(manifest.contains(#""networkError": {"#))
        #expect(manifest.contains("Not exported (Tether does not send uploads or downloads): avatar."))
        let sample = try String(contentsOfFile: folder + "/samples/githubapi/zen.txt", encoding: .utf8)
        #expect(sample == "Half measures are as bad as nothing at all.")
        let repos = try JSONValue.parse(
            try Data(contentsOf: URL(fileURLWithPath: folder + "/samples/githubapi/userRepositories.json")))
        #expect(repos == .array([.object([JSONMember("name", .string("Repo Name"))])]))
    }

    @Test func verifyingTheFilesGivesTheSameResultsAsVerifyingInCode() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try ContractManifest(service: "GitHubAPI", targets: GitHubAPI.allCases, converter: converter).write(to: folder)
        // One server for both: zen drifts (JSON instead of text), repos drift (status), the rest hold.
        let transport = StubTransport { request in
            let path = URLComponents(string: request.url)?.path ?? ""
            let (status, body): (Int, String) =
                switch path {
                case "/zen": (200, #"{"zen": 1}"#)
                case "/users/octocat": (200, #"{"login": "x", "id": 2, "plan": {"name": "pro", "space": 1.5}}"#)
                case "/users/octocat/repos": (404, "{}")
                default: (201, #"{"number": 2, "title": "t"}"#)
                }
            return .success(
                HTTPResponse(
                    statusCode: status, headers: [HTTPHeader("Content-Type", "application/json")],
                    body: Data(body.utf8), url: request.url))
        }
        let pipeline = ContractRunner(transport: transport, hostname: "test")
        let inCode = await ContractVerifier(endpointClosure: gitHubAPIEndpoint, verifier: pipeline).verify(
            GitHubAPI.allCases)
        let fromFiles = pipeline.run(try ManifestLoader(environment: [:]).load(paths: [folder]))

        let codeChecked = inCode.results.filter { $0.contract.name != "avatar" }
        #expect(codeChecked.map(\.contract.name) == fromFiles.results.map(\.contract.name))
        #expect(codeChecked.map(\.outcome) == fromFiles.results.map(\.outcome))
        #expect(codeChecked.map(\.findings) == fromFiles.results.map(\.findings))
        #expect(fromFiles.results.map(\.outcome).contains(.drifted))
        #expect(fromFiles.results.map(\.outcome).contains(.passed))
    }

    @Test func aURLOutsideTheBaseURLCannotBeExported() {
        let closure = { (target: TestTarget) -> Endpoint in
            Endpoint(
                url: "https://uploads.example.com/x", sampleResponseClosure: { .networkResponse(200, Data()) },
                method: .get, task: .requestPlain, httpHeaderFields: nil)
        }
        #expect {
            try ContractManifest(
                service: "S", targets: [TestTarget(name: "up")], converter: TargetConverter(endpointClosure: closure))
        } throws: { error in
            "\(error)".hasPrefix(
                "TestTarget.up: cannot be exported to the file format: its URL 'https://uploads.example.com/x' is not below"
            )
        }
    }

    @Test func targetsWithDifferentBaseURLsAreSeparateServices() {
        let targets = [TestTarget(name: "a"), TestTarget(name: "b", baseURL: literalURL("https://other.example.com"))]
        #expect(throws: ContractError.self) { try ContractManifest(service: "S", targets: targets) }
    }

    @Test func sampleFileNamesAreSafeAndUnique() throws {
        let targets: [GitHub] = [.userProfile("a/b"), .userProfile("c")]
        let export = try ContractManifest(service: "GitHub", targets: targets)
        #expect(
            export.samples.map(\.path) == ["samples/github/userProfile_a_b.json", "samples/github/userProfile_c.json"])
    }
}
