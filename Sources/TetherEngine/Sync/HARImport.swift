#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Contracts built from recorded traffic (`tether import FILE.har --service NAME`): one target per distinct method and
/// path of the service's host, each stubbed with the response the mock replays for it.
///
/// The rules, each with a message when an entry is left out (the message names the file and `log.entries[i]`):
/// - the service's base URL is the most common origin (`https://host:port`) of the entries with a response status (a
///   tie goes to the first in the file), or the one `host` names;
///   entries for other hosts are skipped, one message per host that has entries `import --host` could import, saying
///   how (and listing only those);
/// - entries without a response, with status 0 (aborted, blocked), a non-final status (1xx) or a redirect (3xx with a
///   `Location`: `verify` follows redirects, so it never sees that status) are skipped; an entry without a response
///   (or with status 0) is named with its method and URL, whatever its host (`log.entries[1] GET
///   https://expired.badssl.com/style.css: no response was recorded …`), and so is every other entry of another host
///   that cannot be imported;
/// - the first answered entry of a method and path is the target: the one `HARReplay` answers that request with
///   (its first recorded answer); later entries with the same method and path are named as repeats and not imported;
/// - the target keeps the entry's query (`?=` is an empty name with an empty value, `?flag` a name with an empty
///   value, as the replay matches them), the recorded status as `sampleResponse`, and the body byte for byte as its
///   sample file (none for `HEAD`, 204 and 304);
/// - of the request headers only `Accept` is copied: never credentials, HTTP/2 pseudo-headers (`:authority`) or
///   browser and caching headers (`Cookie`, `If-None-Match`, `User-Agent`); request bodies are not copied (they may
///   hold passwords): a target sends none until one is added by hand;
/// - the values reports redact (`Redactor.sensitiveHeaderValues` of every recorded request and response) are replaced
///   with `<redacted>` in the sample files; a body that would no longer be what it was (JSON that stops parsing, bytes
///   that are not UTF-8) is dropped instead, so the target checks the status only.
public struct HARImport: Sendable {
    /// The request headers copied into the manifest (compared case-insensitively).
    public static let copiedRequestHeaders = ["Accept"]

    /// The manifest and sample files to write.
    public var manifest: ContractManifest
    /// The base URL chosen for the service.
    public var baseURL: String
    /// The imported targets' names, in file order.
    public var targetNames: [String]
    /// What was left out or changed, and why: one sentence each, naming the file and the entry.
    public var messages: [String]

