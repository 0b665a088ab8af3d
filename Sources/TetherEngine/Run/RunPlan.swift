/// One run, described once: which contracts and where their requests go, how strictly they are checked, how requests
/// travel, what fails the gate, and which reports are written. A command builds it from its options and the
/// environment (`VerifyCommand.plan(in:)`); `RunPipeline` and everything below it only read it.
public struct RunPlan: Sendable {
    /// The manifests, the environment, `--base-url`, `--mock`, `--filter`, `--shard`.
    public var inputs: RunInputs
    /// `--strict`, `--exhaustive`.
    public var checks: CheckOptions
    /// Concurrency, timeouts, retries, TLS, and the run's `Cancellation`.
    public var transport: TransportOptions
    /// `--baseline`, `--update-baseline`, `--fail-on-flaky`, `--fail-fast`.
    public var gate: GateOptions
    /// The report formats and their paths, and the console's detail and color.
    public var reports: ReportOptions
    /// `--spec`, `--offline`, `--list-uncovered`: the OpenAPI documents the targets are checked against.
    public var spec: SpecOptions

    /// - Parameters: as the properties.
    public init(
        inputs: RunInputs = RunInputs(), checks: CheckOptions = CheckOptions(),
        transport: TransportOptions = TransportOptions(), gate: GateOptions = GateOptions(),
        reports: ReportOptions = ReportOptions(), spec: SpecOptions = SpecOptions()
    ) {
        self.inputs = inputs
        self.checks = checks
        self.transport = transport
        // One cancellation per run, made with the plan: Ctrl-C and --fail-fast both raise it.
        if transport.cancellation == nil { self.transport.cancellation = Cancellation() }
        self.gate = gate
        self.reports = reports
        self.spec = spec
    }
}

/// What fails a run's gate beyond its drifts, and when it stops: the baseline of known drifts, flakiness,
/// `--fail-fast`. The policy itself is `ContractResult.failsGate` and `OutcomeCounts.exitCode`; the baseline's is
/// `BaselineGate`.
public struct GateOptions: Sendable, Equatable {
    /// `--baseline FILE`: known drifts and the targets that have passed; read before anything is sent.
    public var baselinePath: String?
    /// `--update-baseline`: write the baseline after the run (new drifts become known, fixed ones are pruned). A
    /// missing file then starts empty. The run's own exit code is still judged against the baseline as it was.
    public var isUpdatingBaseline: Bool
    /// `--fail-on-flaky`: a target that passed only after a retry fails the gate (exit code 3).
    public var failsOnFlaky: Bool
    /// `--fail-fast`: stop sending at the first drift that fails the gate; what was not run is reported as skipped.
    public var isFailFast: Bool

    /// - Parameters: as the properties.
    public init(
        baselinePath: String? = nil, isUpdatingBaseline: Bool = false, failsOnFlaky: Bool = false,
        isFailFast: Bool = false
    ) {
        self.baselinePath = baselinePath
        self.isUpdatingBaseline = isUpdatingBaseline
        self.failsOnFlaky = failsOnFlaky
        self.isFailFast = isFailFast
    }
}
