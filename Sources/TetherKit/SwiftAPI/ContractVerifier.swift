import Foundation

/// Verifies Moya-shaped targets from Swift code: each target becomes a `Contract` (through `TargetConverter`), and the
/// CLI's `ContractRunner` checks them, so the rules, transport and reports are the CLI's.
///
/// `verify` runs on the caller's actor (`nonisolated(nonsending)`), so a verifier owned by the main actor works, and the
/// endpoint closure is called where Moya would call it; the requests themselves run on a thread of their own, so
/// neither the caller's actor nor the cooperative pool is blocked.
///
/// ```swift
/// let verifier = ContractVerifier(endpointClosure: customEndpointClosure,
///                                 baseURL: URL(string: "http://127.0.0.1:8080"))
/// let report = await verifier.verify(GitHub.allCases)
/// try report.writeJUnit(to: "reports/junit.xml")
/// ```
public struct ContractVerifier {
    /// How targets become contracts: the endpoint closure, the base URL override, added headers.
    public var converter: TargetConverter
    /// `isStrict` and `isExhaustive`.
    public var checks: CheckOptions
    /// How requests travel: `jobs`, `timeout`, limits, retries, TLS.
    public var transport: TransportOptions
    /// Sends the requests and times the run.
    public var verifier: ContractRunner
    /// A HAR file to replay on 127.0.0.1 for the run (`--mock`): every request goes to that server instead.
    public var mockHAR: String?
    /// The provider's OpenAPI document (`--spec`): each target is checked against it too, and every finding says
    /// which of stub, service and spec drifted.
    public var spec: String?
    /// Send nothing: check each target's request and stub against `spec` alone (`--offline`).
    public var isOffline: Bool = false
    /// How every target's service signs in before the targets are sent (a manifest's `"auth"`): OAuth2 client
    /// credentials or a sign-in call; the token is fetched once, again once after a 401, and redacted everywhere.
    public var signIn: ServiceSignIn?

    /// A verifier using Moya's default endpoint mapping.
    /// - Parameters:
    ///   - baseURL: Where to send requests instead of each target's `baseURL` (`--base-url`).
    ///   - isStrict: Keys the live body has and the stub lacks are drifts (`--strict`).
    ///   - isExhaustive: A target whose stub asserts no body drifts, and for a `CaseIterable` target type every case
    ///     the verification leaves out drifts (`--exhaustive`; see `BodyCoverage`).
    ///   - jobs: Requests in flight at once (`--jobs`).
    ///   - timeout: Seconds per request, start to last byte (`--timeout`).
    ///   - headers: Headers added to every request, e.g. a token.
    ///   - mockHAR: A HAR file to replay on 127.0.0.1 and verify against (`--mock`), instead of the service.
    ///   - rules: Service-wide rules (a manifest's top-level `"rules"`); each target's `rules` add to them.
    ///   - spec: The provider's OpenAPI document (`--spec`).
    ///   - isOffline: Send nothing; check against `spec` alone (`--offline`).
    ///   - verifier: The pipeline; its transport is libcurl by default.
    public init(
        baseURL: URL? = nil, isStrict: Bool = false, isExhaustive: Bool = false, jobs: Int = 8, timeout: Double = 30,
        headers: [String: String] = [:], mockHAR: String? = nil, rules: ContractRules = ContractRules(),
        spec: String? = nil, isOffline: Bool = false, verifier: ContractRunner = ContractRunner()
    ) {
        self.mockHAR = mockHAR
        self.spec = spec
        self.isOffline = isOffline
        self.converter = TargetConverter(baseURL: baseURL, headers: headers)
        self.converter.rules = rules
        self.checks = CheckOptions(isStrict: isStrict, isExhaustive: isExhaustive)
        self.transport = TransportOptions(jobs: jobs, timeout: timeout)
        self.verifier = verifier
    }

