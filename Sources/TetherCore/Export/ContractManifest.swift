#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// File contracts exported from Swift targets: a manifest plus one sample file per target, in the documented file
/// format, so the CLI gate (`tether verify`) runs the same contracts in any CI.
///
/// ```swift
/// try ContractManifest(service: "GitHub", targets: GitHub.allCases).write(to: "contracts")
/// ```
/// writes `contracts/github.json` and `contracts/samples/github/<target>.json` (or `.txt` for text stubs). Loading them
/// with `ManifestLoader` gives back the same contracts (the same requests, stubs and status rules).
public struct ContractManifest: Sendable, Equatable {
    /// The service name: the JUnit suite, and the manifest's file name (lower-cased).
    public var service: String
    /// The manifest document.
    public var manifest: JSONValue
    /// Each sample file: its path relative to the manifest's folder, and its bytes.
    public var samples: [(path: String, data: Data)]
    /// Targets not exported, with why (uploads and downloads, which Tether does not send).
    public var skipped: [(name: String, reason: String)]

    /// Exports contracts that came from Swift targets.
    /// - Parameters:
    ///   - service: The service name.
    ///   - contracts: The contracts (a contract with a skip reason is not exported, but listed in `skipped`).
    ///   - variables: Environment variable names and the values to write as `${NAME}`.
    ///   - description: The manifest's `description`; `nil` says the targets were exported from Swift.
    ///   - recordedBodies: By target name, bytes to write as that target's sample file as they are (a recorded body),
    ///     with the file's extension (`json`, `html`, `bin`), instead of serializing its `sampleData`.
    /// - Throws: `ContractError` naming the target that the file format cannot express.
    public init(
        service: String, contracts: [TargetContract], variables: [String: String] = [:], description: String? = nil,
        recordedBodies: [String: (data: Data, fileExtension: String)] = [:]
    ) throws(ContractError) {
        guard !service.isEmpty else {
            throw ContractError(file: "ContractManifest", "the service name must not be empty")
        }
        self.service = service
        let writer = TextWriter(variables: variables)
        let exported = contracts.filter { $0.skipReason == nil }.map(\.contract)
        skipped = contracts.compactMap { item in item.skipReason.map { (item.contract.name, $0) } }

        let baseURLs = Array(Set(exported.map(\.baseURL))).sorted()
        guard baseURLs.count <= 1 else {
            throw ContractError(
                file: "\(service) manifest",
                "the targets have different base URLs (\(baseURLs.joined(separator: ", "))): export each base URL as its own service"
            )
        }
        let baseURL = baseURLs.first ?? contracts.first?.contract.baseURL ?? "http://127.0.0.1"

        var description = description ?? "Exported from Swift targets by Tether \(tetherVersion)."
        if !skipped.isEmpty {
            description +=
                " Not exported (Tether does not send uploads or downloads): "
                + skipped.map(\.name).joined(separator: ", ") + "."
        }
        var targets: [JSONValue] = []
        var samples: [(String, Data)] = []
        var fileNames = Set<String>()
        for contract in exported {
            var members = try Self.requestMembers(contract, baseURL: baseURL, writer: writer)
            if let (file, data) = Self.sampleFile(contract, recorded: recordedBodies[contract.name], taken: &fileNames)
            {
                members.append(JSONMember("sampleData", .object([JSONMember("file", .string(file))])))
                samples.append((file, data))
            }
            if let response = Self.sampleResponse(contract.sampleResponse) {
                members.append(JSONMember("sampleResponse", response))
            }
            if let validation = Self.validationType(contract.validationType) {
                members.append(JSONMember("validationType", validation))
            }
            if !contract.rules.isEmpty { members.append(JSONMember("rules", contract.rules.manifestValue)) }
            if case .delayed(let seconds) = contract.stubBehavior {
                members.append(JSONMember("stubBehavior", .object([JSONMember("delayed", .double(seconds))])))
            }
            targets.append(.object(members))
        }
        manifest = .object([
            JSONMember("service", .string(service)),
            JSONMember("description", .string(description)),
            JSONMember("baseURL", .string(writer.text(baseURL))),
            JSONMember("targets", .array(targets)),
        ])
        self.samples = samples
    }

    /// The manifest's file name: the service lower-cased, e.g. `github.json`.
    public var manifestFileName: String { Self.fileName(service.lowercased()) + ".json" }

    /// Writes the manifest and its sample files into `folder` (created if missing), each file atomically.
    /// - Parameter folder: Where, e.g. `contracts`.
    /// - Returns: The manifest's path.
    /// - Throws: `ReportError.write` naming the file that could not be written.
    @discardableResult
    public func write(to folder: String) throws(ReportError) -> String {
        for (path, data) in samples {
            try ReportFile.write(data, to: folder.pathAppending(path))
        }
        let manifestPath = folder.pathAppending(manifestFileName)
        try ReportFile.write(manifest.serialized(pretty: true), to: manifestPath)
        return manifestPath
    }

