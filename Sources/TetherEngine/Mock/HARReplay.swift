#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Answers requests with the responses a HAR archive recorded.
///
/// A request matches an entry when the method (case-insensitive), the path and the query agree; the HAR's scheme and
/// host are ignored. Paths are compared percent-decoded; queries as a multiset of percent-decoded `name=value` pairs
/// (`+` read as a space), so order does not matter. A `HEAD` with no recorded `HEAD` is answered from a recorded
/// `GET` (MHD sends no body). When a request was recorded more than once the first entry in the file answers.
/// A recorded `<redacted>` (what `tether record` writes for a secret) as a query value or a whole path segment
/// matches any value there, when no entry matches exactly.
/// Entries without a real status (below 100, as browsers record aborted requests) are not replayed.
/// A request that matches nothing gets 404 with a JSON body naming it and the HAR file, marked as the mock's own answer
/// (see `NotRecorded`), so a run reports it as an error, not as a drift.
public struct HARReplay: Sendable {
    /// Recorded headers that are not replayed: the body was stored decoded, so MHD frames (and does not encode) it,
    /// hop-by-hop headers belong to the recorded connection, not to this one, and the "not recorded" marker belongs
    /// to this mock's own misses only.
    public static let droppedHeaders: Set<String> = [
        "content-encoding", "content-length", "transfer-encoding", "connection", "keep-alive", "proxy-connection",
        "te", "trailer", "upgrade", NotRecorded.headerName.lowercased(),
    ]

    private let responses: [RequestKey: MockResponse]
    /// The entries that hold `<redacted>` in their query or path, in file order: tried when no entry is equal.
    private let redactedResponses: [(key: RequestKey, response: MockResponse)]
    /// The HAR file as the user named it, for the "not recorded" answer.
    public let file: String

    /// Builds the replay table of an archive.
    /// - Parameters:
    ///   - archive: The recorded exchanges.
    ///   - file: The HAR file's name as the user gave it, named in the answer to a request it does not hold.
    public init(_ archive: HARArchive, file: String = "the HAR file") {
        self.file = file
        var responses: [RequestKey: MockResponse] = [:]
        var redactedResponses: [(key: RequestKey, response: MockResponse)] = []
        for entry in archive.entries where entry.isReplayable {
            let key = RequestKey(method: entry.method, path: entry.path, query: entry.query)
            guard responses[key] == nil else { continue }  // first recorded entry wins
            let headers = entry.headers.filter { !HARReplay.droppedHeaders.contains($0.name.lowercased()) }
            let response = MockResponse(status: entry.status, headers: headers, body: entry.body)
            responses[key] = response
            if key.path.contains(Redactor.marker) || key.query.contains(where: { $0.value == Redactor.marker }) {
                redactedResponses.append((key, response))
            }
        }
        self.responses = responses
        self.redactedResponses = redactedResponses
    }

    /// How many distinct requests the replay answers (duplicates and unreplayable entries not counted).
    public var count: Int { responses.count }

    /// The recorded response for a request, or the mock's "not recorded" answer.
    /// - Parameter request: The request received.
    /// - Returns: The first matching recorded response, or a 404 marked `X-Tether-Mock: not-recorded` whose JSON body
    ///   names the HAR file, method, path and query (see `NotRecorded`).
    public func response(for request: MockRequest) -> MockResponse {
        let key = RequestKey(method: request.method, path: request.path, query: request.query)
        if let recorded = responses[key] { return recorded }
        if let recorded = redactedResponses.first(where: { key.isAnswered(byRecorded: $0.key) }) {
            return recorded.response
        }
        if key.method == "HEAD", let recorded = responses[RequestKey(copying: key, method: "GET")] { return recorded }
        return NotRecorded.response(for: request, file: file)
    }
}

extension HARReplay {
    /// One console line for a finished request of `tether serve --har`: method, path (a query shown as `?…`: a
    /// recorded one may hold a credential), `recorded` or `not recorded`, status, time.
    /// - Parameter exchange: The finished request.
    /// - Returns: The line, without a line break.
    public func line(for exchange: MockExchange) -> String {
        let request = exchange.request
        let isMiss = exchange.response.headers.contains {
            $0.isNamed(NotRecorded.headerName) && $0.value == NotRecorded.headerValue
        }
        let target = request.query.isEmpty ? request.path : "\(request.path)?…"
        let text =
            "\(request.method) \(target)  \(isMiss ? "not recorded" : "recorded")  \(exchange.response.status)  "
            + formatted("%.3fs", exchange.seconds)
        return ReportText.escapingControls(text)
    }
}

/// What a request is matched on: upper-cased method, decoded path, sorted decoded query pairs.
struct RequestKey: Hashable {
    var method: String
    var path: String
    var query: [QueryPair]

    struct QueryPair: Hashable, Comparable {
        var name: String
        var value: String

        static func < (lhs: QueryPair, rhs: QueryPair) -> Bool {
            (lhs.name, lhs.value) < (rhs.name, rhs.value)
        }

        init(name: String, value: String) {
            self.name = name
            self.value = value
        }

        /// `a%20b=1` → `a b` and `1`; a name without `=` has an empty value; `+` reads as a space.
        init(part: Substring) {
            if let equals = part.firstIndex(of: "=") {
                self.init(
                    name: RequestKey.decoded(part[..<equals], plusIsSpace: true),
                    value: RequestKey.decoded(part[part.index(after: equals)...], plusIsSpace: true))
            } else {
                self.init(name: RequestKey.decoded(part, plusIsSpace: true), value: "")
            }
        }
    }