    /// A verifier using your endpoint closure, as `MoyaProvider(endpointClosure:)` does: its URL, headers, task and
    /// stubbed response (`sampleResponseClosure`) are what is verified.
    /// - Parameters:
    ///   - endpointClosure: Maps a target to its endpoint; applies to targets of its type (also inside `MultiTarget`).
    ///   - baseURL: Where to send requests instead of each target's `baseURL` (`--base-url`).
    ///   - isStrict: Keys the live body has and the stub lacks are drifts (`--strict`).
    ///   - isExhaustive: A target whose stub asserts no body drifts, and for a `CaseIterable` target type every case
    ///     the verification leaves out drifts (`--exhaustive`; see `BodyCoverage`).
    ///   - jobs: Requests in flight at once (`--jobs`).
    ///   - timeout: Seconds per request, start to last byte (`--timeout`).
    ///   - headers: Headers added to every request, e.g. a token.
    ///   - mockHAR: A HAR file to replay on 127.0.0.1 and verify against (`--mock`), instead of the service.
    ///   - rules: Service-wide rules (a manifest's top-level `"rules"`); each target's `rules` add to them.
    ///   - spec: The provider's OpenAPI document (`--spec`).
    ///   - isOffline: Send nothing; check against `spec` alone (`--offline`).
    ///   - verifier: The pipeline; its transport is libcurl by default.
    public init<Target: TargetType>(
        endpointClosure: @escaping (Target) -> Endpoint, baseURL: URL? = nil, isStrict: Bool = false,
        isExhaustive: Bool = false, jobs: Int = 8, timeout: Double = 30, headers: [String: String] = [:],
        mockHAR: String? = nil, rules: ContractRules = ContractRules(), spec: String? = nil, isOffline: Bool = false,
        verifier: ContractRunner = ContractRunner()
    ) {
        self.mockHAR = mockHAR
        self.spec = spec
        self.isOffline = isOffline
        self.converter = TargetConverter(endpointClosure: endpointClosure, baseURL: baseURL, headers: headers)
        self.converter.rules = rules
        self.checks = CheckOptions(isStrict: isStrict, isExhaustive: isExhaustive)
        self.transport = TransportOptions(jobs: jobs, timeout: timeout)
        self.verifier = verifier
    }

    /// Verifies every target against the live service (or `baseURL`).
    ///
    /// A target that cannot become a contract (e.g. text `sampleData` where its content type says JSON) is an
    /// `.error` result naming the target and is listed in `contractErrors`; the other targets are still verified.
    /// Uploads, downloads and `networkError` stubs are skipped with the reason. No targets: the report says nothing
    /// was checked and is not a pass.
    /// - Parameter targets: Any sequence of targets, e.g. `GitHub.allCases` or `[MultiTarget]`.
    /// - Returns: The report, in target order.
    nonisolated(nonsending) public func verify<Targets: Sequence>(_ targets: Targets) async -> ContractReport
    where Targets.Element: TargetType {
        await perform(Array(targets)).report
    }

    /// Verifies the targets of a `CaseIterable` API type; with `isExhaustive`, as TCA's `TestStore` fails a test that
    /// leaves state unasserted, every case of `allCases` that `targets` leaves out is a drifted result (cases compare
    /// by their description, associated values included), after the verified ones.
    /// - Parameter targets: Some or all of the type's cases, e.g. `GitHub.allCases`.
    /// - Returns: The report, in target order, then the cases not covered.
    nonisolated(nonsending) public func verify<Targets: Sequence>(_ targets: Targets) async -> ContractReport
    where Targets.Element: TargetType & CaseIterable {
        let given = Array(targets)
        var report = await perform(given).report
        if checks.isExhaustive { report.run.results += uncovered(by: given) }
        return report
    }

    /// One drifted result for each case of `Target.allCases` that `given` does not hold.
    private func uncovered<Target: TargetType & CaseIterable>(by given: [Target]) -> [ContractResult] {
        let covered = Set(given.map { String(describing: $0) })
        let all = Array(Target.allCases)
        let names = TargetConverter.uniqueNames(for: all)
        return zip(all, names).compactMap { target, unique in
            let described = String(describing: target)
            guard !covered.contains(described) else { return nil }
            let (service, name) = (unique.service, unique.name)
            let contract =
                (try? converter.contract(for: target, service: service, name: name).contract)
                ?? Contract(
                    service: service, name: name, baseURL: target.baseURL.absoluteString,
                    request: HTTPRequest(method: target.method.rawValue, url: URL(target: target).absoluteString),
                    sampleData: .none, source: "ContractVerifier.verify")
            let finding = Finding(
                .drift, .notVerified, at: .target,
                "not verified: \(service).\(described) is a case of \(Target.self).allCases that this verification "
                    + "left out: verify \(Target.self).allCases, or drop isExhaustive", expected: "verified",
                actual: "not verified")
            return ContractResult(contract: contract, outcome: .drifted, findings: [finding])
        }
    }

