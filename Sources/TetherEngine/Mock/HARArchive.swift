#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One recorded exchange of a HAR file: the request that was sent and the response that came back.
public struct HAREntry: Sendable, Equatable {
    /// The request method as recorded (`GET`, `POST`, …).
    public var method: String
    /// The request URL as recorded (scheme and host included).
    public var url: String
    /// The URL's path, percent-encoded as recorded (`/search/issues`); `/` when the URL has none.
    public var path: String { HAREntry.target(of: url).path }
    /// The URL's query, percent-encoded as recorded, without `?`; empty when there is none.
    /// Taken from the URL, never from the HAR's `queryString` list, which exporters fill inconsistently.
    public var query: String { HAREntry.target(of: url).query }
    /// The recorded status (0 when the exporter recorded none, e.g. a request the browser aborted).
    public var status: Int
    /// The recorded response headers, in order, wire-only ones (`Content-Encoding`, `Content-Length`) included.
    public var headers: [HTTPHeader]
    /// The response body as the client saw it: HAR stores it decoded (after gzip), base64 already undone.
    public var body: Data
    /// The recorded request headers, in order, as the exporter wrote them (HTTP/2 pseudo-headers such as
    /// `:authority` and credentials included: whoever copies them filters them).
    public var requestHeaders: [HTTPHeader] = []
    /// Whether the entry has a `response` at all; an entry without one has status 0 and is never replayed.
    public var hasResponse = true
    /// Whether a replay answers with this entry: it has a real status, 100 or more (browsers record an aborted request
    /// as 0, and some exporters other numbers below 100). `verify --mock`, `mock` and `serve` read only these.
    public var isReplayable: Bool { status >= 100 }

    /// Creates an entry.
    /// - Parameters:
    ///   - method: The request method.
    ///   - url: The request URL.
    ///   - status: The response status.
    ///   - headers: The response headers.
    ///   - body: The decoded response body.
    public init(method: String, url: String, status: Int, headers: [HTTPHeader] = [], body: Data = Data()) {
        self.method = method
        self.url = url
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Splits a URL (absolute, or a request target as a client sends it) into its percent-encoded path and query;
    /// the fragment is dropped, and so are the scheme and authority of an absolute URL.
    ///
    /// The one split of HAR matching: the recorded URLs (`path`, `query`) and the requests the mock server receives
    /// (`MockRequest`) both go through it, so that the two sides of a match agree.
    /// - Parameter url: `https://host/a/b?x=1#frag`, `/a/b?x=1`, or an empty string.
    /// - Returns: The path (`/` when there is none) and the query without `?` (empty when there is none).
    static func target(of url: String) -> (path: String, query: String) {
        let (head, query) = RequestBuilder.split(url)
        var path = Substring(head)
        // Only a scheme (a letter, then letters, digits, `+`, `-`, `.`) before `://` makes the URL absolute: in
        // `/go?to=https://h.test/x` the `://` is part of the query.
        if let scheme = path.rangeOfText("://"), isScheme(path[..<scheme.lowerBound]) {
            let authority = path[scheme.upperBound...]
            path = authority[(authority.firstIndex(of: "/") ?? authority.endIndex)...]
        }
        return (path.isEmpty ? "/" : String(path), query ?? "")
    }

    /// Whether `text` is a URL scheme (RFC 3986): an ASCII letter, then ASCII letters, digits, `+`, `-` or `.`.
    private static func isScheme(_ text: Substring) -> Bool {
        guard let first = text.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else { return false }
        return text.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0))
        }
    }
}

/// A HAR 1.2 file (HTTP Archive, as browsers, Charles, Proxyman and mitmproxy export it), reduced to what a replay
/// needs.
///
/// Accepted quirks of real exports: no `pages` or `pageref`; bodies in base64 (`content.encoding: "base64"`); no
/// `content.text` (an empty body); no `queryString`, or one that disagrees with the URL (the URL counts); no `response`
/// (status 0, not replayed, as an aborted request). Entries keep
/// the file's order, duplicates included; a replay answers a repeated request with the first recorded entry.
public struct HARArchive: Sendable, Equatable {
    /// The recorded exchanges in file order.
    public var entries: [HAREntry]
    /// One line per entry that is not replayed because it has no response (or no real status, as browsers record
    /// aborted requests): `github.har: entries[3] (GET /user) has no response: skipped`. The query is left out: it
    /// may hold a credential.
    public var notes: [String]

