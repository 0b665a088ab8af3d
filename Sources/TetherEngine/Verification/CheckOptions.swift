/// How strictly a run's checks read the stubs: what `--strict` and `--exhaustive` change. A target's own rules win
/// over these (`"strict": false` in its rules keeps extra keys notes under `--strict`).
public struct CheckOptions: Sendable, Equatable {
    /// Keys the live body has and the stub lacks are drifts, not notes (`--strict`).
    public var isStrict: Bool
    /// A checked target whose stub has no body contract drifts (`--exhaustive`; see `BodyCoverage`).
    public var isExhaustive: Bool

    /// - Parameters: as the properties.
    public init(isStrict: Bool = false, isExhaustive: Bool = false) {
        self.isStrict = isStrict
        self.isExhaustive = isExhaustive
    }
}