    /// Verifies one target and also decodes its live body with the app's model and decoder (the decode check).
    ///
    /// A `DecodingError` becomes a drift at its coding path (`$.items[3].price`) with the decoder's reason. The body
    /// is decoded only when the live status is the stub's (another status answers another case).
    /// - Parameters:
    ///   - target: The target.
    ///   - model: The type the app decodes this target's body into, e.g. `[Repository].self`.
    ///   - decoder: The app's decoder, with its date, key and data strategies.
    /// - Returns: The report of this one target.
    nonisolated(nonsending) public func verify<Target: TargetType, Model: Decodable>(
        _ target: Target, decodes model: Model.Type, using decoder: JSONDecoder = JSONDecoder()
    ) async -> ContractReport {
        let recorder = ResponseRecorder()
        let (contractReport, isSent) = await perform([target], onResponse: recorder.record)
        guard isSent else { return contractReport }
        var report = contractReport.run
        let errors = contractReport.contractErrors
        // Only a sent target with a response has a body to decode: skipped and broken targets are never sent.
        if let index = report.results.indices.first {
            var result = report.results[index]
            if case .network(let statusCode, _) = result.contract.sampleResponse,
                let response = recorder.responses.first
            {
                if response.statusCode == statusCode {
                    result.findings += DecodeCheck.findings(decoding: model, from: response.body, using: decoder)
                } else {
                    result.findings.append(
                        Finding(
                            .note, .notCompared, at: .body,
                            "not decoded as \(Model.self): the status differs from the stub's"))
                }
                if result.findings.contains(where: \.isDrift) { result.outcome = .drifted }
                report.results[index] = result
            }
        }
        return ContractReport(run: report, contractErrors: errors)
    }

    // MARK: - Steps

    /// Where each target's result comes from: the run (by contract index), or a result made here.
    private enum Planned {
        case sent(Int, Contract)
        case made(ContractResult)
    }

    /// Starts the mock server if asked, converts, runs, merges. `isSent` is false when the mock could not start.
    nonisolated(nonsending) private func perform<Target: TargetType>(
        _ targets: [Target], onResponse: @escaping @Sendable (Int, HTTPResponse) -> Void = { _, _ in }
    ) async -> (report: ContractReport, isSent: Bool) {
        // The transport's own set-up (libcurl's, OpenSSL's) on the other core while the targets are converted, as
        // `tether verify` does while it reads the manifests. Waited for on every way out, sent or not.
        let startUp = isOffline ? nil : verifier.transport.startUp()
        defer { startUp?.wait() }
        var converter = converter
        var server: MockServer?
        var recording: HARArchive?
        if let mockHAR {
            do {
                let (mock, archive) = try MockServer.replaying(harFile: mockHAR)
                converter.baseURL = URL(string: mock.baseURL)
                server = mock
                recording = archive
            } catch {
                let (_, plan, errors) = prepare(targets, converter: converter)
                let message = "cannot replay \(mockHAR): \(error)"
                let results = plan.map { planned in
                    switch planned {
                    case .sent(_, let contract): ContractResult(contract: contract, outcome: .error(message))
                    case .made(let result): result
                    }
                }
                let run = RunReport(
                    results: results, startedAt: verifier.now(), duration: 0, hostname: verifier.hostname)
                return (ContractReport(run: run, contractErrors: errors), false)
            }
        }
        var (contracts, plan, errors) = prepare(targets, converter: converter)
        if let signIn {
            for index in contracts.indices { contracts[index].signIn = signIn }
        }
        recording?.shareCredentials(with: &contracts)
        let specs: SpecSet
        do {
            specs = try SpecOptions(documents: spec.map { [.init(path: $0)] } ?? [], isOffline: isOffline)
                .load(for: contracts)
        } catch {
            // A document that cannot be read checks nothing: every target says why, with the document's problems.
            let message = ([error.description] + error.diagnostics).joined(separator: "\n")
            let results = plan.map { planned in
                switch planned {
                case .sent(_, let contract): ContractResult(contract: contract, outcome: .error(message))
                case .made(let result): result
                }
            }
            let run = RunReport(results: results, startedAt: verifier.now(), duration: 0, hostname: verifier.hostname)
            return (ContractReport(run: run, contractErrors: errors), false)
        }
        let run = await Self.run(
            contracts, verifier: verifier, checks: checks, transport: transport, specs: specs, isOffline: isOffline,
            onResponse: onResponse)
        withExtendedLifetime(server) {}
        return (ContractReport(run: merged(run, plan: plan), contractErrors: errors), true)
    }