    /// The credentials the recorded traffic carries: every entry's sensitive header values (`Authorization`, `Cookie`,
    /// `Set-Cookie`, …; `Redactor.sensitiveHeaderValues`) and the credentials written into its URL, each once. A run
    /// that replays the file, and an import of it, hide them as a run hides its contracts' own: a recorded answer may
    /// echo them, and no contract of the run knows them.
    public var secrets: [String] {
        var seen = Set<String>()
        var found: [String] = []
        for entry in entries {
            for secret in Redactor.sensitiveHeaderValues(entry.requestHeaders + entry.headers)
                + HTTPRequest.credentials(in: entry.url)
            where seen.insert(secret).inserted {
                found.append(secret)
            }
        }
        return found
    }

    /// `notes`, the recorded credentials (`secrets`) hidden: what a command that reads the file says of it.
    public var redactedNotes: [String] {
        guard !notes.isEmpty else { return [] }
        let redactor = Redactor(secrets: secrets)
        return notes.map { redactor.redact($0) }
    }

    /// Makes the recorded credentials (`secrets`) each contract's, hidden whatever their length wherever the run
    /// writes: a replayed answer may echo them, and every report, stub and rule of the run is redacted by its
    /// contracts.
    public func shareCredentials(with contracts: inout [Contract]) {
        let secrets = self.secrets
        guard !secrets.isEmpty else { return }
        for index in contracts.indices { contracts[index].credentials += secrets }
    }

    /// Creates an archive from entries (for tests and for archives built in code).
    /// - Parameters:
    ///   - entries: The exchanges in order.
    ///   - notes: Lines about entries that were skipped.
    public init(entries: [HAREntry], notes: [String] = []) {
        self.entries = entries
        self.notes = notes
    }

    /// Reads and parses a HAR file.
    /// - Parameter path: The file's path.
    /// - Returns: The archive.
    /// - Throws: `HARError` naming the file when it does not exist, is a folder, cannot be read, is not JSON, is not
    ///   HAR (no `log.entries`, a field of the wrong type), has an entry without `request.url`, holds invalid base64,
    ///   or has nothing to replay.
    public static func load(contentsOf path: String) throws(HARError) -> HARArchive {
        let (exists, isFolder) = path.fileKind
        guard exists else {
            throw .unreadable(path: path, reason: "no such file")
        }
        guard !isFolder else { throw .isFolder(path: path) }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .unreadable(path: path, reason: fileErrorReason(error))
        }
        return try parse(data, path: path)
    }

    /// Parses HAR text.
    /// - Parameters:
    ///   - data: The file's bytes.
    ///   - path: The file's name, for messages.
    /// - Returns: The archive.
    /// - Throws: `HARError` as `load(contentsOf:)` does; `noEntries` for an empty `log.entries`, `nothingToReplay`
    ///   when no entry has a response status (every request was aborted).
    public static func parse(_ data: Data, path: String) throws(HARError) -> HARArchive {
        // The project's one JSON reader decides what is JSON (strict, as for manifests) and says where it is not;
        // the decoder then only maps the fields.
        do {
            _ = try JSONReader().value(data)
        } catch {
            throw .notJSON(path: path, line: error.line, column: error.column, detail: error.detail)
        }
        let hasBOM = data.starts(with: [0xEF, 0xBB, 0xBF])
        let file: HARFile
        do {
            file = try JSONDecoder().decode(HARFile.self, from: hasBOM ? data.dropFirst(3) : data)
        } catch let error as DecodingError {
            throw decodingFailure(error, path: path, data: data)
        } catch {
            throw .notJSON(path: path, line: nil, column: nil, detail: String(describing: error))
        }
        guard let log = file.log else {
            let top = HARError.place([], in: data)
            throw .notHAR(path: path, line: top?.line, column: top?.column, detail: "missing log")
        }
        guard let entries = log.entries else {
            let found = HARError.place([HARCodingKey("log")], in: data)
            throw .notHAR(path: path, line: found?.line, column: found?.column, detail: "missing log.entries")
        }
        var result: [HAREntry] = []
        var notes: [String] = []
        result.reserveCapacity(entries.count)
        for (index, entry) in entries.enumerated() {
            let parsed: HAREntry
            do {
                parsed = try entry.entry(index: index, path: path)
            } catch {
                throw error.placed(in: data)
            }
            if !parsed.isReplayable {
                let why =
                    parsed.status == 0 || !parsed.hasResponse
                    ? "has no response" : "has status \(parsed.status), which is no HTTP status (100 to 599)"
                notes.append("\(path): entries[\(index)] (\(parsed.method) \(parsed.path)) \(why): skipped")
            } else if !parsed.url.hasPrefix("/") && !HTTPRequest.isHTTPURL(parsed.url) {
                // A replay matches by path and query: such an entry answers a path that no target asks for. Quoted
                // without its query, where a recorded token would be.
                let shown = parsed.url.prefix { $0 != "?" }.prefix(60)
                notes.append(
                    "\(path): entries[\(index)] has url '\(shown)', not an http or https URL: it answers no request; "
                        + "fix its url, or remove it")
            }
            result.append(parsed)
        }
        guard !result.isEmpty else { throw .noEntries(path: path) }
        guard result.contains(where: \.isReplayable) else {
            throw .nothingToReplay(path: path, count: result.count)
        }
        return HARArchive(entries: result, notes: notes)
    }

    private static func decodingFailure(_ error: DecodingError, path: String, data: Data) -> HARError {
        switch error {
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            return .notJSON(path: path, line: nil, column: nil, detail: context.debugDescription)
        case .dataCorrupted(let context):
            return .notHAR(path: path, detail: "\(jsonPath(context.codingPath)): \(context.debugDescription)")
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            let place = context.codingPath.isEmpty ? "the top level" : jsonPath(context.codingPath)
            // Where it is and what it holds, as a manifest's errors say: the file was read as JSON already.
            guard let found = try? JSONReader().document(data).value(atCodingPath: context.codingPath) else {
                return .notHAR(path: path, detail: "\(place): expected \(describe(type))")
            }
            return .notHAR(
                path: path, line: found.line, column: found.column,
                detail: "\(place): expected \(describe(type)), got \(found.value.given)")
        case .keyNotFound(let key, let context):
            let found = HARError.place(context.codingPath, in: data)  // the object that lacks it
            return .notHAR(
                path: path, line: found?.line, column: found?.column,
                detail: "\(jsonPath(context.codingPath + [key])): missing")
        @unknown default:
            return .notHAR(path: path, detail: String(describing: error))
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Int.Type, is Double.Type: return "a number"
        case is [Any].Type: return "an array"
        default: return "an object"
        }
    }

    /// `log.entries[3].response.status` from a coding path.
    static func jsonPath(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text
    }
}

