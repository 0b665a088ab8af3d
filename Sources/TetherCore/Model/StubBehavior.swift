#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Moya's `StubBehavior`. Tether always sends requests, so a provider's stub behaviour does not change what is
/// verified; `tether serve` honours it (`Contract.stubBehavior`, from `TargetConverter.stubClosure` or a manifest's
/// `"stubBehavior"`), `.never` serving as `.immediate`.
public enum StubBehavior: Sendable, Equatable {
    /// Do not stub.
    case never
    /// Answer the stub at once.
    case immediate
    /// Answer the stub after a delay.
    case delayed(seconds: TimeInterval)

    /// The longest delay a manifest may declare (an hour): a longer one is a typo, not a test.
    public static let longestDelay: TimeInterval = 3600

    /// Seconds a served stub waits before it answers: the delay of `.delayed`, else 0.
    public var delay: TimeInterval {
        if case .delayed(let seconds) = self { return max(0, seconds) }
        return 0
    }
}
