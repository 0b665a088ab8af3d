#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The Common Test Report Format (ctrf.io, `--ctrf FILE`): one JSON document per run, for the CTRF GitHub reporter
/// and the dashboards that read it. Each target is a test named `Service.target` in the suite of its service; a drift
/// is `failed` with its findings as the message, an error `other`, a skip `skipped`, a pending target's drift
/// `pending`. It is valid against CTRF's published JSON schema (vendored in the tests with its licence).
///
/// ```json
/// {"reportFormat":"CTRF","specVersion":"1.0.0","generatedBy":"tether","timestamp":"2026-12-03T10:00:00Z",
///  "results":{"tool":{"name":"tether","version":"0.3.0"},
///   "summary":{"tests":2,"passed":1,"failed":1,"skipped":0,"pending":0,"other":0,"start":…,"stop":…},
///   "tests":[{"name":"Shop.items","status":"failed","duration":12,"suite":["Shop"],"message":"…"}, …]}}
/// ```
public struct CTRFFile: ReportSink {
    /// Where the document goes, e.g. `reports/ctrf.json`; parent folders are created.
    public var path: String

    /// - Parameter path: Where the document goes.
    public init(path: String) {
        self.path = path
    }

    /// Checks that the path can be written, before anything is sent.
    public func prepare() throws(ReportError) {
        try ReportFile.checkWritable(path)
    }

    /// Writes its file and nothing else: it finishes beside the console.
    public var finishesAlone: Bool { true }

    /// Writes the document; returns `CTRF report: PATH`.
    public mutating func finish(_ report: RunReport) throws(ReportError) -> String? {
        try ReportFile.write(CTRFReport.document(for: report).serialized(pretty: true), to: path, durability: .report)
        return "CTRF report: \(path)"
    }
}

/// Builds the CTRF document of a run.
public enum CTRFReport {
    /// The CTRF version the document follows (its `specVersion`).
    public static let specVersion = "1.0.0"

    /// The document for `report`, every text redacted.
    public static func document(for report: RunReport) -> JSONValue {
        let redactor = Redactor(report: report)
        let start = Int64((report.startedAt.timeIntervalSince1970 * 1000).rounded())
        let stop = start + milliseconds(report.duration)
        var counts = (passed: 0, failed: 0, skipped: 0, pending: 0, other: 0)
        let tests = report.results.map { result -> JSONValue in
            let status: String
            switch result.outcome {
            case .passed:
                status = "passed"
                counts.passed += 1
            case .drifted where result.isPending:
                status = "pending"
                counts.pending += 1
            case .drifted:
                status = "failed"
                counts.failed += 1
            case .skipped:
                status = "skipped"
                counts.skipped += 1
            case .error:
                status = "other"
                counts.other += 1
            }
            var members = [
                JSONMember("name", .string(nonEmpty(ReportText.qualifiedName(result.contract)))),
                JSONMember("status", .string(status)),
                JSONMember("duration", .integer(milliseconds(result.duration))),
                JSONMember("suite", .array([.string(nonEmpty(result.contract.service))])),
                JSONMember("rawStatus", .string(ReportText.statusWord(result.outcome))),
            ]
            let lines = ReportText.findingLines(result, redactor: redactor)
            if result.outcome == .drifted {
                members.append(JSONMember("message", .string(ReportText.driftSummary(result, redactor: redactor))))
                members.append(JSONMember("trace", .string(lines.joined(separator: "\n"))))
            } else if let reason = ReportText.reason(result.outcome, redactor: redactor) {
                members.append(JSONMember("message", .string(reason)))
            }
            if let place = result.contract.declaration {
                members.append(JSONMember("filePath", .string(ReportText.clean(place.file, redactor: redactor))))
                members.append(JSONMember("line", .integer(Int64(place.line))))
            }
            if result.attempts > 1 {
                members.append(JSONMember("retries", .integer(Int64(result.attempts - 1))))
                members.append(JSONMember("flaky", .bool(result.isFlaky)))
            }
            members.append(
                JSONMember(
                    "extra",
                    .object([
                        JSONMember(
                            "request", .string(ReportText.clean(result.requestLine, redactor: redactor))),
                        JSONMember("liveStatus", result.liveStatusCode.map { .integer(Int64($0)) } ?? .null),
                    ])))
            return .object(members)
        }
        let summary = JSONValue.object([
            JSONMember("tests", .integer(Int64(report.results.count))),
            JSONMember("passed", .integer(Int64(counts.passed))),
            JSONMember("failed", .integer(Int64(counts.failed))),
            JSONMember("skipped", .integer(Int64(counts.skipped))),
            JSONMember("pending", .integer(Int64(counts.pending))),
            JSONMember("other", .integer(Int64(counts.other))),
            JSONMember("flaky", .integer(Int64(report.results.filter(\.isFlaky).count))),
            JSONMember("suites", .integer(Int64(Set(report.results.map(\.contract.service)).count))),
            JSONMember("start", .integer(start)), JSONMember("stop", .integer(stop)),
            JSONMember("duration", .integer(stop - start)),
        ])
        return .object([
            JSONMember("reportFormat", .string("CTRF")),
            JSONMember("specVersion", .string(specVersion)),
            JSONMember("timestamp", .string(ReportText.timestamp(report.startedAt) + "Z")),
            JSONMember("generatedBy", .string("tether")),
            JSONMember(
                "results",
                .object([
                    JSONMember(
                        "tool",
                        .object([JSONMember("name", .string("tether")), JSONMember("version", .string(tetherVersion))])),
                    JSONMember("summary", summary),
                    JSONMember("tests", .array(tests)),
                ])),
        ])
    }

    /// Seconds as whole milliseconds, never negative (a duration that is not a number is 0).
    private static func milliseconds(_ seconds: Double) -> Int64 {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return Int64(min(seconds * 1000, Double(Int64.max / 2)).rounded())
    }

    /// CTRF requires names of at least one character.
    private static func nonEmpty(_ text: String) -> String { text.isEmpty ? "unnamed" : text }
}
