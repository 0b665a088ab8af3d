#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Keeps each live exchange of a run, redacted, and writes them as one strict HAR 1.2 file: `tether record`.
///
/// What the file holds, per target that got a response, in target order: the request as Tether sent it (method, URL,
/// headers, body) and the response as the transport received it (status, reason, protocol, headers, the body
/// decoded from gzip, deflate or br). Every required field of HAR 1.2 is written; times are ISO 8601 with
/// milliseconds in UTC; `timings` holds `send`, `wait` and `receive` (never -1; the whole duration counts as `wait`,
/// since libcurl's phases of a reused connection are not the request's); `content.size` is the stored body's length
/// and `content.text` the body, as text when it is UTF-8, else base64 with `"encoding": "base64"`. Each entry's
/// `comment` names its target (`Service.target`).
///
/// Nothing secret reaches the file: the values of `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie`
/// headers are written as `<redacted>` (a cookie keeps its name and attributes), and every other text, URL and
/// body passes through `BodyRedaction` (the run's secrets in every encoding, `--redact-json` paths). A redacted query
/// value is written `%3Credacted%3E`, which the replay (`HARReplay`) matches to any value of that parameter.
///
/// Targets that got no response (a transport error, an interrupted run) are not in the file; `finish` names them.
public final class HARRecorder: @unchecked Sendable {
    /// The run's contracts, by the index `record(_:_:)` is called with.
    public let contracts: [Contract]
    private let redaction: BodyRedaction
    private let now: @Sendable () -> Date
    private let lock = Lock()
    private var entries: [Int: JSONValue] = [:]

    /// - Parameters:
    ///   - contracts: The run's contracts (indexes as `ContractRunner.run` passes them).
    ///   - redaction: What to hide; its secrets should come from `Redactor(contracts:)`.
    ///   - now: The clock of `startedDateTime` (a response's arrival minus its duration).
    public init(contracts: [Contract], redaction: BodyRedaction, now: @escaping @Sendable () -> Date = { Date() }) {
        self.contracts = contracts
        self.redaction = redaction
        self.now = now
    }

    /// Keeps contract `index`'s live response: the callback of `RunPipeline.onResponse`.
    public func record(_ index: Int, _ response: HTTPResponse) {
        guard contracts.indices.contains(index) else { return }
        let started = now().addingTimeInterval(-response.duration)
        let entry = entry(contracts[index], response, startedAt: started)
        lock.withLock { entries[index] = entry }
    }

    /// How many exchanges are kept.
    public var count: Int { lock.withLock { entries.count } }

    /// The HAR document of what was kept, in target order.
    public func archive() -> JSONValue {
        let kept = lock.withLock { entries }
        let creator: JSONValue = .object([
            JSONMember("name", .string("tether")), JSONMember("version", .string(tetherVersion)),
        ])
        let log: JSONValue = .object([
            JSONMember("version", .string("1.2")),
            JSONMember("creator", creator),
            JSONMember("entries", .array(kept.keys.sorted().compactMap { kept[$0] })),
        ])
        return .object([JSONMember("log", log)])
    }

    /// The targets that were sent but have no response to keep, as `Service.target`.
    public func missing(among report: RunReport) -> [String] {
        let kept = lock.withLock { Set(entries.keys) }
        return report.results.indices.compactMap { index in
            let contract = report.results[index].contract
            guard case .network = contract.sampleResponse, !kept.contains(index) else { return nil }
            return "\(contract.service).\(contract.name)"
        }
    }

    // MARK: Entries

