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

/// JSON lines for tools (`--json FILE`, or `--json -` for standard output): one object per result as it completes,
/// then one summary object; each line is one JSON document ending in `\n`.
///
/// ```
/// {"type":"result","index":0,"service":"Shop","target":"items","outcome":"drifted","status":200,
///  "request":"GET http://127.0.0.1:8080/items","url":"http://127.0.0.1:8080/items","duration":0.012,
///  "findings":[{"kind":"drift","path":"$[0].price","message":"expected number, got string \"12.50\""}]}
/// {"type":"summary","total":4,"passed":2,"drifted":1,"errors":0,"skipped":1,"duration":0.031,
///  "startedAt":"2026-05-04T03:02:01","exitCode":1}
/// ```
/// Free text (messages, reasons, the request line and URL) is redacted and cut as in the other reports; `status`
/// is `null` when no response arrived, `reason` is there for errors and skips. Lines come in completion order, so
/// each carries its contract's `index`.
public struct JSONLinesReport: ReportSink {
    /// The file, or `-` for standard output.
    public var path: String
    private let standardOutput: (String) -> Void
    private var file: FileOutput?
    private var failure: ReportError?
    private var redactor: Redactor?

    /// - Parameter destination: `path` (a file, or `-`) and where standard output goes.
    public init(destination: ReportDestination) {
        path = destination.path ?? "-"
        standardOutput = destination.standardOutput
    }

    /// Checks that the file can be written, before anything is sent.
    public func prepare() throws(ReportError) {
        if path != "-" { try ReportFile.checkWritable(path) }
    }

    /// Writes the result's line at once.
    public mutating func add(_ result: ContractResult, at index: Int) {
        // Results carry their own contract, so each line is redacted with what that contract knows is secret.
        let redactor = Redactor(contracts: [result.contract])
        emit(Self.line(for: result, at: index, redactor: redactor))
    }

    /// Writes the summary line and closes the file.
    public mutating func finish(_ report: RunReport) throws(ReportError) -> String? {
        for coverage in report.specCoverage {
            // {"type":"specCoverage","file":"openapi.yaml","operations":12,"coveredOperations":…,"uncovered":[…]}
            let record = JSONValue.object([
                JSONMember("type", .string("specCoverage")), JSONMember("file", .string(coverage.file)),
                JSONMember("operations", .integer(Int64(coverage.operations))),
                JSONMember("coveredOperations", .integer(Int64(coverage.coveredOperations))),
                JSONMember("responses", .integer(Int64(coverage.responses))),
                JSONMember("coveredResponses", .integer(Int64(coverage.coveredResponses))),
                JSONMember("uncovered", .array(coverage.uncovered.map { .string($0) })),
            ])
            emit(String(decoding: record.serialized(), as: UTF8.self) + "\n")
        }
        if !report.steps.isEmpty {
            let redactor = Redactor(report: report)
            for step in report.steps {
                emit(
                    String(decoding: Self.step(of: step, redactor: redactor, isLine: true).serialized(), as: UTF8.self)
                        + "\n")
            }
        }
        emit(Self.summaryLine(report))
        file = nil  // closes it
        if let failure { throw failure }
        return path == "-" ? nil : "JSON lines: \(path)"
    }

    /// One result as its JSON line (with the newline).
    static func line(for result: ContractResult, at index: Int, redactor: Redactor) -> String {
        var members: [JSONMember] = [
            JSONMember("type", .string("result")),
            JSONMember("index", .integer(Int64(index))),
            JSONMember("service", .string(result.contract.service)),
            JSONMember("target", .string(result.contract.name)),
            JSONMember("outcome", .string(ReportText.outcomeName(result.outcome))),
            JSONMember("status", result.liveStatusCode.map { .integer(Int64($0)) } ?? .null),
            JSONMember("request", .string(ReportText.requestLine(result, redactor: redactor))),
            JSONMember(
                "url", .string(ReportText.clean(result.liveURL ?? result.requestURL, redactor: redactor))),
            JSONMember("duration", .double(milliseconds(result.duration))),
            JSONMember("attempts", .integer(Int64(result.attempts))),
            JSONMember("flaky", .bool(result.isFlaky)),
            JSONMember("knownDrift", .bool(result.isKnownDrift)),
            JSONMember("pending", .bool(result.isPending)),
        ]
        if let reason = ReportText.reason(result.outcome, redactor: redactor) {
            members.append(JSONMember("reason", .string(reason)))
        }
        if let ref = result.contract.ref { members.append(JSONMember("ref", .string(ref))) }
        let findings = result.findings.map { finding -> JSONValue in
            var members = [
                JSONMember("kind", .string(finding.isDrift ? "drift" : "note")),
                JSONMember("path", .string(ReportText.clean(finding.path, redactor: redactor))),
                JSONMember("message", .string(ReportText.clean(finding.message, redactor: redactor))),
            ]
            if let expected = finding.expected {
                members.append(JSONMember("expected", .string(ReportText.clean(expected, redactor: redactor))))
            }
            if let actual = finding.actual {
                members.append(JSONMember("actual", .string(ReportText.clean(actual, redactor: redactor))))
            }
            members.append(JSONMember("known", .bool(result.knownDrifts.contains(finding))))
            if let culprit = finding.culprit { members.append(JSONMember("culprit", .string(culprit.rawValue))) }
            if let place = finding.specPlace {
                members.append(JSONMember("spec", .string("\(place) \(place.pointer)")))
            }
            return .object(members)
        }
        members.append(JSONMember("findings", .array(findings)))
        if !result.steps.isEmpty {
            members.append(JSONMember("steps", .array(result.steps.map { step(of: $0, redactor: redactor) })))
        }
        if let place = result.contract.declaration {
            members.append(
                JSONMember(
                    "declaration",
                    .object([
                        JSONMember("file", .string(place.file)), JSONMember("line", .integer(Int64(place.line))),
                        JSONMember("column", .integer(Int64(place.column))),
                    ])))
        }
        return String(decoding: JSONValue.object(members).serialized(), as: UTF8.self) + "\n"
    }

