#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Contracts from an OpenAPI document's examples (`tether import --spec FILE --service NAME`): one target per
/// operation and documented response that has an example (`example`, `examples`, 2.0 `examples`), its body the
/// example, its status the response's. An operation or response without what a target needs (an example body, an
/// example for each required parameter and for a required request body, a concrete status) is listed, not invented.
public struct SpecImport: Sendable {
    /// The manifest and its sample files, ready to write.
    public var manifest: ContractManifest
    /// The document's first server: the manifest's `baseURL`.
    public var baseURL: String
    /// The targets, in document order.
    public var targetNames: [String]
    /// What was not imported, and why: `openapi.yaml:12:5: GET /users/{username} 404: no example: not imported`.
    public var messages: [String]

    /// Imports the operations of `document` (those with one of `tags`, when any is given).
    /// - Parameters:
    ///   - document: A loaded document.
    ///   - service: The service name.
    ///   - tags: Only operations with one of these tags; empty for all.
    /// - Throws: `SpecImportError` when the document has no absolute server URL or nothing to import.
    ///   - baseURL: The manifest's base URL; `nil` for the document's first absolute server URL.
    public init(document: SpecDocument, service: String, tags: [String] = [], baseURL: String? = nil)
        throws(SpecImportError)
    {
        guard !service.trimmingWhitespace().isEmpty else { throw .emptyService }
        if let baseURL, !HTTPRequest.isHTTPURL(baseURL) { throw .badBaseURL(baseURL) }
        let place = baseURL == nil ? document.file : "--base-url"
        guard let baseURL = baseURL ?? document.servers.first(where: { HTTPRequest.isHTTPURL($0.url) })?.url else {
            throw .noServer(file: document.file)
        }
        // The manifest is a file to commit: a user or password in its URL would be written into it.
        guard HTTPRequest.credentials(in: baseURL).isEmpty else {
            throw .credentialsInURL(from: place)
        }
        let known = Set(document.operations.flatMap(\.tags))
        if !tags.isEmpty && !tags.contains(where: known.contains) {
            throw .noSuchTag(file: document.file, tags: tags, known: known.sorted())
        }
        self.baseURL = baseURL
        var messages: [String] = []
        var contracts: [TargetContract] = []
        var bodies: [String: (data: Data, fileExtension: String)] = [:]
        var names: [String] = []
        var taken = Set<String>()
        for operation in document.operations {
            if !tags.isEmpty && !operation.tags.contains(where: tags.contains) { continue }
            let place = "\(operation.node.place): \(operation.name)"
            if case .failure(let reason) = Self.request(for: operation, example: nil) {
                messages.append("\(place): \(reason): not imported")
                continue
            }
            // The requests of this operation's targets so far, to say when two would send the same one.
            var sent: [(request: HTTPRequest, name: String)] = []
            let concrete = operation.responses.filter { Int($0.status) != nil }
            for response in operation.responses where Int(response.status) == nil {
                messages.append(
                    "\(place) \(response.status): a range or default, not a status a stub can answer: not imported")
            }
            for response in concrete {
                let status = Int(response.status) ?? 200
                let example = Self.firstExample(in: response.content)
                // A response's example named N takes the parameters' and request body's examples named N, where they
                // have one (the convention of Specmatic and Microcks): a 404 example gets a request of its own.
                guard case .success(let request) = Self.request(for: operation, example: example?.name) else {
                    continue
                }
                if example == nil && !response.content.isEmpty {
                    messages.append("\(place) \(response.status): no example: not imported")
                    continue
                }
                var name = Self.name(operation)
                if concrete.count > 1, response.status != concrete[0].status { name += "_" + response.status }
                while !taken.insert(name).inserted { name += "_" }
                names.append(name)
                var headers = request.headers
                if let (media, _, _) = example, !headers.contains(where: { $0.isNamed("Accept") }) {
                    headers.append(HTTPHeader("Accept", media.name))
                }
                let httpRequest = RequestBuilder.request(
                    method: operation.method, baseURL: baseURL, path: request.path, query: request.query,
                    headers: headers, task: request.task)
                if let same = sent.first(where: { $0.request == httpRequest }) {
                    let named =
                        example?.name.map { "an example named '\($0)', as its response's example is named" }
                        ?? "examples of one name, and its response's example that name (under examples)"
                    messages.append(
                        "\(place) \(response.status): imported, but \(name) sends the same request as \(same.name), "
                            + "which a live service answers one way; for a request of its own, give its parameters (or "
                            + "request body) \(named)")
                }
                sent.append((httpRequest, name))
                var sampleData = StubBody.none
                if let (media, _, value) = example {
                    if SpecCheck.isJSON(media.name) {
                        sampleData = .json(value.value)
                        bodies[name] = (value.value.serialized(pretty: true) + Data("\n".utf8), "json")
                    } else if case .string(let text) = value.value {
                        sampleData = .text(Data(text.utf8))
                        bodies[name] = (Data(text.utf8), "txt")
                    }
                }
                let contract = Contract(
                    service: service, name: name, baseURL: baseURL, request: httpRequest, sampleData: sampleData,
                    sampleResponse: .network(statusCode: status, headers: []), source: document.file)
                contracts.append(TargetContract(contract: contract))
            }
        }
        self.messages = messages
        guard !contracts.isEmpty else { throw .nothingToImport(file: document.file, messages: messages) }
        targetNames = names
        do {
            manifest = try ContractManifest(
                service: service, contracts: contracts,
                description:
                    "Imported from \(document.file.pathLastComponent) by Tether \(tetherVersion): the "
                    + "examples of its responses. Check them with: tether verify --spec \(document.file) --offline",
                recordedBodies: bodies)
        } catch {
            throw .contract(error)
        }
    }

