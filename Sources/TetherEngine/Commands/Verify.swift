#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `tether verify`: check every selected contract against the live services (or a mock), write the reports, and
/// exit with the gate's verdict.
public struct VerifyCommand: Command {
    /// The run as the options describe it; `run(_:)` completes it with the context (`RunPlan.completed(in:)`).
    public var plan = RunPlan()
    /// Sends and checks (libcurl by default).
    public var runner = ContractRunner()

    /// Every option at its default.
    public init() {}

    /// It sends its contracts' requests (but with `--offline` or `--list`).
    public static var sendsRequests: Bool { true }

    /// `tether verify`.
    public static let configuration = CommandConfiguration(
        names: ["verify"], usage: "tether verify [PATH ...] [OPTIONS]",
        summary: "verify contract files (default: the contracts folder)", help: { help })

    /// Where requests go, which targets, the rules, the gate, the transport and the reports.
    public static let options = OptionTable<VerifyCommand>(
        command: "verify",
        groups: [
            .group({ $0.plan.inputs.baseURLs }, { $0.plan.inputs.baseURLs = $1 }),
            .group({ $0.plan.inputs.mock }, { $0.plan.inputs.mock = $1 }),
            .group({ $0.plan.inputs.filter }, { $0.plan.inputs.filter = $1 }),
            .group({ $0.plan.inputs.sharding }, { $0.plan.inputs.sharding = $1 }),
            .group({ $0.plan.inputs.versions }, { $0.plan.inputs.versions = $1 }),
            .group({ $0.plan.checks }, { $0.plan.checks = $1 }), .group({ $0.plan.gate }, { $0.plan.gate = $1 }),
            .group({ $0.plan.transport }, { $0.plan.transport = $1 }),
            .group({ $0.plan.reports }, { $0.plan.reports = $1 }), .group({ $0.plan.spec }, { $0.plan.spec = $1 }),
            [.help],
        ],
        operand: { $0.plan.inputs.paths.append($1) })

    /// `PATH` defaults to `contracts`.
    public mutating func validate() throws(UsageError) {
        if plan.inputs.paths.isEmpty { plan.inputs.paths = ["contracts"] }
    }

    /// Verifies (or, with `--list`, lists); Ctrl-C and SIGTERM stop the run and the reports keep what finished.
    public func run(_ context: CommandContext) -> ExitCode {
        Self.run(plan.completed(in: context), runner: runner, context: context)
    }

    /// Runs `plan` through `RunPipeline`, as `verify` and the commands that are a verify run with more (`record`)
    /// do: Ctrl-C and SIGTERM raise the plan's cancellation, the reports keep what finished, and the exit code is the
    /// run's (128 + the signal when one came).
    /// - Parameters:
    ///   - plan: The run, completed.
    ///   - runner: Sends and checks.
    ///   - tap: What else the run does with the live responses (`record` keeps them).
    ///   - context: The streams and the stop signals.
    /// - Returns: The exit code.
    static func run(
        _ plan: RunPlan, runner: ContractRunner, tap: @escaping ([Contract]) -> ResponseTap = { _ in ResponseTap() },
        context: CommandContext
    ) -> ExitCode {
        let received = ReceivedSignal()
        let cancellation = plan.transport.cancellation
        let writeError = context.writeError
        context.onStop { signal in
            // Said first: once cancelled, the run may end and exit before a later write (the message was lost so).
            writeError(
                "tether: \(StopSignals.name(signal)): stopping; the report holds what finished (again to quit at once)\n"
            )
            received.record(signal)
            cancellation?.cancel()
        }
        var pipeline = RunPipeline(plan: plan, runner: runner, tap: tap)
        pipeline.keepUntilExit = { context.keepUntilExit($0) }
        pipeline.stoppedBy = { received.value }
        do {
            if plan.reports.isListOnly {
                _ = try pipeline.list(write: context.write)
                return .success
            }
            let report = try pipeline.run(write: context.write, writeError: context.writeError)
            context.keepUntilExit(report)
            return report.exitCode(interruptedBy: received.value)
        } catch {
            return context.fail(error)
        }
    }

    /// `tether verify --help`.
    static var help: String {
        """
        USAGE
          \(configuration.usage)

        PATH is a contract manifest (a JSON file with "targets") or a folder searched for them; default: contracts.

        \(options.helpSections())

        CONTRACTS (contracts/github.json)
          {
            "service": "GitHub",
            "baseURL": "https://api.github.com",
            "headers": { "Authorization": "Bearer ${GITHUB_TOKEN}" },
            "targets": [
              { "name": "userRepositories", "method": "GET", "path": "/users/octocat/repos",
                "query": { "per_page": "2" },
                "sampleData": { "file": "samples/userRepositories.json" } },
              { "name": "unauthorized", "path": "/user", "headers": { "Authorization": null },
                "sampleData": { "json": { "message": "Requires authentication" } },
                "sampleResponse": { "networkResponse": { "statusCode": 401 } } }
            ]
          }
        sampleData: {"file": PATH} | {"json": VALUE} | {"text": "..."} | {"base64": "..."}; absent means Data().
        sampleResponse: {"networkResponse": {"statusCode": N}} (default 200) | {"response": {"statusCode": N,
          "headers": {...}}} | {"networkError": {"code": N, "description": "..."}} (reported as skipped).
        task: "requestPlain" | {"requestData": {"text"|"base64": ...}} | {"requestJSONEncodable": VALUE} |
          {"requestParameters": {"parameters": {...}, "encoding": "url"|"queryString"|"httpBody"|"json"}} |
          {"requestCompositeData": ...} | {"requestCompositeParameters": ...}
        "pending": true on a target: reported, but not failing the gate until it has passed once (see GATE).
        "auth" on a service signs it in once per run: {"oauth2": {"tokenURL", "clientID", "clientSecret", "scope"}} |
          {"login": {"path", "task", "token": "$.access_token" | "tokenHeader": NAME}} | {"basic": {"user",
          "password"}}; a failed sign-in makes the service's targets errors, never drifts.
        "steps": {"before": [STEP ...], "after": [STEP ...]} on a target (or once per run on a service): a STEP is a
          request written as a target is, with "expect": {"status": [201]} and "capture": {"ID": "$.data.id",
          "ETAG": "header:ETag"}, used as ${ID} later; after steps run whatever happened, also at Ctrl-C.
        XML bodies: a stub whose Content-Type is application/xml, text/xml or +xml, a .xml sample file, or a sample
          file that parses as XML is compared by structure (elements by namespace URI, attributes present, text vs
          elements, repeated elements merged) at paths like /feed/entry[3]/title; entities are never expanded, DTDs
          never loaded, and a document declaring entities is refused.
        ${VAR} (or ${VAR:-default}) expands from the environment; values of 6+ characters and credentials in
        Authorization, Cookie and similar headers are shown as <redacted> in every report.
        """
    }
}

extension RunPlan {
    /// The plan with what only the context knows: the environment (`${VAR}`, the CI switches) and whether the
    /// console is colored (`--color`, `NO_COLOR`, a terminal). What `verify` and `record` run.
    /// - Parameter context: Where the command runs.
    /// - Returns: The plan, complete.
    public func completed(in context: CommandContext) -> RunPlan {
        var plan = self
        plan.inputs.environment = context.environment
        plan.reports.color = ConsoleWriter.isColorOn(
            flag: reports.color, environment: context.environment, isTerminal: context.isTerminal)
        return plan
    }
}
