import Dispatch

#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs the pipeline: contracts → transport → checks → a `RunReport`. It writes nothing; reporting does.
public struct ContractRunner: Sendable {
    /// Where requests go: libcurl, or a test double.
    public var transport: any HTTPTransport
    /// The clock for the report's timestamp; injectable so tests are deterministic.
    public var now: @Sendable () -> Date
    /// Written into each JUnit suite.
    public var hostname: String

    /// - Parameters:
    ///   - transport: Where requests go; libcurl by default.
    ///   - now: The clock.
    ///   - hostname: Written into each JUnit suite.
    public init(
        transport: any HTTPTransport = CurlTransport(), now: @escaping @Sendable () -> Date = { Date() },
        hostname: String = localHostName()
    ) {
        self.transport = transport
        self.now = now
        self.hostname = hostname
    }

    /// Sends every checkable contract's request and checks each answer.
    /// - Parameters:
    ///   - contracts: What to verify.
    ///   - checks: `--strict`, `--exhaustive`.
    ///   - transport: How requests travel.
    ///   - baseline: Marks each result's known drifts and pending state (`--baseline`; with no file, only a
    ///     manifest's `pending` applies), and says which recorded drifts are fixed.
    ///   - inStep: Each answer is checked before the transport goes on, instead of while it sends the next requests:
    ///     for a caller that may stop the run on what a result says (`--fail-fast`), so nothing is sent after it.
    ///   - onResponse: Called with a contract's index and its live response (status, headers, body) as it arrives,
    ///     before it is checked and its body dropped: for callers that keep what the service said (record, update,
    ///     the decode check).
    ///   - onResult: Called once per contract with its index and result as soon as it is known (skipped ones first,
    ///     the others as their responses arrive), so a console can show progress.
    ///   - specs: The OpenAPI documents (`--spec`): each answer is checked against its service's document as well,
    ///     and every finding says which of stub, spec and service drifted (`SpecTriangle`).
    /// - Returns: One result per contract, in contract order (and each document's coverage).
    public func run(
        _ contracts: [Contract], checks: CheckOptions = CheckOptions(),
        transport: TransportOptions = TransportOptions(), baseline: BaselineGate = BaselineGate(), inStep: Bool = false,
        specs: SpecSet = SpecSet(),
        onResponse: (Int, HTTPResponse) -> Void = { _, _ in },
        onResult: (Int, ContractResult) -> Void = { _, _ in }
    ) -> RunReport {
        let startedAt = now()
        let clockStart = DispatchTime.now()
        var contracts = contracts
        // Services that sign in (OAuth2 client credentials) do so once, before any of their targets is sent; a
        // service that cannot makes each of its targets an error, and none of them is sent.
        var signIn = SignIns(transport: self.transport, options: transport)
        for index in contracts.indices where contracts[index].signsIn {
            if contracts[index].isNetworkStub { signIn.prepare(&contracts[index]) }
        }
        // Each contract's sign-in failure, asked once; none when no service signs in (most runs), when every
        // request is sent as its contract has it.
        let signsIn = contracts.contains { $0.signsIn }
        let signInFailures = signsIn ? contracts.map { signIn.failure(for: $0) } : nil
        let isLive = contracts.indices.map { index in
            contracts[index].isNetworkStub && signInFailures?[index] == nil
        }
        // Service-level set-up steps, once per service, before any of its targets; what they capture goes into
        // every target's request. A service whose set-up failed sends none of its targets.
        var services: [String: StepSession] = [:]
        var serviceOrder: [(service: String, steps: Steps)] = []
        var notSent: [Int: String] = [:]
        for index in contracts.indices where isLive[index] {
            let contract = contracts[index]
            guard let steps = contract.serviceSteps, services[contract.unversionedService] == nil else { continue }
            var session = StepSession(
                transport: self.transport, options: transport, sign: { signIn.signed($0, for: contract) }, values: [:])
            _ = session.run(steps.before, phase: .before, service: contract.unversionedService, target: nil)
            services[contract.unversionedService] = session
            serviceOrder.append((contract.unversionedService, steps))
        }
        for index in contracts.indices where !services.isEmpty && isLive[index] {
            guard var session = services[contracts[index].unversionedService] else { continue }
            if let failure = session.records.lazy.compactMap(\.failureMessage).first {
                notSent[index] = "not checked: \(failure) (a step of the service \(contracts[index].service))"
                continue
            }
            for secret in session.secrets where !contracts[index].secrets.contains(secret) {
                contracts[index].secrets.append(secret)
            }
            guard contracts[index].steps == nil else { continue }  // filled once its own steps have run
            switch session.filled(contracts[index].request) {
            case .success(let request): contracts[index].request = request
            case .failure(let problem): notSent[index] = "not sent: \(problem)"
            }
        }
        // A target with steps of its own is sent on its own, after the others: set-up, target, clean-up.
        let stepped = contracts.indices.filter {
            isLive[$0] && notSent[$0] == nil && contracts[$0].steps != nil
        }
        let isSent = contracts.indices.map { index in
            isLive[index] && notSent[index] == nil && contracts[index].steps == nil
        }
        let sendable = contracts.indices.filter { isSent[$0] }
        // A contract that is not sent has its result now; a sent one's is checked as soon as its response arrives,
        // while the others are in flight, and its body is dropped once checked. (A result made for every contract
        // first, then replaced, was 10,000 results made and freed in a 5-version run.)
        func notSentResult(_ index: Int) -> ContractResult {
            let contract = contracts[index]
            if let failure = signInFailures?[index] {
                return baseline.mark(ContractResult(contract: contract, outcome: .error(failure.description)))
            }
            if let reason = notSent[index] {
                return baseline.mark(ContractResult(contract: contract, outcome: .error(reason)))
            }
            return baseline.mark(Self.result(contract: contract, response: nil, isStrict: checks.isStrict))
        }
        var results: [ContractResult?] = contracts.indices.map { isSent[$0] ? nil : notSentResult($0) }
        for (index, result) in results.enumerated() where !isSent[index] && !stepped.contains(index) {
            if let result { onResult(index, result) }
        }
        let parser = try? JSONParser()  // one parser for every body: it keeps its buffers between documents
        // At several git refs (`--ref`), one request is sent once and its answer checked against every version's
        // stub: `sent[position]` is the number in `requests` of the request the target at `position` in `sendable`
        // sends (grouped by request below, `Sharers`).
        var requests: [HTTPRequest] = []
        var sent: [Int] = []
        // The contract that sends each of `requests` first: unsigned, a request is compared with that contract's in
        // place, not with a copy.
        var senders: [Int] = []
        let signer = signIn  // copied once: the closures above hold `signIn` in a box, copied out at each use
        if contracts.contains(where: { $0.ref != nil }) {
            // The numbers in `requests` of the requests with each hash (`SentRequest.hash`): numbers, not copies of
            // the requests (a dictionary of 10,000 requests was 1.3 ms, mostly its memory's first touch).
            var withHash: [Int: [Int]] = [:]
            // The versions list their targets in the same order, mostly: the request after the one last shared is
            // compared first, in place. Each of `requests` is a different request, so an equal one is the one a
            // lookup finds.
            var next = 0
            sent.reserveCapacity(sendable.count)
            for index in sendable {
                var shared = next
                let isNext =
                    shared < requests.count
                    && (signsIn
                        ? signer.signed(contracts[index]) == requests[shared]
                        : contracts[index].sendsTheRequest(of: contracts[senders[shared]]))
                if !isNext {
                    let request = signsIn ? signer.signed(contracts[index]) : contracts[index].request
                    let hash = SentRequest.hash(request)
                    if let found = withHash[hash]?.first(where: { requests[$0] == request }) {
                        shared = found
                    } else {
                        shared = requests.count
                        withHash[hash, default: []].append(shared)
                        requests.append(request)
                        senders.append(index)
                    }
                }
                sent.append(shared)
                next = shared + 1
            }
        } else {
            requests = sendable.map { signsIn ? signer.signed(contracts[$0]) : contracts[$0].request }
            sent = Array(sendable.indices)
        }
        let sharers = Sharers(sent, requests: requests.count)
        // Each stub against its spec, once: for the coverage, and for the triangle when its answer arrives.
        var verdicts: [String: [SpecCheck.Verdict]] = [:]
        var stubFindings: [Int: [Finding]] = [:]
        let stubPlaces = specs.isEmpty ? nil : StubPlaces()
        for (index, contract) in contracts.enumerated() where !specs.isEmpty {
            guard let check = specs.check(for: contract) else { continue }
            let verdict = check.check(stubOf: contract)
            verdicts[check.document.file, default: []].append(verdict)
            stubFindings[index] = verdict.findings
            MappedFiles.releaseReadPages(afterTarget: index)  // the stubs' pages, as the results' below
        }
        var unauthorized: [Int] = []
        func checked(_ index: Int, _ response: Result<HTTPResponse, TransportError>) -> ContractResult {
            if case .success(let live) = response { onResponse(index, live) }
            return Self.result(
                contract: contracts[index], response: response, isStrict: checks.isStrict,
                isExhaustive: checks.isExhaustive, parser: parser,
                spec: specs.check(for: contracts[index]).map { ($0, stubFindings[index] ?? []) },
                stubPlaces: stubPlaces)
        }
        // A result is final: marked by the baseline, stored, and handed on.
        var delivered = 0
        func deliver(_ index: Int, _ result: ContractResult) {
            let marked = baseline.mark(result)
            results[index] = marked
            onResult(index, marked)
            // The stubs checked so far were read from a mapped manifest's pages: back to the page cache with them.
            MappedFiles.releaseReadPages(afterTarget: delivered)
            delivered += 1
        }
        Self.send(requests, through: self.transport, options: transport, inStep: inStep) { position, response in
            // Versions that share a request mostly share the stub too: one check serves each of them alike.
            var last: (contract: Contract, result: ContractResult)?
            for sharer in sharers.positions(sending: position) {
                let index = sendable[sharer]
                // A 401 to a signed-in target: its token may have expired. It waits; the service signs in once more
                // and the target is sent again, once (its first answer is not reported).
                if case .success(let live) = response, live.statusCode == 401, contracts[index].signsIn {
                    unauthorized.append(index)
                    continue
                }
                var result: ContractResult
                // Unsigned, the sharers' requests are equal (each was compared when it was shared); signed, only
                // the signed ones were.
                if let last, specs.isEmpty, last.contract.checksAlike(contracts[index], sendingOneRequest: !signsIn) {
                    if case .success(let live) = response { onResponse(index, live) }
                    result = last.result
                    result.contract = contracts[index]
                } else {
                    result = checked(index, response)
                    last = (contracts[index], result)
                }
                deliver(index, result)
            }
        }
        if !unauthorized.isEmpty {
            signIn.refresh(services: Set(unauthorized.map { contracts[$0].unversionedService }))
            for index in unauthorized {
                if let failure = signIn.failure(for: contracts[index]) {
                    deliver(index, ContractResult(contract: contracts[index], outcome: .error(failure.description)))
                }
            }
            let retried = unauthorized.filter { signIn.failure(for: contracts[$0]) == nil }
            for index in retried { signIn.prepare(&contracts[index]) }  // the new token is a secret of the target too
            Self.send(
                retried.map { signIn.signed(contracts[$0]) }, through: self.transport, options: transport, inStep: true
            ) { position, response in
                deliver(retried[position], checked(retried[position], response))
            }
        }
        for index in stepped {
            let contract = contracts[index]
            var session = StepSession(
                transport: self.transport, options: transport, sign: { signIn.signed($0, for: contract) },
                values: services[contract.unversionedService]?.values ?? [:])
            var result: ContractResult
            if transport.cancellation?.isCancelled == true {
                result = ContractResult(contract: contract, outcome: .error(TransportError.interruptedMessage))
            } else if let failure = session.run(
                contract.steps?.before ?? [], phase: .before, service: contract.service, target: contract.name)
            {
                result = ContractResult(contract: contract, outcome: .error(failure))
            } else {
                switch session.filled(contract.request) {
                case .success(let request):
                    contracts[index].request = request
                    for secret in session.secrets where !contracts[index].secrets.contains(secret) {
                        contracts[index].secrets.append(secret)
                    }
                    let response = self.transport.send([signIn.signed(contracts[index])], options: transport).first
                    result = checked(
                        index, response ?? .failure(TransportError(message: "no answer", url: contract.request.url)))
                case .failure(let problem):
                    result = ContractResult(contract: contract, outcome: .error("not sent: \(problem)"))
                }
            }
            // Clean-up runs whatever happened; its failure makes a passed target an error (a drift stays a drift).
            if let failure = session.run(
                contract.steps?.after ?? [], phase: .after, service: contract.service, target: contract.name),
                result.outcome == .passed
            {
                result.outcome = .error(failure)
            }
            for secret in session.secrets where !result.contract.secrets.contains(secret) {
                result.contract.secrets.append(secret)
            }
            result.steps = session.records
            deliver(index, result)
        }
        // Service-level clean-up, once its targets are done (also after Ctrl-C: clean-up steps ignore it).
        var serviceRecords: [StepRecord] = []
        var stepSecrets: [String] = []
        for (service, steps) in serviceOrder {
            guard var session = services[service] else { continue }
            _ = session.run(steps.after, phase: .after, service: service, target: nil)
            serviceRecords += session.records
            stepSecrets += session.secrets
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - clockStart.uptimeNanoseconds) / 1e9
        // Every sent contract's result has come (a stopped run's as an interruption); one that has not says so.
        // Moved out, not copied: 100,000 results retained here and released with `results` were 5 ms.
        var finished: [ContractResult] = []
        finished.reserveCapacity(results.count)
        for index in results.indices { finished.append(results[index].take() ?? notSentResult(index)) }
        var secrets: [String] = signIn.tokens + stepSecrets
        for result in finished where result.contract.hasSecrets { secrets += result.contract.secrets }
        var report = RunReport(
            results: finished, startedAt: startedAt, duration: seconds, hostname: hostname,
            secrets: Array(Set(secrets)).sorted(), fixed: baseline.fixed(in: finished))
        report.specCoverage = specs.checks.map { SpecCoverage.of($0, verdicts: verdicts[$0.document.file] ?? []) }
        report.steps = serviceRecords
        return report
    }

