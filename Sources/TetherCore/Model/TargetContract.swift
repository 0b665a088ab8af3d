#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One Swift target as a contract: the same `Contract` value a manifest gives, so rules, transport and reports are
/// shared. An upload or download target is carried with the reason it is skipped.
public struct TargetContract: Sendable, Equatable {
    /// The contract (for a skipped target: its request without a body).
    public var contract: Contract
    /// Why the target cannot be checked against a service, or `nil` when it can.
    public var skipReason: String?

    /// - Parameters: as the properties.
    public init(contract: Contract, skipReason: String? = nil) {
        self.contract = contract
        self.skipReason = skipReason
    }
}