    private func entry(_ contract: Contract, _ response: HTTPResponse, startedAt: Date) -> JSONValue {
        let milliseconds = (max(0, response.duration) * 1_000_000).rounded() / 1000
        let request = contract.request
        let url = recordedURL(request.url)
        var requestMembers: [JSONMember] = [
            JSONMember("method", .string(request.method)),
            JSONMember("url", .string(url)),
            JSONMember("httpVersion", .string(response.httpVersion)),
            JSONMember("cookies", .array([])),
            JSONMember("headers", headers(request.headers)),
            JSONMember("queryString", queryString(of: url)),
        ]
        var requestBodySize = 0
        if let body = request.body {
            let stored = redaction.redact(body: body)
            requestBodySize = stored.count
            let mimeType = request.headers.first { $0.isNamed("Content-Type") }?.value ?? "application/octet-stream"
            // HAR 1.2's postData has no encoding field: bytes that are not UTF-8 are written as base64 and said so.
            if let text = String(data: stored, encoding: .utf8) {
                requestMembers.append(
                    JSONMember(
                        "postData",
                        .object([JSONMember("mimeType", .string(mimeType)), JSONMember("text", .string(text))])))
            } else {
                requestMembers.append(
                    JSONMember(
                        "postData",
                        .object([
                            JSONMember("mimeType", .string(mimeType)),
                            JSONMember("text", .string(stored.base64EncodedString())),
                            JSONMember("comment", .string("base64")),
                        ])))
            }
        }
        requestMembers += [
            JSONMember("headersSize", .integer(-1)), JSONMember("bodySize", .integer(Int64(requestBodySize))),
        ]

        let body = redaction.redact(body: response.body)
        var content: [JSONMember] = [
            JSONMember("size", .integer(Int64(body.count))),
            JSONMember(
                "mimeType", .string(response.header("Content-Type").map(redaction.secrets.redact) ?? "x-unknown")),
        ]
        if let text = String(data: body, encoding: .utf8) {
            content.append(JSONMember("text", .string(text)))
        } else {
            content += [
                JSONMember("text", .string(body.base64EncodedString())), JSONMember("encoding", .string("base64")),
            ]
        }
        // The size on the wire is unknown when the body came compressed; else it is the stored body's.
        let isEncoded =
            response.header("Content-Encoding").map { !$0.isEmpty && $0.lowercased() != "identity" } ?? false
        let responseMembers: [JSONMember] = [
            JSONMember("status", .integer(Int64(response.statusCode))),
            JSONMember("statusText", .string(redaction.secrets.redact(response.reason))),
            JSONMember("httpVersion", .string(response.httpVersion)),
            JSONMember("cookies", .array([])),
            JSONMember("headers", headers(response.headers)),
            JSONMember("content", .object(content)),
            JSONMember("redirectURL", .string(redaction.secrets.redact(response.header("Location") ?? ""))),
            JSONMember("headersSize", .integer(-1)),
            JSONMember("bodySize", .integer(isEncoded ? -1 : Int64(body.count))),
        ]
        return .object([
            JSONMember("startedDateTime", .string(Self.timestamp(startedAt))),
            JSONMember("time", .double(milliseconds)),
            JSONMember("request", .object(requestMembers)),
            JSONMember("response", .object(responseMembers)),
            JSONMember("cache", .object([])),
            JSONMember(
                "timings",
                .object([
                    JSONMember("send", .double(0)), JSONMember("wait", .double(milliseconds)),
                    JSONMember("receive", .double(0)),
                ])),
            JSONMember("comment", .string("\(contract.service).\(contract.name)")),
        ])
    }

    /// The URL as recorded: the scheme and host as sent (a host is no secret, even when a `${VAR}` gave it, and a
    /// HAR's URL must stay a URL), user and password dropped, and the path and query with every secret replaced by
    /// the marker, percent-encoded.
    func recordedURL(_ url: String) -> String {
        var origin = ""
        var target = Substring(url)
        if let separator = url.rangeOfText("://") {
            let authorityEnd = url[separator.upperBound...].firstIndex { "/?#".contains($0) } ?? url.endIndex
            var authority = url[separator.upperBound..<authorityEnd]
            if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
            origin = String(url[..<separator.upperBound] + authority)
            target = url[authorityEnd...]
        }
        return origin
            + redaction.secrets.redact(String(target)).replacingText(
                Redactor.marker, with: Self.encodedMarker)
    }

    /// `<redacted>` as it stands in a recorded URL.
    static let encodedMarker = "%3Credacted%3E"

    private func headers(_ headers: [HTTPHeader]) -> JSONValue {
        .array(
            headers.map { header in
                .object([JSONMember("name", .string(header.name)), JSONMember("value", .string(recordedValue(header)))])
            })
    }

    /// A credential header's value is never written, whatever its length; a cookie keeps its name and attributes.
    private func recordedValue(_ header: HTTPHeader) -> String {
        guard header.isCredential else { return redaction.secrets.redact(header.value) }
        switch header.name.lowercased() {
        case "set-cookie":
            let parts = header.value.split(separator: ";", omittingEmptySubsequences: false)
            guard let first = parts.first, let equals = first.firstIndex(of: "=") else { return Redactor.marker }
            let attributes = parts.dropFirst().map { redaction.secrets.redact(String($0)) }
            return ([first[...equals] + Redactor.marker] + attributes).joined(separator: ";")
        case "cookie":
            return header.value.split(separator: ";").map { pair in
                guard let equals = pair.firstIndex(of: "=") else { return Redactor.marker }
                return pair[...equals] + Redactor.marker
            }.joined(separator: ";")
        default:
            return Redactor.marker
        }
    }