    /// Reads the document, imports it, and writes the manifest and its sample files into `folder`.
    /// - Throws: `SpecImportError`: the document cannot be read, nothing can be imported, the manifest exists, or a
    ///   file cannot be written.
    public static func run(
        specPath: String, service: String, tags: [String], baseURL: String? = nil, folder: String
    ) throws(SpecImportError) -> (SpecImport, manifestPath: String) {
        let document: SpecDocument
        do {
            document = try SpecDocument.load(contentsOf: specPath)
        } catch {
            throw .spec(error)
        }
        let imported = try SpecImport(document: document, service: service, tags: tags, baseURL: baseURL)
        do {
            return (imported, try imported.manifest.writeNewFiles(to: folder))
        } catch {
            throw .write(error, messages: imported.messages)
        }
    }

    /// The path with its parameters filled in, the query, headers and body: each required parameter, and a required
    /// body, from its example; or why the operation cannot be a target.
    /// - Parameter example: The name of the response example the request is for: a parameter's or the body's example
    ///   of that name is taken before the first.
    private static func request(for operation: SpecOperation, example name: String?) -> Result<
        (path: String, query: [(String, String)], headers: [HTTPHeader], task: RequestTask), ImportSkip
    > {
        var path = operation.path
        var query: [(String, String)] = []
        var headers: [HTTPHeader] = []
        for parameter in operation.parameters where parameter.isRequired || parameter.location == .path {
            guard let value = example(of: parameter, named: name) else {
                return .failure(
                    ImportSkip(
                        "no example for the required \(parameter.location.rawValue) parameter '\(parameter.name)'"))
            }
            switch parameter.location {
            case .path: path = path.replacingText("{\(parameter.name)}", with: value)
            case .query: query.append((parameter.name, value))
            case .header: headers.append(HTTPHeader(parameter.name, value))
            default: break
            }
        }
        var task = RequestTask.plain
        if let body = operation.requestBody {
            let example = Self.firstExample(in: body.content, named: name)
            if let (media, _, value) = example, SpecCheck.isJSON(media.name) {
                task = .json(value.value)
            } else if body.isRequired {
                return .failure(ImportSkip("no JSON example for its required request body"))
            }
        }
        return .success((path, query, headers, task))
    }

    /// The example named `name` with a value (when given and there is one), else the first with a value, in media
    /// type order, with its media type and name.
    private static func firstExample(in content: [SpecMediaType], named name: String? = nil) -> (
        media: SpecMediaType, name: String?, value: SpecNode
    )? {
        if let name {
            for media in content {
                if let named = media.examples.first(where: { $0.name == name && $0.value != nil }),
                    let value = named.value
                {
                    return (media, named.name, value)
                }
            }
        }
        for media in content {
            if let first = media.examples.first(where: { $0.value != nil }), let value = first.value {
                return (media, first.name, value)
            }
        }
        return nil
    }

