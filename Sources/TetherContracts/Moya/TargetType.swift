import Foundation

/// Moya's `TargetType`: one API endpoint of a service, usually a case of an enum.
///
/// Tether mirrors Moya's protocol (Moya cannot be built on Linux), so a target written for Moya compiles against
/// Tether with at most an import change; on macOS an existing Moya target becomes a Tether one through a forwarding
/// conformance (see docs/swift-api.md, "Using your Moya targets").
public protocol TargetType {
    /// The target's base URL.
    var baseURL: URL { get }
    /// The path appended to `baseURL` (as `baseURL.appendingPathComponent(path)`), or empty for `baseURL` itself.
    var path: String { get }
    /// The HTTP method.
    var method: Method { get }
    /// The stubbed body: the contract the live body's structure must keep. `Data()` by default.
    var sampleData: Data { get }
    /// What the request sends besides its URL.
    var task: Task { get }
    /// The status codes the live service must answer with; `.none` by default.
    var validationType: ValidationType { get }
    /// The request's headers.
    var headers: [String: String]? { get }
    /// What may vary in the live body beyond the stub's structure (`ContractRules`); none by default. Not Moya's:
    /// a Moya target adopts it in an extension (`extension GitHub { var rules: ContractRules { … } }`).
    var rules: ContractRules { get }
}

extension TargetType {
    /// No rules: the stub's structure is the contract.
    public var rules: ContractRules { ContractRules() }
    /// Moya's default: no stub body, so only the status is checked.
    public var sampleData: Data { Data() }
    /// Moya's default: no status validation beyond the stub's own status code.
    public var validationType: ValidationType { .none }
}

extension URL {
    /// Moya's `URL(target:)`: `baseURL` when `path` is empty, else `baseURL.appendingPathComponent(path)`, as it goes
    /// on the wire: the path before the base's query, the base's fragment dropped (see `RequestBuilder.joined`).
    /// - Parameter target: The target whose URL to build.
    public init<Target: TargetType>(target: Target) {
        let joined = RequestBuilder.joined(baseURL: target.baseURL.absoluteString, path: target.path)
        self = URL(string: joined) ?? target.baseURL.appendingPathComponent(target.path)
    }
}

/// Moya's `MultiTarget`: any target behind one type, so targets of several services can be verified together.
public enum MultiTarget: TargetType {
    /// The wrapped target.
    case target(any TargetType)

    /// - Parameter target: The target to wrap.
    public init(_ target: any TargetType) {
        self = .target(target)
    }

    /// The wrapped target.
    public var target: any TargetType {
        switch self {
        case .target(let target): target
        }
    }

    /// The wrapped target's.
    public var baseURL: URL { target.baseURL }
    /// The wrapped target's.
    public var path: String { target.path }
    /// The wrapped target's.
    public var method: Method { target.method }
    /// The wrapped target's.
    public var sampleData: Data { target.sampleData }
    /// The wrapped target's.
    public var task: Task { target.task }
    /// The wrapped target's.
    public var validationType: ValidationType { target.validationType }
    /// The wrapped target's.
    public var headers: [String: String]? { target.headers }
    /// The wrapped target's rules.
    public var rules: ContractRules { target.rules }
}