    /// A step as JSON: `{"name":"createRecord","phase":"before","request":"POST …","status":201,"duration":12.0}`,
    /// with `"failure"` when it failed; a service-level step also has `"type":"step"` and `"service"`.
    static func step(of step: StepRecord, redactor: Redactor, isLine: Bool = false) -> JSONValue {
        var members: [JSONMember] = []
        if isLine {
            members += [JSONMember("type", .string("step")), JSONMember("service", .string(step.service))]
        }
        members += [
            JSONMember("name", .string(step.name)),
            JSONMember("phase", .string(step.phase.rawValue)),
            JSONMember(
                "request",
                .string(
                    ReportText.clean(
                        StepCaptures.written("\(step.request.method) \(step.request.url)"), redactor: redactor))),
            JSONMember("status", step.status.map { .integer(Int64($0)) } ?? .null),
            JSONMember("duration", .double(milliseconds(step.duration))),
        ]
        if let failure = step.failure {
            members.append(JSONMember("failure", .string(ReportText.clean(failure, redactor: redactor))))
        }
        return .object(members)
    }

    /// The closing summary line (with the newline).
    static func summaryLine(_ report: RunReport) -> String {
        summaryLine(
            counts: report.counts, total: report.results.count, fixed: report.fixed.count,
            duration: milliseconds(report.duration), startedAt: ReportText.timestamp(report.startedAt),
            exitCode: report.exitCode)
    }

    /// The summary line from its parts: a run's, or the merge of shards' (`JSONLinesMerge`).
    static func summaryLine(
        counts: OutcomeCounts, total: Int, fixed: Int, duration: Double, startedAt: String, exitCode: ExitCode
    ) -> String {
        let summary = JSONValue.object([
            JSONMember("type", .string("summary")),
            JSONMember("total", .integer(Int64(total))),
            JSONMember("passed", .integer(Int64(counts.passed))),
            JSONMember("drifted", .integer(Int64(counts.drifted))),
            JSONMember("errors", .integer(Int64(counts.errors))),
            JSONMember("skipped", .integer(Int64(counts.skipped))),
            JSONMember("knownDrifts", .integer(Int64(counts.knownDrifted))),
            JSONMember("pending", .integer(Int64(counts.pending))),
            JSONMember("flaky", .integer(Int64(counts.flaky))),
            JSONMember("fixed", .integer(Int64(fixed))),
            JSONMember("duration", .double(duration)),
            JSONMember("startedAt", .string(startedAt)),
            JSONMember("exitCode", .integer(Int64(exitCode.rawValue))),
        ])
        return String(decoding: summary.serialized(), as: UTF8.self) + "\n"
    }

    /// Seconds rounded to the millisecond, as the console prints them (never negative or infinite).
    private static func milliseconds(_ seconds: Double) -> Double {
        Double(ReportText.seconds(seconds)) ?? 0
    }

    private mutating func emit(_ line: String) {
        guard path != "-" else { return standardOutput(line) }
        guard failure == nil else { return }
        if file == nil {
            guard let output = FileOutput(creating: path) else {
                failure = .write(path: path, reason: "cannot create the file: \(String(cString: strerror(errno)))")
                return
            }
            file = output
        }
        if file?.write(line) == false {
            failure = .write(path: path, reason: "cannot write: \(String(cString: strerror(errno)).lowercased())")
        }
    }
}
