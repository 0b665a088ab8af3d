import Foundation
import TetherContracts  // with Moya: `import Moya`, and a forwarding `extension GitHub: TetherKit.TargetType` (see docs/swift-api.md)

/// The GitHub API of Moya's demo and testing guide.
public enum GitHub: CaseIterable, Sendable {
    case zen
    case userProfile(String)
    case userRepositories(String)

    /// Every target, with the demo's user.
    public static let allCases: [GitHub] = [.zen, .userProfile("ashfurrow"), .userRepositories("ashfurrow")]
}

extension GitHub: TargetType {
    /// GitHub's API.
    public var baseURL: URL { URL(string: "https://api.github.com") ?? URL(fileURLWithPath: "/") }

    /// Each endpoint's path, as in Moya's demo.
    public var path: String {
        switch self {
        case .zen:
            return "/zen"
        case .userProfile(let name):
            return "/users/\(name.urlEscaped)"
        case .userRepositories(let name):
            return "/users/\(name.urlEscaped)/repos"
        }
    }

    /// Every endpoint here is a GET.
    public var method: TetherContracts.Method { .get }

    /// The repositories are sorted by last push; the others send no parameters.
    public var task: Task {
        switch self {
        case .userRepositories:
            return .requestParameters(parameters: ["sort": "pushed"], encoding: URLEncoding.default)
        default:
            return .requestPlain
        }
    }

    /// The stubs the app's tests and offline builds run on: the contracts.
    public var sampleData: Data {
        switch self {
        case .zen:
            return Data("Half measures are as bad as nothing at all.".utf8)
        case .userProfile(let name):
            return Data("{\"login\": \"\(name)\", \"id\": 100}".utf8)
        case .userRepositories:
            return Data("[{\"name\": \"Repo Name\"}]".utf8)
        }
    }

    /// No extra headers.
    public var headers: [String: String]? { nil }
}

extension String {
    /// The string escaped for a URL path, as in Moya's demo.
    var urlEscaped: String {
        addingPercentEncoding(withAllowedCharacters: .urlHostAllowed) ?? self
    }
}

/// The testing guide's custom endpoint closure: every request answers an immediate 401 (not authorized).
public func customEndpointClosure(_ target: GitHub) -> Endpoint {
    Endpoint(
        url: URL(target: target).absoluteString,
        sampleResponseClosure: { .networkResponse(401, Data(#"{"message": "Requires authentication"}"#.utf8)) },
        method: target.method,
        task: target.task,
        httpHeaderFields: target.headers)
}

/// What the app decodes `userRepositories` into.
public struct Repository: Decodable, Equatable, Sendable {
    /// The repository's name.
    public var name: String
    /// Its stars (`stargazers_count`).
    public var stargazersCount: Int
    /// Its last push (`pushed_at`, ISO 8601).
    public var pushedAt: Date

    /// The app's decoder: snake_case keys, ISO 8601 dates.
    public static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