/// Why a HAR file could not be used.
public enum HARError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file cannot be read.
    case unreadable(path: String, reason: String)
    /// The path names a folder.
    case isFolder(path: String)
    /// `log.entries` is empty.
    case noEntries(path: String)
    /// Every one of the `count` entries lacks a response status (aborted requests): none can be replayed.
    case nothingToReplay(path: String, count: Int)
    /// The file is not JSON; `detail` is the reader's message, `line` and `column` where the bytes go wrong.
    case notJSON(path: String, line: Int?, column: Int?, detail: String)
    /// The file is JSON but not HAR: `detail` names the missing or mistyped field (`missing log.entries`), `line`
    /// and `column` where a mistyped one is.
    case notHAR(path: String, line: Int? = nil, column: Int? = nil, detail: String)
    /// Entry `index` (0-based, as in `log.entries[index]`) cannot be replayed: `detail` says why; `line` and
    /// `column` where the entry (or its request) is.
    case invalidEntry(path: String, index: Int, detail: String, line: Int? = nil, column: Int? = nil)
    /// Entry `index` says `content.encoding: "base64"` but its `content.text` is not base64, at `line` and `column`.
    case invalidBase64(path: String, index: Int, line: Int? = nil, column: Int? = nil)

    /// The message: lower case (what it quotes keeps its case), naming the file and what to do.
    public var description: String {
        switch self {
        case .unreadable(let path, let reason):
            return "\(path): cannot read the HAR file (\(reason)); check the path"
        case .isFolder(let path):
            return "\(path) is a folder, not a HAR file; pass the .har file itself"
        case .noEntries(let path):
            return "\(path) has no entries: nothing to replay; record the requests and export the HAR file again"
        case .nothingToReplay(let path, let count):
            return "\(path): none of its \(count) entries has a response status (the requests were aborted): "
                + "nothing to replay; record the requests again and export the HAR file"
        case .notJSON(let path, let line, let column, let detail):
            let place = ContractError.place(path, line: line, column: column)
            return "\(place): \(HARError.sentence(detail)); export the HAR file again"
        case .notHAR(let path, let line, let column, let detail):
            let place = ContractError.place(path, line: line, column: column)
            return "\(place): not a HAR 1.2 file: \(detail); export it as HAR from the browser or proxy"
        case .invalidEntry(let path, let index, let detail, let line, let column):
            let place = ContractError.place(path, line: line, column: column)
            return "\(place): log.entries[\(index)]: \(detail); fix or remove this entry"
        case .invalidBase64(let path, let index, let line, let column):
            let place = ContractError.place(path, line: line, column: column)
            return "\(place): log.entries[\(index)].response.content.text: invalid base64 "
                + "(content.encoding is \"base64\"); fix the text or drop the encoding"
        }
    }

    /// A library's sentence inside our message: its first word lower-cased when it is a plain capitalised word
    /// (`Unexpected` → `unexpected`, `JSON` stays), everything it quotes untouched, the closing full stop dropped.
    static func sentence(_ text: String) -> String {
        var trimmed = text.trimmingWhitespaceAndNewlines()
        while trimmed.hasSuffix(".") { trimmed.removeLast() }
        let word = trimmed.prefix { $0.isLetter }
        guard let first = word.first, first.isUppercase, word.count > 1 || word == "A",
            word.dropFirst().allSatisfy(\.isLowercase)
        else {
            return trimmed
        }
        return first.lowercased() + trimmed.dropFirst()
    }
}