    /// `--offline`: checks every contract's request and stub against its service's OpenAPI document (`SpecCheck`),
    /// sending nothing. A contract whose service has no document is skipped, saying so.
    /// - Parameters:
    ///   - contracts: What to verify.
    ///   - specs: The documents, by service.
    ///   - baseline: As for `run`.
    ///   - onResult: Called once per contract, in order, with its result.
    /// - Returns: One result per contract, and each document's coverage.
    public func check(
        _ contracts: [Contract], against specs: SpecSet, baseline: BaselineGate = BaselineGate(),
        onResult: (Int, ContractResult) -> Void = { _, _ in }
    ) -> RunReport {
        let startedAt = now()
        let clockStart = DispatchTime.now()
        var results: [ContractResult] = []
        var verdicts: [String: [SpecCheck.Verdict]] = [:]
        let stubPlaces = StubPlaces()
        for (index, contract) in contracts.enumerated() {
            let result: ContractResult
            if let check = specs.check(for: contract) {
                let begin = DispatchTime.now()
                let verdict = check.check(stubOf: contract)
                verdicts[check.document.file, default: []].append(verdict)
                result = ContractResult(
                    contract: contract, outcome: verdict.findings.contains(where: \.isDrift) ? .drifted : .passed,
                    findings: stubPlaces.located(verdict.findings, in: contract),
                    duration: Double(DispatchTime.now().uptimeNanoseconds - begin.uptimeNanoseconds) / 1e9)
            } else {
                result = ContractResult(
                    contract: contract,
                    outcome: .skipped(
                        "no OpenAPI document for the service '\(contract.unversionedService)': add --spec "
                            + "\(contract.unversionedService)=FILE"
                    ))
            }
            results.append(baseline.mark(result))
            onResult(index, results[index])
            MappedFiles.releaseReadPages(afterTarget: index)  // as `run` does
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - clockStart.uptimeNanoseconds) / 1e9
        var report = RunReport(
            results: results, startedAt: startedAt, duration: seconds, hostname: hostname,
            secrets: Array(Set(contracts.flatMap(\.secrets))).sorted(), fixed: baseline.fixed(in: results))
        report.specCoverage = specs.checks.map { SpecCoverage.of($0, verdicts: verdicts[$0.document.file] ?? []) }
        return report
    }