    private func prepare<Target: TargetType>(_ targets: [Target], converter: TargetConverter) -> (
        [Contract], [Planned], [ContractError]
    ) {
        var contracts: [Contract] = []
        var plan: [Planned] = []
        var errors: [ContractError] = []
        let names = TargetConverter.uniqueNames(for: targets)
        // The app's code (target properties, endpoint and stub closures) runs here, on the caller's actor; checking
        // what it said and building each request is pure, and for many targets runs on DeepStack's threads.
        let asked = targets.indices.map {
            converter.asked(targets[$0], service: names[$0].service, name: names[$0].name)
        }
        let rules = converter.rules
        func build(_ index: Int) -> Result<TargetContract, ContractError> {
            Result { () throws(ContractError) in try TargetConverter.contract(from: asked[index], rules: rules) }
        }
        let converted =
            asked.count < Self.parallelConversionCount || ProcessEnvironment.activeProcessorCount < 2
            ? asked.indices.map(build)
            : DeepStack.concurrentMap(name: "tether-convert", iterations: asked.count, build)
        contracts.reserveCapacity(converted.count)
        plan.reserveCapacity(converted.count)
        for index in converted.indices {
            switch converted[index] {
            case .success(let converted):
                if let reason = converted.skipReason {
                    plan.append(.made(ContractResult(contract: converted.contract, outcome: .skipped(reason))))
                } else {
                    plan.append(.sent(contracts.count, converted.contract))
                    contracts.append(converted.contract)
                }
            case .failure(let error):
                errors.append(error)
                let target = targets[index]
                let request = HTTPRequest(method: target.method.rawValue, url: URL(target: target).absoluteString)
                let contract = Contract(
                    service: names[index].service, name: names[index].name, baseURL: target.baseURL.absoluteString,
                    request: request, sampleData: .none, source: error.file)
                plan.append(.made(ContractResult(contract: contract, outcome: .error(error.description))))
            }
        }
        // A service-wide rule whose path no stub has is a typo that would check nothing. (Without such rules, no
        // stub is read: each keeps its text until its response is checked.)
        let pathRules = converter.rules.pathRules
        let stubs: [JSONValue?] =
            pathRules.isEmpty
            ? []
            : plan.map { planned in
                switch planned {
                case .sent(_, let contract): contract.sampleData.jsonValue
                case .made(let result): result.contract.sampleData.jsonValue
                }
            }
        for (rule, path) in pathRules
        where !stubs.contains(where: { !ContractRules.stubValues(at: path, in: $0).isEmpty }) {
            errors.append(
                ContractError(
                    file: "ContractVerifier(rules:)",
                    "rules.\(rule): path '\(path)' matches nothing in any target's stub: fix the path, or move the "
                        + "rule to the targets that have it"))
        }
        return (contracts, plan, errors)
    }

    /// From this many targets on, and with two cores or more, their contracts are built on DeepStack's threads (with
    /// one core, one thread would do the work while the caller waits, for the cost of starting it). Below it, starting
    /// the threads costs more than it saves: building 256 of bench/run's targets took 1.2 ms on the caller's thread and
    /// 1.7 ms on two others, 1,000 took 4.0 and 3.2 ms (medians of 8 runs on 2 cores).
    static let parallelConversionCount = 512

    private func merged(_ run: RunReport, plan: [Planned]) -> RunReport {
        var report = run
        report.results = plan.map { planned in
            switch planned {
            case .sent(let index, _): run.results[index]
            case .made(let result): result
            }
        }
        return report
    }

    /// Runs the blocking pipeline on a thread of its own, so that the cooperative pool is never blocked, whose stack
    /// holds the deepest body (`DeepStack`: a Darwin thread's default 512 KB does not).
    nonisolated(nonsending) private static func run(
        _ contracts: [Contract], verifier: ContractRunner, checks: CheckOptions, transport: TransportOptions,
        specs: SpecSet = SpecSet(), isOffline: Bool = false, onResponse: @escaping @Sendable (Int, HTTPResponse) -> Void
    ) async -> RunReport {
        await withCheckedContinuation { continuation in
            DeepStack.start(name: "tether-verify") {
                // No sinks here: the report is written on request.
                let report =
                    isOffline
                    ? verifier.check(contracts, against: specs)
                    : verifier.run(
                        contracts, checks: checks, transport: transport, specs: specs, onResponse: onResponse)
                continuation.resume(returning: report)
            }
        }
    }
}

/// Keeps the live responses a run hands over, for checks that need the body (the decode check).
final class ResponseRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [HTTPResponse] = []

    /// Every response so far, in arrival order.
    var responses: [HTTPResponse] {
        lock.withLock { recorded }
    }

    /// For `ContractRunner.run`'s `onResponse`.
    func record(_ index: Int, _ response: HTTPResponse) {
        lock.withLock { recorded.append(response) }
    }
}