    /// Builds the contracts of one service from an archive.
    /// - Parameters:
    ///   - archive: The recorded exchanges.
    ///   - file: The HAR file's name as the user gave it, for messages and the manifest's description.
    ///   - service: The service name (the manifest's `service` and file name).
    ///   - host: The host (`api.example.com`, or with its port) whose entries to import; `nil` takes the most common.
    /// - Throws: `HARImportError` when the service name is empty, `host` has no entry, or no entry can be imported.
    public init(archive: HARArchive, file: String, service: String, host: String? = nil) throws(HARImportError) {
        guard !service.trimmingWhitespace().isEmpty else { throw .emptyService }
        let entries = archive.entries
        let origins = entries.map { Self.origin(of: $0.url) }
        let answered = zip(origins, entries).filter { $0.1.isReplayable }.map(\.0)
        // `--host` looks at every entry; the default counts only the entries that can become targets.
        let counted = host == nil && answered.contains { $0 != nil } ? answered : origins
        let chosen = try Self.chooseOrigin(counted, host: host, file: file)
        baseURL = chosen

        let secrets = archive.secrets
        let redactor = Redactor(secrets: secrets + secrets.map { $0.replacingText("/", with: "\\/") })

        // The entry the replay answers each request with: the first one with a real status, whatever its host.
        var replayed: [RequestKey: Int] = [:]
        for (index, entry) in entries.enumerated() where entry.isReplayable {
            let key = RequestKey(method: entry.method, path: entry.path, query: entry.query)
            if replayed[key] == nil { replayed[key] = index }
        }

        var messages: [String] = []
        var otherHosts: [(origin: String, indices: [Int])] = []
        var notHTTP: [Int] = []  // data:, blob:, ws: and wss: URLs
        var contracts: [TargetContract] = []
        var bodies: [String: (data: Data, fileExtension: String)] = [:]
        var names: [String] = []
        var takenNames = Set<String>()
        var targetOf: [RequestKey: (index: Int, name: String)] = [:]  // by method and path, query left out
        for (index, entry) in entries.enumerated() {
            guard let origin = origins[index] else {
                notHTTP.append(index)
                continue
            }
            // An entry that cannot be imported is named by its URL when its host is not the service's, or when it
            // has no response (a host whose every entry failed is no service to import).
            if let reason = Self.skipReason(entry), origin != chosen || !Self.isAnswered(entry) {
                let url = Redactor.hidingSecretQueryValues(inURL: entry.url)
                messages.append("\(file): log.entries[\(index)] \(entry.method) \(url): \(reason): skipped")
                continue
            }
            guard origin == chosen else {
                if let slot = otherHosts.firstIndex(where: { $0.origin == origin }) {
                    otherHosts[slot].indices.append(index)
                } else {
                    otherHosts.append((origin, [index]))
                }
                continue
            }
            let place = "\(file): log.entries[\(index)] (\(entry.method) \(entry.path)\(Self.querySuffix(entry.query)))"
            if let reason = Self.skipReason(entry) {
                messages.append("\(place): \(reason): skipped")
                continue
            }
            let key = RequestKey(method: entry.method, path: entry.path, query: entry.query)
            if let first = replayed[key], first != index, origins[first] != chosen {
                messages.append(
                    "\(place): skipped: the mock replays log.entries[\(first)] (\(origins[first] ?? "another host")) "
                        + "for the same method, path and query, so 'tether verify --mock' could not check it; "
                        + "import that host with --host, or remove one of the two entries")
                continue
            }
            let pathKey = RequestKey(method: entry.method, path: entry.path, query: "")
            if let target = targetOf[pathKey] {
                let what =
                    key
                        == RequestKey(
                            method: entries[target.index].method, path: entries[target.index].path,
                            query: entries[target.index].query)
                    ? "a repeat of log.entries[\(target.index)]"
                    : "the same method and path as log.entries[\(target.index)], with another query"
                messages.append(
                    "\(place): \(what): target '\(target.name)' keeps log.entries[\(target.index)], the first "
                        + "recorded answer, which 'tether verify --mock' replays too; not imported")
                continue
            }
            let name = Self.uniqueName(for: entry, taken: &takenNames)
            targetOf[pathKey] = (index, name)
            names.append(name)
            let (contract, body, note) = Self.contract(
                entry, name: name, service: service, baseURL: chosen, file: file, redactor: redactor)
            if let note { messages.append("\(place): \(note)") }
            for (parameter, value) in RequestKey.queryPairs(entry.query)
            where parameter.namesASecret && !value.isEmpty && value != Redactor.marker {
                let variable = String(
                    parameter.uppercased().map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" })
                messages.append(
                    "\(place): query parameter '\(parameter)' looks like a credential, and the manifest holds its "
                        + "recorded value: write it as ${\(variable)} (and set \(variable)) before you commit the manifest"
                )
            }
            if let body { bodies[name] = body }
            contracts.append(TargetContract(contract: contract))
        }
        if !notHTTP.isEmpty {
            messages.append(
                "\(file): \(Self.entryList(notHTTP)): not an http or https URL (data:, blob:, ws:, …): skipped")
        }
        for other in otherHosts {
            let host = Self.host(ofOrigin: other.origin)
            messages.append(
                "\(file): \(Self.entryList(other.indices, for: other.origin)): another host than the service's "
                    + "(\(chosen)): skipped; import them as a service of their own with "
                    + "'tether import \(file) --service NAME --host \(host)'")
        }
        self.messages = messages.map { redactor.redact($0) }
        guard !contracts.isEmpty else {
            throw .nothingToImport(file: file, origin: chosen, messages: self.messages)
        }
        targetNames = names
        do {
            manifest = try ContractManifest(
                service: service, contracts: contracts,
                description:
                    "Imported from \(file.pathLastComponent) by Tether \(tetherVersion): the recorded responses of \(chosen).",
                recordedBodies: bodies)
        } catch {
            throw .contract(error)
        }
    }

    /// Reads a HAR file, imports it, and writes the manifest and its sample files into `folder`: what
    /// `tether import` does.
    /// - Parameters:
    ///   - harPath: The HAR file.
    ///   - service: The service name.
    ///   - host: The host to import; `nil` takes the most common.
    ///   - folder: Where the manifest and `samples/<service>/` go (created if missing).
    /// - Returns: The import and the manifest's path.
    /// - Throws: `HARImportError`: the file is no usable HAR, nothing can be imported, the manifest exists already,
    ///   or a file cannot be written.
    public static func run(harPath: String, service: String, host: String?, folder: String) throws(HARImportError)
        -> (HARImport, manifestPath: String)
    {
        let archive: HARArchive
        do {
            archive = try HARArchive.load(contentsOf: harPath)
        } catch {
            throw .har(error)
        }
        let imported = try HARImport(archive: archive, file: harPath, service: service, host: host)
        do {
            return (imported, try imported.manifest.writeNewFiles(to: folder))
        } catch {
            throw .write(error, messages: imported.messages)
        }
    }

    // MARK: - Entries

    /// Whether an entry holds a response: it has one, with a status (status 0 is a request aborted, blocked or
    /// failed, recorded without an answer).
    static func isAnswered(_ entry: HAREntry) -> Bool { entry.hasResponse && entry.status > 0 }

    /// Why an entry cannot become a target of its host, or `nil` when it can.
    static func skipReason(_ entry: HAREntry) -> String? {
        guard entry.hasResponse else {
            return "no response was recorded (the request was still open when the file was exported)"
        }
        switch entry.status {
        case ...0:
            return "no response was recorded (status \(entry.status): the request was aborted, blocked or failed)"
        case ..<100:
            return "status \(entry.status) is out of range 100...599"
        case 100..<200:
            return "status \(entry.status) is not a final response"
        case 300..<400 where entry.headers.contains(where: { $0.isNamed("Location") }):
            return "status \(entry.status) is a redirect ('tether verify' follows redirects, so it would check the "
                + "answer it leads to); import that entry instead"
        case 600...:
            return "status \(entry.status) is out of range 100...599"
        default:
            // A target's path is appended as Moya does (`appendingPathComponent`), which encodes '%' and keeps '/':
            // no target can send an encoded '/', and as '/' it would ask for another resource.
            guard entry.path.uppercased().contains("%2F") else { return nil }
            return "its path holds an encoded '/' (%2F), which a target's path cannot send (Moya appends the path "
                + "with appendingPathComponent, which encodes '%'); check it with a Swift target's endpointClosure"
        }
    }

    /// The contract of an entry, its sample file's bytes and extension, and a note when the body was changed.
    private static func contract(
        _ entry: HAREntry, name: String, service: String, baseURL: String, file: String, redactor: Redactor
    ) -> (Contract, (data: Data, fileExtension: String)?, String?) {
        let path = RequestKey.decoded(Substring(entry.path), plusIsSpace: false)
        let headers = entry.requestHeaders.filter { header in
            copiedRequestHeaders.contains { header.isNamed($0) }
        }.prefix(1)
        let request = RequestBuilder.request(
            method: entry.method, baseURL: baseURL, path: path, query: RequestKey.queryPairs(entry.query),
            headers: Array(headers), task: .plain)
        let (sample, note) = sampleBody(entry, redactor: redactor)
        var sampleData = StubBody.none
        var body: (data: Data, fileExtension: String)?
        if let sample {
            if let value = try? JSONValue.parse(sample) {
                (sampleData, body) = (.json(value), (sample, "json"))
            } else {
                (sampleData, body) = (.text(sample), (sample, fileExtension(entry, sample)))
            }
        }
        let contract = Contract(
            service: service, name: name, baseURL: baseURL, request: request, sampleData: sampleData,
            sampleResponse: .network(statusCode: entry.status, headers: []), source: file)
        return (contract, body, note)
    }

    /// The body to write (redacted), or `nil` for none, and a note when it was redacted or dropped.
    private static func sampleBody(_ entry: HAREntry, redactor: Redactor) -> (Data?, String?) {
        if entry.method.uppercased() == "HEAD" || entry.status == 204 || entry.status == 304 { return (nil, nil) }
        let body = entry.body
        if body.allSatisfy(JSONParser.isWhitespace) { return (nil, nil) }
        guard !redactor.isEmpty else { return (body, nil) }
        guard let text = String(data: body, encoding: .utf8) else {
            let holdsSecret =
                redactor.redact(String(decoding: body, as: UTF8.self)) != String(decoding: body, as: UTF8.self)
            return holdsSecret
                ? (
                    nil,
                    "its body holds a credential of the recorded headers and is not text: not copied, the target checks the status only"
                )
                : (body, nil)
        }
        let redacted = redactor.redactWords(text)
        guard redacted != text else { return (body, nil) }
        let wasJSON = (try? JSONValue.parse(body)) != nil
        if wasJSON, (try? JSONValue.parse(Data(redacted.utf8))) == nil {
            return (
                nil,
                "its body holds a credential of the recorded headers: not copied, the target checks the status only"
            )
        }
        return (
            Data(redacted.utf8),
            "its body holds a credential of the recorded headers: written as \(Redactor.marker) in the sample file"
        )
    }

    /// `json` is decided by parsing; otherwise the response's media type names the extension, else `txt` for UTF-8
    /// text and `bin` for other bytes.
    private static func fileExtension(_ entry: HAREntry, _ data: Data) -> String {
        let media = entry.headers.first { $0.isNamed("Content-Type") }.map { HTTPHeader.mediaType(of: $0.value) } ?? ""
        let known: [(String, String)] = [
            ("text/html", "html"), ("text/plain", "txt"), ("text/css", "css"), ("javascript", "js"),
            ("xml", "xml"), ("image/png", "png"), ("image/jpeg", "jpg"), ("image/gif", "gif"), ("image/svg", "svg"),
            ("image/webp", "webp"), ("application/pdf", "pdf"),
        ]
        if let match = known.first(where: { media.contains($0.0) }) { return match.1 }
        return String(data: data, encoding: .utf8) == nil ? "bin" : "txt"
    }

    /// `2 entries for https://cdn.test (log.entries[0], log.entries[3])`, at most five named.
    private static func entryList(_ indices: [Int], for origin: String? = nil) -> String {
        let count = indices.count == 1 ? "1 entry" : "\(indices.count) entries"
        let listed = indices.prefix(5).map { "log.entries[\($0)]" }.joined(separator: ", ")
        return count + (origin.map { " for \($0)" } ?? "") + " (\(listed)\(indices.count > 5 ? ", …" : ""))"
    }

    private static func querySuffix(_ query: String) -> String {
        query.isEmpty ? "" : "?" + Redactor.hidingSecretValues(ofQuery: query)
    }

    // MARK: - Names

    /// A target name from the path: its words in lower camel case (`/users/octocat/repos` is `usersOctocatRepos`,
    /// `/` is `root`), the method in front for anything but GET (`postIssues`) or a name that would start with a
    /// digit; `2`, `3`, … after a name already taken (compared case-insensitively).
    static func uniqueName(for entry: HAREntry, taken: inout Set<String>) -> String {
        let stem = name(method: entry.method, path: RequestKey.decoded(Substring(entry.path), plusIsSpace: false))
        var name = stem
        var counter = 2
        while taken.contains(name.lowercased()) {
            name = "\(stem)\(counter)"
            counter += 1
        }
        taken.insert(name.lowercased())
        return name
    }

    static func name(method: String, path: String) -> String {
        func words(_ text: String) -> [String] {
            text.split { !($0.isASCII && ($0.isLetter || $0.isNumber)) }.map(String.init)
        }
        func capitalized(_ word: String) -> String { word.prefix(1).uppercased() + word.dropFirst() }
        let pathWords = words(path)
        var name =
            pathWords.isEmpty
            ? "root"
            : (pathWords[0].prefix(1).lowercased() + pathWords[0].dropFirst())
                + pathWords.dropFirst().map(capitalized).joined()
        let verb = words(method).joined().lowercased()
        if verb != "get" || name.first?.isNumber == true {
            name = (verb.isEmpty ? "request" : verb) + capitalized(name)
        }
        return name
    }

    // MARK: - Hosts

    /// `https://api.example.com:8443` of `https://API.example.com:8443/a?b`, scheme and host lower-cased; `nil`
    /// when the URL is not an absolute http or https URL.
    static func origin(of url: String) -> String? {
        guard let scheme = url.rangeOfText("://"), ["http", "https"].contains(url[..<scheme.lowerBound].lowercased())
        else { return nil }
        let authority = url[scheme.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty else { return nil }
        let hostPart = authority.split(separator: "@").last.map(String.init) ?? String(authority)
        return url[..<scheme.lowerBound].lowercased() + "://" + hostPart.lowercased()
    }

    /// `api.example.com:8443` of `https://api.example.com:8443`.
    static func host(ofOrigin origin: String) -> String {
        origin.rangeOfText("://").map { String(origin[$0.upperBound...]) } ?? origin
    }

    private static func chooseOrigin(_ origins: [String?], host: String?, file: String) throws(HARImportError)
        -> String
    {
        var counts: [(origin: String, count: Int)] = []
        for origin in origins.compactMap({ $0 }) {
            if let slot = counts.firstIndex(where: { $0.origin == origin }) {
                counts[slot].count += 1
            } else {
                counts.append((origin, 1))
            }
        }
        if let host {
            let wanted = host.lowercased()
            let matching = counts.filter {
                let authority = Self.host(ofOrigin: $0.origin)
                return authority == wanted || authority.split(separator: ":").first.map(String.init) == wanted
                    || $0.origin == wanted
            }
            guard let best = matching.max(by: { $0.count < $1.count }) else {
                throw .unknownHost(
                    file: file, host: host, hosts: counts.map { (Self.host(ofOrigin: $0.origin), $0.count) })
            }
            return best.origin
        }
        // The most common origin; on a tie, the first in the file (`max` would return the last).
        guard let top = counts.map(\.count).max(), let best = counts.first(where: { $0.count == top }) else {
            throw .nothingToImport(file: file, origin: nil, messages: ["\(file): no entry has an absolute http URL"])
        }
        return best.origin
    }
}

/// Why `tether import` wrote nothing.
public enum HARImportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The HAR file cannot be read as HAR.
    case har(HARError)
    /// `--service` is empty.
    case emptyService
    /// `--host` names a host the file has no entry for; `hosts` are the file's, with their entry counts.
    case unknownHost(file: String, host: String, hosts: [(String, Int)])
    /// No entry of the chosen origin can become a target; `messages` say why for each.
    case nothingToImport(file: String, origin: String?, messages: [String])
    /// The recorded requests cannot be written in the file format (a bug: each is built as the loader builds it).
    case contract(ContractError)
    /// A file is there already, or cannot be written; `messages` are the import's.
    case write(ContractManifest.NewFilesError, messages: [String])

    /// What the import said about the entries before it stopped (empty when it did not get that far).
    public var messages: [String] {
        switch self {
        case .nothingToImport(_, _, let messages), .write(_, let messages): messages
        default: []
        }
    }

    /// The message: lower case, naming the file and what to do.
    public var description: String {
        switch self {
        case .har(let error): return error.description
        case .emptyService: return "--service must name the service, e.g. --service GitHub"
        case .unknownHost(let file, let host, let hosts):
            let listed = hosts.map { "\($0.0) (\($0.1))" }.joined(separator: ", ")
            return "\(file) has no entry for the host '\(host)'; its hosts are: \(listed)"
        case .nothingToImport(let file, let origin, _):
            let which = origin.map { " for \($0)" } ?? ""
            return "\(file): no entry\(which) can be imported (see the messages above); "
                + "record the requests again, or choose another host with --host"
        case .contract(let error): return error.description
        case .write(let error, _): return error.description
        }
    }

    /// Equal when they say the same.
    public static func == (lhs: HARImportError, rhs: HARImportError) -> Bool {
        lhs.description == rhs.description && lhs.messages == rhs.messages
    }
}