    /// The sign-ins of one run: a token per service, fetched when its first target needs one, fetched again once
    /// after a 401; every token is a secret of the run.
    struct SignIns {
        let transport: any HTTPTransport
        let options: TransportOptions
        private var outcomes: [String: Result<String, SignIn.Failure>] = [:]
        private var refreshed = Set<String>()
        /// Every token fetched (redacted from every output).
        private(set) var tokens: [String] = []

        init(transport: any HTTPTransport, options: TransportOptions) {
            self.transport = transport
            self.options = options
        }

        /// Signs `contract`'s service in, once per service; the token becomes one of the contract's secrets.
        mutating func prepare(_ contract: inout Contract) {
            guard let credentials = contract.signIn else { return }
            if outcomes[contract.unversionedService] == nil {
                secrets[contract.unversionedService] = contract.secrets
                fetch(credentials, for: contract.unversionedService)
            }
            if case .success(let token)? = outcomes[contract.unversionedService], !contract.secrets.contains(token) {
                contract.secrets.append(token)
            }
        }

        /// Signs each service in again, once per run.
        mutating func refresh(services: Set<String>) {
            for service in services.sorted() where refreshed.insert(service).inserted {
                guard let credentials = credentials[service] else { continue }
                fetch(credentials, for: service)
            }
        }