    /// Writes into `folder` as an import does: new files only (`existingFile(in:)`), each checked before any is
    /// written (`checkWritable(in:)`), so that a failure leaves nothing behind.
    /// - Parameter folder: Where, e.g. `contracts`.
    /// - Returns: The manifest's path.
    /// - Throws: `NewFilesError`: a file is there already, or one cannot be written.
    public func writeNewFiles(to folder: String) throws(NewFilesError) -> String {
        if let existing = existingFile(in: folder) { throw .exists(path: existing) }
        do {
            try checkWritable(in: folder)
            return try write(to: folder)
        } catch {
            throw .write(error)
        }
    }

    /// Why `writeNewFiles(to:)` wrote nothing.
    public enum NewFilesError: Error, Sendable, Equatable, CustomStringConvertible {
        /// A file it would write is there already (the manifest first, then the sample files).
        case exists(path: String)
        /// A file cannot be written.
        case write(ReportError)

        /// The message: lower case, naming the file and what to do.
        public var description: String {
            switch self {
            case .exists(let path):
                "\(path) exists already: nothing was written; remove it, or import into another --out folder"
            case .write(let error): error.description
            }
        }
    }

    /// The first file that `write(to:)` would write into `folder` and that is there already (the manifest first, then
    /// the sample files), or nil: an import writes new files only, and a team's own samples are never replaced.
    func existingFile(in folder: String) -> String? {
        fileNames.lazy.map { folder.pathAppending($0) }.first { $0.fileKind.exists }
    }

    /// Checks, before any file is written, that `write(to:)` can write each of them (their folders are made now): a
    /// file that cannot be written then leaves none of the others behind.
    /// - Throws: `ReportError.write` naming the first file that could not be written.
    func checkWritable(in folder: String) throws(ReportError) {
        for path in fileNames { try ReportFile.checkWritable(folder.pathAppending(path)) }
    }

    /// What `write(to:)` writes, relative to its folder: the manifest, then the sample files.
    private var fileNames: [String] { [manifestFileName] + samples.map(\.path) }

    /// Equal when they would write the same files.
    public static func == (lhs: ContractManifest, rhs: ContractManifest) -> Bool {
        lhs.service == rhs.service && lhs.manifest == rhs.manifest
            && lhs.samples.map(\.path) == rhs.samples.map(\.path) && lhs.samples.map(\.data) == rhs.samples.map(\.data)
            && lhs.skipped.map(\.name) == rhs.skipped.map(\.name)
            && lhs.skipped.map(\.reason) == rhs.skipped.map(\.reason)
    }

    // MARK: - Targets

    /// `name`, `method`, `path`, `query`, `headers`, `task`: checked by building the request again as the loader will.
    private static func requestMembers(_ contract: Contract, baseURL: String, writer: TextWriter) throws(ContractError)
        -> [JSONMember]
    {
        let request = contract.request
        let fail = { (why: String) in
            ContractError(file: contract.source, "cannot be exported to the file format: \(why)")
        }
        guard request.url.hasPrefix(baseURL) else {
            throw fail("its URL '\(request.url)' is not below the service's base URL '\(baseURL)'")
        }
        let relative = String(request.url.dropFirst(baseURL.count))
        let parts = relative.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let encodedPath = parts.first.map(String.init) ?? ""
        let path = encodedPath.percentDecoded ?? encodedPath
        var query: [(String, String)] = []
        if parts.count == 2 {
            for item in parts[1].split(separator: "&") {
                let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard pair.count == 2 else { throw fail("the query item '\(item)' has no '='") }
                query.append((decoded(pair[0]), decoded(pair[1])))
            }
        }

        // A JSON body is written as JSON when the loader gives back the same bytes and headers, else as bytes.
        var candidates: [(RequestTask, JSONValue?)] = [(.plain, nil)]
        if let body = request.body {
            let bytes: JSONValue =
                String(data: body, encoding: .utf8).map { .object([JSONMember("text", .string(writer.text($0)))]) }
                ?? .object([JSONMember("base64", .string(body.base64EncodedString()))])
            candidates = [(.data(body), .object([JSONMember("requestData", bytes)]))]
            if let json = try? JSONValue.parse(body) {
                candidates.insert(
                    (.json(json), .object([JSONMember("requestJSONEncodable", writer.json(json))])), at: 0)
            }
        }
        var rebuilt = request
        var taskValue: JSONValue?
        var holds = false
        for (task, value) in candidates where !holds {
            rebuilt = RequestBuilder.request(
                method: request.method, baseURL: baseURL, path: path, query: query, headers: request.headers, task: task
            )
            holds = rebuilt == request
            taskValue = value
        }
        guard holds else {
            throw fail(
                "the file format would send '\(rebuilt.method) \(rebuilt.url)' instead of '\(request.method) \(request.url)'"
            )
        }

        var members = [JSONMember("name", .string(contract.name)), JSONMember("method", .string(request.method))]
        if !path.isEmpty { members.append(JSONMember("path", .string(writer.text(path)))) }
        if !query.isEmpty {
            members.append(JSONMember("query", .object(query.map { JSONMember($0.0, .string(writer.text($0.1))) })))
        }
        if !request.headers.isEmpty {
            members.append(
                JSONMember(
                    "headers", .object(request.headers.map { JSONMember($0.name, .string(writer.text($0.value))) })))
        }
        if let taskValue { members.append(JSONMember("task", taskValue)) }
        return members
    }

