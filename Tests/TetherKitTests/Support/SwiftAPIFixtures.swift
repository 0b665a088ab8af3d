import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A URL from a literal that is known to parse (tests avoid force unwraps too).
func literalURL(_ text: String) -> URL {
    URL(string: text) ?? URL(fileURLWithPath: "/invalid-test-url")
}

/// The GitHub target of Moya's demo and testing guide, written as Moya's documentation writes it.
enum GitHub: CaseIterable {
    case zen
    case userProfile(String)
    case userRepositories(String)

    static let allCases: [GitHub] = [.zen, .userProfile("octocat"), .userRepositories("octocat")]
}

extension GitHub: TargetType {
    var baseURL: URL { literalURL("https://api.github.com") }
    var path: String {
        switch self {
        case .zen: "/zen"
        case .userProfile(let name): "/users/\(name)"
        case .userRepositories(let name): "/users/\(name)/repos"
        }
    }
    var method: TetherKit.Method { .get }
    var task: Task {
        switch self {
        case .userRepositories: .requestParameters(parameters: ["sort": "pushed"], encoding: URLEncoding.default)
        case .zen, .userProfile: .requestPlain
        }
    }
    var sampleData: Data {
        switch self {
        case .zen: Data("Half measures are as bad as nothing at all.".utf8)
        case .userProfile(let name): Data("{\"login\": \"\(name)\", \"id\": 100}".utf8)
        case .userRepositories: Data("[{\"name\": \"Repo Name\"}]".utf8)
        }
    }
    var headers: [String: String]? { nil }
}

/// A target whose every property is set by the test.
struct TestTarget: TargetType, CustomStringConvertible {
    var name = "target"
    var baseURL = literalURL("https://api.example.com")
    var path = "/things"
    var method = TetherKit.Method.get
    var task = Task.requestPlain
    var sampleData = Data()
    var validationType = ValidationType.none
    var headers: [String: String]? = nil

    var description: String { name }
}

/// An `HTTPTransport` test double: answers each request with `handler` and keeps the requests it was sent.
final class StubTransport: HTTPTransport, @unchecked Sendable {
    private let handler: @Sendable (HTTPRequest) -> Result<HTTPResponse, TransportError>
    private let lock = NSLock()
    private var sent: [HTTPRequest] = []

    init(_ handler: @escaping @Sendable (HTTPRequest) -> Result<HTTPResponse, TransportError>) {
        self.handler = handler
    }

    /// Answers every request with this status and body.
    convenience init(status: Int, body: String = "", headers: [HTTPHeader] = []) {
        self.init { request in
            .success(HTTPResponse(statusCode: status, headers: headers, body: Data(body.utf8), url: request.url))
        }
    }

    var requests: [HTTPRequest] { lock.withLock { sent } }

    func send(_ requests: [HTTPRequest], options: TransportOptions) -> [Result<HTTPResponse, TransportError>] {
        lock.withLock { sent += requests }
        return requests.map(handler)
    }
}

extension ContractVerifier {
    /// A verifier whose requests go to `transport`, with a fixed clock and host.
    static func stubbed(_ transport: StubTransport, baseURL: URL? = nil) -> ContractVerifier {
        ContractVerifier(
            baseURL: baseURL,
            verifier: ContractRunner(transport: transport, now: { Date(timeIntervalSince1970: 0) }, hostname: "test"))
    }
}

/// The one contract a target becomes with Moya's default mapping.
func contract(_ target: some TargetType) throws -> Contract {
    try TargetConverter().contract(for: target).contract
}

func bodyText(_ data: Data?) -> String? { data.map { String(decoding: $0, as: UTF8.self) } }