    init(method: String, path: String, query: String) {
        self.method = method.uppercased()
        self.path = RequestKey.decoded(Substring(path), plusIsSpace: false)
        self.query = RequestKey.pairs(query)
    }

    init(copying key: RequestKey, method: String) {
        self = key
        self.method = method
    }

    /// `b=2&a=1&a` → `[a=, a=1, b=2]`: empty parts dropped, a name without `=` has an empty value.
    static func pairs(_ query: String) -> [QueryPair] {
        query.split(separator: "&", omittingEmptySubsequences: true).map(QueryPair.init(part:)).sorted()
    }

    /// Whether a recorded key answers this request: equal, or equal but where the recording holds `<redacted>`
    /// (a secret `tether record` hid): as a query value or a whole path segment it matches any value there.
    func isAnswered(byRecorded recorded: RequestKey) -> Bool {
        guard method == recorded.method, query.count == recorded.query.count else { return false }
        if path != recorded.path {
            let segments = path.split(separator: "/", omittingEmptySubsequences: false)
            let recordedSegments = recorded.path.split(separator: "/", omittingEmptySubsequences: false)
            guard segments.count == recordedSegments.count else { return false }
            for (segment, recordedSegment) in zip(segments, recordedSegments)
            where segment != recordedSegment && recordedSegment != Redactor.marker {
                return false
            }
        }
        // Both lists are sorted; a redacted value sorts by its name first, so pair up by name, then value.
        var unmatched = query
        for pair in recorded.query {
            let index =
                unmatched.firstIndex { $0 == pair }
                ?? (pair.value == Redactor.marker ? unmatched.firstIndex { $0.name == pair.name } : nil)
            guard let index else { return false }
            unmatched.remove(at: index)
        }
        return true
    }

    /// A query's names and values in order (a recorded query as `import` writes it in a manifest, a target's as the
    /// spec check reads it): decoded as the replay decodes it (`+` is a space), empty parts dropped, a name without
    /// `=` given an empty value (`flag` is sent as `flag=`, which the replay matches).
    static func queryPairs(_ query: String) -> [(String, String)] {
        query.split(separator: "&", omittingEmptySubsequences: true).map { part in
            guard let equals = part.firstIndex(of: "=") else {
                return (RequestKey.decoded(part, plusIsSpace: true), "")
            }
            return (
                RequestKey.decoded(part[..<equals], plusIsSpace: true),
                RequestKey.decoded(part[part.index(after: equals)...], plusIsSpace: true)
            )
        }
    }

    /// Percent-decoded text; text with a broken escape (`%zz`) is kept as is.
    static func decoded(_ text: Substring, plusIsSpace: Bool) -> String {
        let plain = plusIsSpace ? text.replacingText("+", with: " ") : String(text)
        return plain.percentDecoded ?? plain
    }
}

extension MockServer {
    /// Starts a server on 127.0.0.1 that replays a HAR archive (see `HARReplay` for the matching rules).
    /// - Parameters:
    ///   - archive: The recorded exchanges.
    ///   - file: The HAR file's name as the user gave it, named in the answer to a request it does not hold.
    ///   - port: The port to listen on; 0 (the default) lets the system pick a free one.
    /// - Throws: `MockServerError` when the daemon cannot start.
    public convenience init(replaying archive: HARArchive, file: String = "the HAR file", port: Int = 0)
        throws(MockServerError)
    {
        let replay = HARReplay(archive, file: file)
        try self.init(port: port) { replay.response(for: $0) }
    }
}

extension MockServer {
    /// Starts a server that replays the HAR file at `path`: what `tether verify --mock`, `tether mock`,
    /// `tether serve --har` and `ContractVerifier(mockHAR:)` start, written once.
    /// - Parameters:
    ///   - path: The HAR file, as the user named it.
    ///   - host: The IPv4 address to bind; 127.0.0.1 by default.
    ///   - port: The port to listen on; 0 (the default) lets the system pick a free one.
    ///   - allowsCrossOrigin: Answer a web page of another origin (`CrossOrigin`): `tether serve` and `tether mock`
    ///     but with `--no-cors`.
    ///   - onLine: Called with one console line per request as it ends (`tether serve`), if given.
    /// - Returns: The running server and the archive it replays.
    /// - Throws: `MockServerError.har` when the file cannot be read as HAR, else as the server's `init`.
    public static func replaying(
        harFile path: String, host: String = "127.0.0.1", port: Int = 0, allowsCrossOrigin: Bool = false,
        onLine: (@Sendable (String) -> Void)? = nil
    ) throws(MockServerError) -> (server: MockServer, archive: HARArchive) {
        let archive: HARArchive
        do {
            archive = try HARArchive.load(contentsOf: path)
        } catch {
            throw .har(error)
        }
        let replay = HARReplay(archive, file: path)
        let (answer, line) = CrossOrigin.serve(
            { replay.response(for: $0) }, lines: { replay.line(for: $0) }, isOn: allowsCrossOrigin)
        var onFinish: (@Sendable (MockExchange) -> Void)?
        if let onLine { onFinish = { exchange in onLine(line(exchange)) } }
        let server = try MockServer(host: host, port: port, onFinish: onFinish, handler: answer)
        return (server, archive)
    }
}