    private static func decoded(_ text: Substring) -> String {
        String(text).percentDecoded ?? String(text)
    }

    /// `samples/<service>/<name>.json` (pretty JSON) or `.txt`, or the recorded bytes as they are; no file for an
    /// empty stub.
    private static func sampleFile(
        _ contract: Contract, recorded: (data: Data, fileExtension: String)?, taken: inout Set<String>
    ) -> (String, Data)? {
        var (data, fileExtension): (Data, String)
        switch contract.sampleData {
        case .none: return nil
        case .json(let stub): (data, fileExtension) = (stub.value.serialized(pretty: true), "json")
        case .text(let bytes): (data, fileExtension) = (bytes, "txt")
        }
        if let recorded { (data, fileExtension) = (recorded.data, fileName(recorded.fileExtension)) }
        // Under the service's own folder: two services exported into one contracts folder never share a file.
        let stem = "samples/" + fileName(contract.service.lowercased()) + "/" + fileName(contract.name)
        var file = "\(stem).\(fileExtension)"
        var counter = 2
        while taken.contains(file.lowercased()) {
            file = "\(stem)-\(counter).\(fileExtension)"
            counter += 1
        }
        taken.insert(file.lowercased())
        return (file, data)
    }

    /// Letters, digits, `-`, `_` and `.` kept; anything else (quotes, parentheses, slashes) as `_`.
    private static func fileName(_ name: String) -> String {
        let kept = name.unicodeScalars.map { scalar -> String in
            (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                || "-_.".unicodeScalars.contains(scalar))
                ? String(scalar) : "_"
        }.joined()
        let collapsed = kept.split(separator: "_", omittingEmptySubsequences: true).joined(separator: "_")
        let trimmed = collapsed.trimming(scalarsIn: "._")
        return trimmed.isEmpty ? "target" : trimmed
    }

    private static func sampleResponse(_ response: StubResponse) -> JSONValue? {
        switch response {
        case .network(200, let headers) where headers.isEmpty:
            return nil
        case .network(let statusCode, let headers) where headers.isEmpty:
            return .object([
                JSONMember("networkResponse", .object([JSONMember("statusCode", .integer(Int64(statusCode)))]))
            ])
        case .network(let statusCode, let headers):
            return .object([
                JSONMember(
                    "response",
                    .object([
                        JSONMember("statusCode", .integer(Int64(statusCode))),
                        JSONMember("headers", .object(headers.map { JSONMember($0.name, .string($0.value)) })),
                    ]))
            ])
        case .networkError(let code, let description):
            return .object([
                JSONMember(
                    "networkError",
                    .object([
                        JSONMember("code", .integer(Int64(code))), JSONMember("description", .string(description)),
                    ]))
            ])
        }
    }

    private static func validationType(_ validation: ValidationType) -> JSONValue? {
        switch validation {
        case .none: nil
        case .customCodes(let codes): .object([JSONMember("customCodes", .array(codes.map { .integer(Int64($0)) }))])
        case let named: .string(named.name)
        }
    }
}

/// Text as the loader must read it back: `${` escaped as `$${`, and each variable's value as `${NAME}`.
private struct TextWriter {
    /// Longest values first, so a value containing another is replaced whole.
    let variables: [(name: String, value: String)]

    init(variables: [String: String]) {
        self.variables = variables.filter { !$0.value.isEmpty }.map { ($0.key, $0.value) }
            .sorted { ($1.value.count, $0.name) < ($0.value.count, $1.name) }
    }

    func text(_ raw: String) -> String {
        var text = raw.replacingText("${", with: "$${")
        for variable in variables {
            text = text.replacingText(variable.value, with: "${\(variable.name)}")
        }
        return text
    }

    func json(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string(let raw): .string(text(raw))
        case .array(let elements): .array(elements.map(json))
        case .object(let members): .object(members.map { JSONMember($0.key, json($0.value)) })
        default: value
        }
    }
}
