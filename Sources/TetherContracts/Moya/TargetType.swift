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
        self = Self(
            target: target, joined: RequestBuilder.joined(baseURL: target.baseURL.absoluteString, path: target.path))
    }

    private init<Target: TargetType>(target: Target, joined: String) {
        self = URL(string: joined) ?? target.baseURL.appendingPathComponent(target.path)
    }

    /// `URL(target: target).absoluteString` (Moya's endpoint URL), without making the URL when the joined text is
    /// one that `URL(string:)` takes and gives back unchanged (`isKeptWhole`): parsing it was a fifth of converting
    /// 2,000 targets.
    static func absoluteString<Target: TargetType>(target: Target) -> String {
        let joined = RequestBuilder.joined(baseURL: target.baseURL.absoluteString, path: target.path)
        return isKeptWhole(joined) ? joined : URL(target: target, joined: joined).absoluteString
    }

    /// Whether `text` is an absolute `http` or `https` URL that `URL(string:)` keeps byte for byte: a host of
    /// lower-case letters, digits, `.` and `-` with an optional port (1 to 65535 in decimal digits), then only characters RFC 3986 allows
    /// in a path and query as they are (unreserved, sub-delimiters, `:`, `@`, `/`, `?`) and `%` with two hex digits.
    /// Anything else (a fragment, an IPv6 host, upper case, a space, non-ASCII) is left to `URL`.
    static func isKeptWhole(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            let scheme: Int
            if bytes.starts(with: "http://".utf8) {
                scheme = 7
            } else if bytes.starts(with: "https://".utf8) {
                scheme = 8
            } else {
                return false
            }
            var index = scheme
            while index < bytes.count, isHostByte(bytes[index]) { index += 1 }
            guard index > scheme else { return false }
            if index < bytes.count, bytes[index] == UInt8(ascii: ":") {
                let port = index + 1
                index = port
                var number = 0
                while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]),
                    index - port < 5
                {
                    number = number * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                    index += 1
                }
                guard index > port, number <= 65_535 else { return false }
            }
            guard index == bytes.count || bytes[index] == UInt8(ascii: "/") || bytes[index] == UInt8(ascii: "?") else {
                return false
            }
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "%") {
                    guard index + 2 < bytes.count, bytes[index + 1].isASCIIHexDigit, bytes[index + 2].isASCIIHexDigit
                    else {
                        return false
                    }
                    index += 3
                    continue
                }
                guard isPathOrQueryByte(byte) else { return false }
                index += 1
            }
            return true
        }
    }

    private static func isHostByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
    }

    /// Unreserved, sub-delimiters, `:`, `@`, `/` and `?` (RFC 3986's pchar and query, less percent-encoding).
    private static func isPathOrQueryByte(_ byte: UInt8) -> Bool {
        switch byte {
        // ! $ & ' ( ) * + , - . / 0-9 : ; = ? @ A-Z _ a-z ~
        case 0x21, 0x24, 0x26...0x3B, 0x3D, 0x3F...0x5A, 0x5F, 0x61...0x7A, 0x7E: true
        default: false
        }
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