        private var credentials: [String: ServiceSignIn] = [:]
        private var secrets: [String: [String]] = [:]

        private mutating func fetch(_ credentials: ServiceSignIn, for service: String) {
            self.credentials[service] = credentials
            let outcome = SignIn.token(
                credentials, service: service, secrets: secrets[service] ?? [], transport: transport, options: options)
            if case .success(let token) = outcome { tokens.append(token) }
            outcomes[service] = outcome
        }

        /// Why `contract` cannot be sent: its service's sign-in failed.
        func failure(for contract: Contract) -> SignIn.Failure? {
            guard contract.signsIn, case .failure(let failure)? = outcomes[contract.unversionedService] else {
                return nil
            }
            return failure
        }

        /// The request to send: with the token in its header (`Authorization: Bearer TOKEN` unless the sign-in says
        /// otherwise) in place of any it had, when its service signs in.
        func signed(_ contract: Contract) -> HTTPRequest {
            signed(contract.request, for: contract)
        }

        /// `request` (a step's) signed as `contract`'s would be.
        func signed(_ request: HTTPRequest, for contract: Contract) -> HTTPRequest {
            guard let signIn = contract.signIn, case .success(let token)? = outcomes[contract.unversionedService] else {
                return request
            }
            var request = request
            request.headers.removeAll { $0.isNamed(signIn.header) }
            request.headers.append(HTTPHeader(signIn.header, signIn.headerValue(token)))
            return request
        }
    }

