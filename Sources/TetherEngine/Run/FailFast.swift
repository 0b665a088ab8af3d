#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `--fail-fast`: the first drift stops the run. Requests not yet answered are cancelled, and their targets are
/// reported as skipped, "not run", naming the drift that stopped the run, in every report, so nobody mistakes them
/// for transport errors.
public final class FailFast: @unchecked Sendable {
    /// The run's cancellation, raised at the first drift that fails the gate.
    public let cancellation: Cancellation
    /// `--fail-on`: the culprits whose drifts fail the gate (`nil` for all); a drift of another culprit does not stop
    /// the run either.
    public let failingCulprits: Set<Finding.Culprit>?
    private let lock = Lock()
    private var firstDrift: String?

    /// - Parameters:
    ///   - cancellation: The run's cancellation (the one Ctrl-C uses too), cancelled at the first drift.
    ///   - failingCulprits: `--fail-on`.
    public init(cancellation: Cancellation, failingCulprits: Set<Finding.Culprit>? = nil) {
        self.cancellation = cancellation
        self.failingCulprits = failingCulprits
    }

    /// The target whose drift stopped the run, as `Service.target`, or `nil` while none has.
    public var stoppedBy: String? { lock.withLock { firstDrift } }

    /// Sees a result as it arrives: a drift stops the run if none has yet, unless it does not fail the gate (every
    /// drift known to `--baseline`, a pending target, or only culprits `--fail-on` leaves out).
    /// - Parameter result: A result, as it arrives.
    public func observe(_ result: ContractResult) {
        guard result.outcome == .drifted, result.failsGate(failingCulprits: failingCulprits) else { return }
        let isFirst = lock.withLock {
            guard firstDrift == nil else { return false }
            firstDrift = ReportText.qualifiedName(result.contract)
            return true
        }
        if isFirst { cancellation.cancel() }
    }

    /// The result as reports show it: a request that the stop interrupted is "not run".
    /// - Parameter result: A result.
    /// - Returns: The same result, or for an interrupted one after the stop, a skip saying why.
    public func relabeled(_ result: ContractResult) -> ContractResult {
        guard let stoppedBy, case .error(let message) = result.outcome, message == TransportError.interruptedMessage
        else { return result }
        var relabeled = result
        relabeled.outcome = .skipped("not run: --fail-fast stopped the run at the first drift (\(stoppedBy))")
        return relabeled
    }
}