// MARK: - HAR 1.2 schema (only the fields a replay reads; everything else is ignored)

private struct HARFile: Decodable {
    var log: Log?

    struct Log: Decodable {
        var entries: [Entry]?
    }

    struct NameValue: Decodable {
        var name: String
        var value: String
    }

    struct Entry: Decodable {
        var request: Request?
        var response: Response?

        struct Request: Decodable {
            var method: String?
            var url: String?
            var headers: [NameValue]?
        }

        struct Response: Decodable {
            var status: Int?
            var headers: [NameValue]?
            var content: Content?
        }

        struct Content: Decodable {
            var text: String?
            var encoding: String?
        }

        func entry(index: Int, path: String) throws(HARError) -> HAREntry {
            guard let request else { throw .invalidEntry(path: path, index: index, detail: "no request") }
            guard let url = request.url, !url.isEmpty else {
                throw .invalidEntry(path: path, index: index, detail: "request has no url")
            }
            guard let method = request.method, !method.isEmpty else {
                throw .invalidEntry(path: path, index: index, detail: "request has no method")
            }
            let requestHeaders = (request.headers ?? []).map { HTTPHeader($0.name, $0.value) }
            // No response (a request still in flight or aborted when the file was saved): kept with status 0, which
            // the replay skips and `HARArchive.notes` names.
            guard let response else {
                var entry = HAREntry(method: method, url: url, status: 0)
                entry.requestHeaders = requestHeaders
                entry.hasResponse = false
                return entry
            }
            var body = Data()
            if let text = response.content?.text {
                if response.content?.encoding?.lowercased() == "base64" {
                    // Some exporters wrap base64 lines: the manifests' rule, white space skipped.
                    guard let decoded = Data(wrappedBase64: text) else {
                        throw .invalidBase64(path: path, index: index)
                    }
                    body = decoded
                } else {
                    body = Data(text.utf8)
                }
            }
            var entry = HAREntry(
                method: method, url: url, status: response.status ?? 0,
                headers: (response.headers ?? []).map { HTTPHeader($0.name, $0.value) }, body: body)
            entry.requestHeaders = requestHeaders
            return entry
        }
    }
}

extension HARError {
    /// An entry's error with the line and column of what it names, found in the file's bytes (read as JSON once
    /// more, only for the message): the entry, its request, or its `response.content.text`.
    fileprivate func placed(in data: Data) -> HARError {
        func place(_ keys: [HARCodingKey]) -> (line: Int, column: Int)? { Self.place(keys, in: data) }
        switch self {
        case .invalidEntry(let path, let index, let detail, nil, nil):
            let entry: [HARCodingKey] = ["log", "entries", HARCodingKey(index)]
            let found = place(detail == "no request" ? entry : entry + ["request"]) ?? place(entry)
            return .invalidEntry(path: path, index: index, detail: detail, line: found?.line, column: found?.column)
        case .invalidBase64(let path, let index, nil, nil):
            let found = place(["log", "entries", HARCodingKey(index), "response", "content", "text"])
            return .invalidBase64(path: path, index: index, line: found?.line, column: found?.column)
        default:
            return self
        }
    }

    /// The line and column of the value at `keys` in a HAR file's bytes (read as JSON once more, for a message).
    fileprivate static func place(_ keys: [any CodingKey], in data: Data) -> (line: Int, column: Int)? {
        guard let found = try? JSONReader().document(data).value(atCodingPath: keys) else { return nil }
        return (found.line, found.column)
    }
}

/// A member name or an element index of a HAR file, to find a value's place (`JSONDocument.value(atCodingPath:)`).
private struct HARCodingKey: CodingKey, ExpressibleByStringLiteral {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init(stringLiteral value: String) { self.stringValue = value }
    init(intValue: Int) { (self.stringValue, self.intValue) = (String(intValue), intValue) }
    init(_ index: Int) { self.init(intValue: index) }
}