    /// A parameter's example: of `examples`, the one named `name`, then `example`, the first of `examples`, its
    /// schema's `example`, `default` or first `enum`.
    private static func example(of parameter: SpecParameter, named name: String?) -> String? {
        let node = parameter.node
        var candidates: [JSONValue?] = [node["example"]?.value, node["examples"]?.members.first?.node["value"]?.value]
        if let name { candidates.insert(node["examples"]?[name]?["value"]?.value, at: 0) }
        if let schema = parameter.schema {
            candidates += [schema["example"]?.value, schema["default"]?.value, schema["enum"]?.elements.first?.value]
        }
        for case let value? in candidates {
            switch value {
            case .string(let text): return text
            case .integer(let number): return String(number)
            case .unsignedInteger(let number): return String(number)
            case .double(let number): return String(number)
            case .bool(let flag): return flag ? "true" : "false"
            default: continue
            }
        }
        return nil
    }

    /// `operationId` as a target name (`repos/get` → `reposGet`), else the method and path's words.
    private static func name(_ operation: SpecOperation) -> String {
        guard let id = operation.operationId, !id.isEmpty else {
            return HARImport.name(method: operation.method, path: operation.path)
        }
        let words = id.split(whereSeparator: { !$0.isLetter && !$0.isNumber })
        guard let first = words.first else { return HARImport.name(method: operation.method, path: operation.path) }
        return first.prefix(1).lowercased() + first.dropFirst()
            + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    struct ImportSkip: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }
}

extension SpecImport.ImportSkip: CustomStringConvertible {
    var description: String { reason }
}

/// Why `tether import --spec` wrote nothing.
public enum SpecImportError: Error, Sendable, CustomStringConvertible {
    /// `--service` is empty.
    case emptyService
    /// The document cannot be read, or has errors.
    case spec(SpecError)
    /// The document has no absolute `http(s)` server (3.x `servers`, 2.0 `host`).
    case noServer(file: String)
    /// `--base-url` is not an absolute `http(s)` URL.
    case badBaseURL(String)
    /// The base URL (from `--base-url`, or the document's server) has a user or a password.
    case credentialsInURL(from: String)
    /// No operation has any of the `--tag` values; `known` are the document's tags.
    case noSuchTag(file: String, tags: [String], known: [String])
    /// No operation has what a target needs.
    case nothingToImport(file: String, messages: [String])
    /// The targets cannot be written as a manifest.
    case contract(ContractError)
    /// A file is there already, or cannot be written; `messages` are the import's.
    case write(ContractManifest.NewFilesError, messages: [String])

    /// The messages to print before the error (what was not imported).
    public var messages: [String] {
        switch self {
        case .nothingToImport(_, let messages), .write(_, let messages): messages
        default: []
        }
    }

    /// `tether: error: …`.
    public var description: String {
        switch self {
        case .emptyService: "--service must not be empty"
        case .spec(let error): "\(error)"
        case .noServer(let file):
            "\(file): no absolute server URL (3.x servers, 2.0 host): add `servers: [{url: https://…}]` to the document, "
                + "or pass --base-url URL"
        case .badBaseURL(let url):
            "--base-url: '\(url)' is not an http or https URL (write --base-url https://host[:port][/path])"
        case .credentialsInURL(let place):
            "\(place): the base URL has a user or a password, which the contract file would hold: give it without "
                + "them, and add \"auth\": {\"basic\": {\"user\": \"${API_USER}\", \"password\": \"${API_PASSWORD}\"}} to the "
                + "manifest"
        case .noSuchTag(let file, let tags, let known):
            "\(file): no operation has the tag\(tags.count == 1 ? "" : "s") "
                + tags.map { "'\($0)'" }.joined(separator: ", ")
                + (known.isEmpty
                    ? " (it tags none): drop --tag" : " (its tags: \(known.joined(separator: ", "))): check --tag")
        case .nothingToImport(let file, _):
            "\(file): no operation has an example for a response (and for its required parameters): nothing imported"
        case .contract(let error): "\(error)"
        case .write(let error, _): "\(error)"
        }
    }
}
