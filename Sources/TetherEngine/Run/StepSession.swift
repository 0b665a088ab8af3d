#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What one set-up or clean-up step did, for the reports: steps are not test cases (no JUnit counts), but the
/// console's `--verbose`, the HTML and the JSON lines show each with its status and time.
public struct StepRecord: Sendable, Equatable {
    /// Before or after its target (or its service's targets).
    public enum Phase: String, Sendable {
        /// A set-up step.
        case before
        /// A clean-up step.
        case after

        /// `set-up` or `clean-up`, for messages.
        public var label: String { self == .before ? "set-up" : "clean-up" }
    }

    /// The step's service.
    public var service: String
    /// The target the step belongs to; `nil` for a service-level step (once per run).
    public var target: String?
    /// The step's name.
    public var name: String
    /// Before or after.
    public var phase: Phase
    /// The request as sent (captured values filled in), or as written when it could not be sent.
    public var request: HTTPRequest
    /// The answer's status, when one came.
    public var status: Int?
    /// Seconds the step took.
    public var duration: Double
    /// Why the step failed (`expected 201, got 403`), or `nil` when it succeeded.
    public var failure: String?

    /// `set-up step createRecord: expected 201, got 403`, when it failed.
    public var failureMessage: String? {
        failure.map { "\(phase.label) step \(name): \($0)" }
    }
}

/// The steps of one target, or of one service, as they run: the values their answers capture, and the records.
struct StepSession {
    let transport: any HTTPTransport
    /// How requests travel; clean-up steps go without the run's cancellation, so that Ctrl-C still cleans up.
    let options: TransportOptions
    /// The request as sent: with the service's sign-in token, when it signs in.
    let sign: (HTTPRequest) -> HTTPRequest
    /// The captured values so far (a target's session starts with its service's).
    var values: [String: String]
    /// The captured values that are secrets (by their name or source, or sent in a credential header).
    var secrets: [String] = []
    /// Every step run, in order.
    var records: [StepRecord] = []

    /// Runs `steps` in order; set-up steps stop at the first failure, clean-up steps all run (one whose values were
    /// never captured is recorded as not sent).
    /// - Returns: The first failure's message, or `nil` when every step succeeded.
    mutating func run(_ steps: [Step], phase: StepRecord.Phase, service: String, target: String?) -> String? {
        var firstFailure: String?
        for step in steps {
            let record = run(step, phase: phase, service: service, target: target)
            records.append(record)
            if let message = record.failureMessage {
                firstFailure = firstFailure ?? message
                if phase == .before { break }
            }
        }
        return firstFailure
    }

    /// `request` with the captured values in place; values sent in a credential header become secrets.
    mutating func filled(_ request: HTTPRequest) -> Result<HTTPRequest, StepCaptures.Problem> {
        for header in request.headers where header.isCredential {
            for name in StepCaptures.names(in: header.value) {
                if let value = values[name], !value.isEmpty, !secrets.contains(value) { secrets.append(value) }
            }
        }
        return StepCaptures.filled(request, with: values)
    }

    private mutating func run(_ step: Step, phase: StepRecord.Phase, service: String, target: String?)
        -> StepRecord
    {
        var record = StepRecord(
            service: service, target: target, name: step.name, phase: phase, request: step.request, status: nil,
            duration: 0, failure: nil)
        let request: HTTPRequest
        switch filled(step.request) {
        case .success(let filled): request = sign(filled)
        case .failure(let problem):
            record.failure = "not sent: \(problem)"
            return record
        }
        record.request = request
        var options = options
        if phase == .after { options.cancellation = nil }
        guard let result = transport.send([request], options: options).first else {
            record.failure = "no answer"
            return record
        }
        switch result {
        case .failure(let error):
            record.duration = error.duration
            record.failure = error.isInterrupted ? TransportError.interruptedMessage : error.description
        case .success(let response):
            record.status = response.statusCode
            record.duration = response.duration
            guard step.succeeds(response.statusCode) else {
                record.failure = "expected \(step.expectation), got \(response.statusCode)"
                return record
            }
            for capture in step.captures {
                guard let value = Self.value(of: capture.source, in: response) else {
                    record.failure = "answered \(response.statusCode) without a value at \(capture.source)"
                    return record
                }
                values[capture.name] = value
                if capture.isSecret, !value.isEmpty, !secrets.contains(value) { secrets.append(value) }
            }
        }
        return record
    }

    /// A captured value: a header's, or the string, number or boolean at a JSON path (its JSON text for an object or
    /// an array).
    private static func value(of source: Step.Source, in response: HTTPResponse) -> String? {
        switch source {
        case .header(let name):
            return response.headers.first { $0.isNamed(name) }?.value
        case .body(let path):
            guard let body = try? JSONReader().value(response.body),
                let value = ContractRules.stubValues(at: path, in: body).first
            else { return nil }
            switch value {
            case .string(let text): return text
            case .null: return nil
            default: return String(decoding: value.serialized(), as: UTF8.self)
            }
        }
    }
}