    /// Sends the requests on a thread of their own and hands each result to `handle` on this one, in completion
    /// order: the transport keeps the network busy while the answers already in are checked and reported, on two
    /// cores instead of one. A single request is sent here (there is nothing to overlap, and a thread costs time),
    /// and so is every request `inStep`.
    /// At most `jobs` results wait to be handled (or 32 small ones, under 1 MiB of body in all), so bodies do not pile
    /// up when the checks are the slower side.
    private static func send(
        _ requests: [HTTPRequest], through transport: any HTTPTransport, options: TransportOptions, inStep: Bool,
        handle: (Int, Result<HTTPResponse, TransportError>) -> Void
    ) {
        guard requests.count > 1, !inStep else {
            transport.send(requests, options: options, onResult: handle)
            return
        }
        let queue = HandOver<(Int, Result<HTTPResponse, TransportError>)>(capacity: options.jobs) { _, result in
            guard case .success(let response) = result else { return 0 }
            return response.body.count
        }
        DeepStack.start(name: "tether-transport") {
            let put = { @Sendable (position: Int, result: Result<HTTPResponse, TransportError>) in
                queue.put((position, result))
            }
            if let curl = transport as? CurlTransport {
                curl.sendFromAnyLoop(requests, options: options, onResult: put)
            } else {
                transport.send(requests, options: options, onResult: put)
            }
            queue.close()
        }
        while let batch = queue.take() {
            for (position, result) in batch { handle(position, result) }
        }
    }