    /// HAR's `queryString`: the URL's pairs, percent-decoded (`+` as a space), in order.
    private func queryString(of url: String) -> JSONValue {
        let query = HAREntry.target(of: url).query
        guard !query.isEmpty else { return .array([]) }
        return .array(
            query.split(separator: "&", omittingEmptySubsequences: false).map { pair in
                let decoded = RequestKey.QueryPair(part: pair)
                return .object([JSONMember("name", .string(decoded.name)), JSONMember("value", .string(decoded.value))])
            })
    }

    /// ISO 8601, UTC, milliseconds: `2026-12-01T11:00:00.123Z`.
    static func timestamp(_ date: Date) -> String {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date)
    }
}

/// The `--out FILE.har` of `tether record`: checked before anything is sent, written atomically at the end.
///
/// A run that stopped early (Ctrl-C, SIGTERM, `--fail-fast`) before every target was answered writes what it recorded
/// beside the file, as `NAME.partial.har`, and leaves `NAME.har` as it was: a partial recording never replaces a
/// complete one. A stream (`/dev/stdout`, a pipe) holds no recording to keep, and takes the partial one itself.
public struct HARRecording: ReportSink {
    /// Where the HAR goes; parent folders are created.
    public var path: String
    /// The exchanges to write.
    public let recorder: HARRecorder
    /// The run's cancellation: raised, the run stopped early.
    public let stop: Cancellation?

    /// - Parameters: as the properties.
    public init(path: String, recorder: HARRecorder, stop: Cancellation? = nil) {
        self.path = path
        self.recorder = recorder
        self.stop = stop
    }

    /// Where a stopped run's recording goes: `recorded.har` → `recorded.partial.har`.
    public var partialPath: String {
        (path.hasSuffix(".har") ? String(path.dropLast(4)) : path) + ".partial.har"
    }

    /// Checks that the path can be written, before anything is sent.
    public func prepare() throws(ReportError) {
        try ReportFile.checkWritable(path)
    }

    /// Writes the HAR; returns `recorded N responses: PATH` (and the targets without one) for the console.
    public mutating func finish(_ report: RunReport) throws(ReportError) -> String? {
        // Secrets the run learned after the exchanges were kept (a sign-in's token, a step's captured secret) are
        // hidden in every string of the archive now.
        let known = Set(Redactor.secrets(contracts: recorder.contracts, runSecrets: []))
        let learned = report.secrets.filter { $0.count >= Redactor.minimumSecretLength && !known.contains($0) }
        var archive = recorder.archive()
        if !learned.isEmpty { archive = archive.mappingStrings(Redactor(secrets: learned).redact) }
        let missing = recorder.missing(among: report)
        let isPartial = stop?.isCancelled == true && !missing.isEmpty
        let isStream = ReportFile.isStream(path)
        let written = isPartial && !isStream ? partialPath : path
        try ReportFile.write(archive.serialized(pretty: true), to: written)
        let count = recorder.count == 1 ? "1 response" : "\(recorder.count) responses"
        var line = "HAR recording: \(written) (\(count))"
        if isPartial {
            line +=
                isStream
                ? "; the run stopped early, so it is partial" : "; the run stopped early, so \(path) was left as it was"
        }
        if !missing.isEmpty {
            let shown = missing.prefix(5).joined(separator: ", ") + (missing.count > 5 ? ", …" : "")
            line += "; not recorded, no response: \(shown)"
        }
        return line
    }
}

extension ResponseTap {
    /// `tether record --out PATH`: keeps every live response, redacted (the run's secrets and `patterns`), and
    /// writes them to `path` as HAR 1.2 once the run ends (to `HARRecording.partialPath` when it stopped early).
    /// - Parameters:
    ///   - path: The HAR file to write.
    ///   - patterns: The `--redact-json` patterns.
    ///   - stop: The run's cancellation (`RunPlan.transport.cancellation`).
    /// - Returns: The tap for `RunPipeline.tap`.
    public static func recording(
        to path: String, redactingJSON patterns: [JSONPathPattern] = [], stop: Cancellation? = nil
    ) -> ([Contract]) -> ResponseTap {
        { contracts in
            let redaction = BodyRedaction(secrets: Redactor(contracts: contracts), patterns: patterns)
            let recorder = HARRecorder(contracts: contracts, redaction: redaction)
            return ResponseTap(
                onResponse: recorder.record,
                sinks: [("--out", HARRecording(path: path, recorder: recorder, stop: stop))])
        }
    }
}

extension JSONValue {
    /// The value with every string (member names too) passed through `transform`.
    func mappingStrings(_ transform: (String) -> String) -> JSONValue {
        switch self {
        case .string(let text): .string(transform(text))
        case .array(let elements): .array(elements.map { $0.mappingStrings(transform) })
        case .object(let members):
            .object(members.map { JSONMember(transform($0.key), $0.value.mappingStrings(transform)) })
        default: self
        }
    }
}
