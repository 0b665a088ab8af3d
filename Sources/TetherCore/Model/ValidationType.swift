/// Moya's `ValidationType`: the status codes a target accepts. When a target sets one, a live status outside it is a
/// drift even where the stub's own status differs.
///
/// The one home of the mapping between the cases, their names in a manifest and their status codes: the manifest
/// loader, the Swift API converter and the export all go through it.
public enum ValidationType: Sendable, Equatable {
    /// No validation (Moya's default).
    case none
    /// 200-299.
    case successCodes
    /// 200-399.
    case successAndRedirectCodes
    /// Exactly these codes.
    case customCodes([Int])

    /// The accepted codes, empty for `.none` (as Moya's `statusCodes`).
    public var statusCodes: [Int] {
        switch self {
        case .none: []
        case .successCodes: Array(200...299)
        case .successAndRedirectCodes: Array(200...399)
        case .customCodes(let codes): codes
        }
    }

    /// `Contract.validStatusCodes`: `nil` for `.none`.
    package var validStatusCodes: [Int]? {
        self == .none ? nil : statusCodes
    }

    /// The case whose `validStatusCodes` these are: `nil` is `.none`, 200-299 `.successCodes`, 200-399
    /// `.successAndRedirectCodes`, any other list (the empty one too) `.customCodes`.
    /// - Parameter validStatusCodes: A contract's `validStatusCodes`.
    package init(validStatusCodes: [Int]?) {
        guard let codes = validStatusCodes else {
            self = .none
            return
        }
        self = Self.namedCases.first { $0 != .none && $0.statusCodes == codes } ?? .customCodes(codes)
    }

    /// The cases a manifest names without a value, in the order its messages list them.
    package static let namedCases: [ValidationType] = [.none, .successCodes, .successAndRedirectCodes]

    /// Every case's name in a manifest, in the order its messages list them: `none`, `successCodes`,
    /// `successAndRedirectCodes`, `customCodes`.
    package static let names = namedCases.map(\.name) + ["customCodes"]

    /// The case's name as a manifest writes it (Moya's spelling), e.g. `successCodes`.
    package var name: String {
        switch self {
        case .none: "none"
        case .successCodes: "successCodes"
        case .successAndRedirectCodes: "successAndRedirectCodes"
        case .customCodes: "customCodes"
        }
    }
}

extension Contract {
    /// `validStatusCodes` as Moya's case: `.successCodes` for 200-299, `.none` for `nil`.
    package var validationType: ValidationType { ValidationType(validStatusCodes: validStatusCodes) }
}

/// The status codes of Moya's `ValidationType` cases, kept for source compatibility: the codes are
/// `ValidationType.statusCodes`.
public enum ValidationCodes {
    /// `.successCodes`: 200...299.
    public static let success = ValidationType.successCodes.statusCodes
    /// `.successAndRedirectCodes`: 200...399.
    public static let successAndRedirect = ValidationType.successAndRedirectCodes.statusCodes
}