    static func result(
        contract: Contract, response: Result<HTTPResponse, TransportError>?, isStrict: Bool,
        isExhaustive: Bool = false, parser: JSONParser? = nil,
        spec: (check: SpecCheck, stubFindings: [Finding])? = nil, stubPlaces: StubPlaces? = nil
    ) -> ContractResult {
        if case .networkError(let code, let description) = contract.sampleResponse {
            let what = description.isEmpty ? "code \(code)" : "code \(code): \(description)"
            return ContractResult(
                contract: contract,
                outcome: .skipped(
                    "the stub is a networkError (\(what)): there is no response to check against a service"))
        }
        switch response {
        case .none:
            return ContractResult(contract: contract, outcome: .error("no request was sent (internal error)"))
        case .failure(let error):
            // A stopped run (Ctrl-C, SIGTERM) says so in one word: the request line is printed beside it anyway.
            let message = error.isInterrupted ? TransportError.interruptedMessage : error.description
            return ContractResult(
                contract: contract, outcome: .error(message), duration: error.duration, attempts: error.attempts)
        case .success(let live):
            if let message = NotRecorded.errorMessage(for: live) {  // the mock's own miss: not checkable, not a drift
                return ContractResult(
                    contract: contract, outcome: .error(message), liveURL: live.url, duration: live.duration,
                    attempts: live.attempts)
            }
            var findings = ContractCheck.findings(
                contract: contract, response: live, isStrict: isStrict, parser: parser)
            if isExhaustive, let unasserted = BodyCoverage.exhaustiveFinding(for: contract) {
                findings.append(unasserted)
            }
            if let spec {
                findings = SpecTriangle.judge(
                    live: findings, stub: spec.stubFindings, service: spec.check.check(live: live, of: contract))
                if let stubPlaces {
                    // The stub's place beside the spec's, where the stub is the side to change.
                    let stubSide = findings.indices.filter { findings[$0].culprit == .stub }
                    let located = stubPlaces.located(stubSide.map { findings[$0] }, in: contract)
                    for (position, index) in stubSide.enumerated() { findings[index] = located[position] }
                }
            } else if findings.contains(where: { $0.rule == .repeatedKey }) {
                // Where the stub's file has the key again (rare: its file is read for this target alone).
                let places = StubPlaces()
                findings = findings.map { $0.rule == .repeatedKey ? places.located([$0], in: contract)[0] : $0 }
            }
            let outcome: Outcome = findings.contains(where: \.isDrift) ? .drifted : .passed
            return ContractResult(
                contract: contract, outcome: outcome, findings: findings, liveStatusCode: live.statusCode,
                liveURL: live.url, duration: live.duration, attempts: live.attempts)
        }
    }
}

/// This machine's name for the JUnit report, from `gethostname`: `ProcessInfo.hostName` does a blocking reverse DNS
/// lookup on Darwin, which can take seconds on a CI runner.
public func localHostName() -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
    let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return name.isEmpty ? "localhost" : name
}

/// Requests told apart at several refs: two are one request when they are equal (method, URL, headers in order,
/// body).
private enum SentRequest {
    /// A hash of what tells requests apart most often (URL, method, and how many headers and body bytes): equal
    /// requests have equal hashes.
    static func hash(_ request: HTTPRequest) -> Int {
        var hasher = Hasher()
        hasher.combine(request.url)
        hasher.combine(request.method)
        hasher.combine(request.headers.count)
        hasher.combine(request.body?.count ?? -1)
        return hasher.finalize()
    }
}

/// The targets that send each request of a run, grouped by request in two flat arrays, not one array per request
/// (a run at five git refs made 2,000 of them and grew each four times; a run at one ref, one of one element per
/// target).
private struct Sharers {
    /// Positions (in the run's sendable targets), those of request 0 first, then those of request 1, …; ascending
    /// within each request.
    private let positions: [Int]
    /// Where each request's positions start in `positions`, and, last, their count.
    private let starts: [Int]

    /// - Parameters:
    ///   - sent: The number of the request each position sends.
    ///   - requests: How many requests there are.
    init(_ sent: [Int], requests: Int) {
        var starts = [Int](repeating: 0, count: requests + 1)
        for request in sent { starts[request + 1] += 1 }
        for request in 0..<requests { starts[request + 1] += starts[request] }
        var next = starts
        var positions = [Int](repeating: 0, count: sent.count)
        for (position, request) in sent.enumerated() {
            positions[next[request]] = position
            next[request] += 1
        }
        self.positions = positions
        self.starts = starts
    }

    /// The positions of the targets that send request `request`, ascending.
    func positions(sending request: Int) -> ArraySlice<Int> { positions[starts[request]..<starts[request + 1]] }
}
