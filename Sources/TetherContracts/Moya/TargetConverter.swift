import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Turns Moya-shaped targets into contracts, as `MoyaProvider` turns them into requests: through an endpoint closure
/// (Moya's default mapping unless given), then `RequestBuilder` for the task's parameters.
public struct TargetConverter {
    /// Maps a target to its endpoint.
    public var endpointClosure: (any TargetType) -> Endpoint
    /// Where to send requests instead of each target's `baseURL` (the same path below it).
    public var baseURL: URL?
    /// Headers added to every request, replacing a target's header of the same name.
    public var headers: [String: String]
    /// Each target's stub behaviour, as `MoyaProvider(stubClosure:)` takes it: carried into `Contract.stubBehavior`
    /// (what `tether serve` does with an exported manifest); `.never` becomes `.immediate`. Immediate by default.
    public var stubClosure: (any TargetType) -> StubBehavior = { _ in .immediate }
    /// Service-wide rules, as a manifest's top-level `"rules"`: each target's own `rules` add to them, and they apply
    /// to the targets whose stubs have their paths.
    public var rules = ContractRules()

    /// A converter using Moya's default endpoint mapping.
    /// - Parameters:
    ///   - baseURL: Where to send requests instead of each target's `baseURL`.
    ///   - headers: Headers added to every request.
    public init(baseURL: URL? = nil, headers: [String: String] = [:]) {
        self.endpointClosure = { TargetConverter.defaultEndpoint(for: $0) }
        self.baseURL = baseURL
        self.headers = headers
    }

    /// A converter using your endpoint closure, as `MoyaProvider(endpointClosure:)` does.
    ///
    /// The closure applies to targets of type `Target`, and to `MultiTarget`s wrapping one; other targets get Moya's
    /// default mapping.
    /// - Parameters:
    ///   - endpointClosure: Maps a target to its endpoint (its URL, headers, task and stubbed response).
    ///   - baseURL: Where to send requests instead of each target's `baseURL`.
    ///   - headers: Headers added to every request.
    public init<Target: TargetType>(
        endpointClosure: @escaping (Target) -> Endpoint, baseURL: URL? = nil, headers: [String: String] = [:]
    ) {
        self.endpointClosure = { target in
            if let typed = target as? Target { return endpointClosure(typed) }
            if let multi = TargetConverter.multiTarget(target), let typed = multi.target as? Target {
                return endpointClosure(typed)
            }
            return TargetConverter.defaultEndpoint(for: target)
        }
        self.baseURL = baseURL
        self.headers = headers
    }

    /// Every target as a contract, in order; a target that cannot become one gives its error instead.
    ///
    /// Each contract's service is the target's type name (inside a `MultiTarget`, the wrapped type's) and its name
    /// the enum case (`userRepositories`); where two targets of a service share a case, their full descriptions
    /// (`userRepositories(name: "a")`) tell them apart.
    /// - Parameter targets: The targets.
    /// - Returns: One result per target.
    public func contracts<Targets: Sequence>(for targets: Targets) -> [Result<TargetContract, ContractError>]
    where Targets.Element: TargetType {
        let list = Array(targets)
        let names = Self.uniqueNames(for: list)
        return zip(list, names).map { target, name in
            Result { () throws(ContractError) in try contract(for: target, service: name.service, name: name.name) }
        }
    }

    /// One target as a contract.
    /// - Parameters:
    ///   - target: The target.
    ///   - name: Its name in reports; the enum case name by default.
    /// - Returns: The contract, with a skip reason for uploads and downloads.
    /// - Throws: `ContractError` naming the target: a `sampleData` that is not JSON while its content type says
    ///   JSON, a body that cannot be encoded, an encoding Moya refuses, or a URL that is not http(s).
    public func contract<Target: TargetType>(for target: Target, name: String? = nil) throws(ContractError)
        -> TargetContract
    {
        try contract(for: target, service: Self.serviceName(of: target), name: name ?? Self.caseName(of: target))
    }

    /// One target as a contract, its service and name already known (`uniqueNames(for:)`).
    package func contract<Target: TargetType>(for target: Target, service: String, name: String)
        throws(ContractError) -> TargetContract
    {
        try Self.contract(from: asked(target, service: service, name: name), rules: rules)
    }

    /// What a contract needs from a target: everything that runs the app's code (the target's properties, the
    /// endpoint and stub closures, the task's encoding). The rest (`contract(from:rules:)`) is pure and `Sendable`, so
    /// `ContractVerifier` runs it for many targets on DeepStack's threads; the app's code runs on the caller's.
    package struct Asked: Sendable {
        var service: String
        var name: String
        /// The endpoint's URL.
        var url: String
        /// The target's base URL.
        var targetBase: String
        /// The override's base URL, or the target's.
        var baseURL: String
        var method: String
        /// The endpoint's headers, with the converter's added.
        var headerFields: [String: String]
        var sampleResponse: StubResponse
        var stubData: Data
        /// The task, or why it cannot be sent (thrown where the conversion reaches it, after the URL and stub).
        var task: Result<ConvertedTask, ContractError>
        var targetRules: ContractRules
        var validStatusCodes: [Int]?
        var stubBehavior: StubBehavior

        /// `Service.name`: what errors and the contract's source call the target.
        var label: String { service + "." + name }
    }

    /// Asks `target` (and the endpoint closure) for what its contract needs, on the caller's thread.
    package func asked<Target: TargetType>(_ target: Target, service: String, name: String) -> Asked {
        let endpoint = endpointClosure(target)
        let targetBase = target.baseURL.absoluteString
        let baseURL = baseURL?.absoluteString ?? targetBase
        var headerFields = endpoint.httpHeaderFields ?? [:]
        for (headerName, value) in headers {
            for existing in headerFields.keys where existing.caseInsensitiveCompare(headerName) == .orderedSame {
                headerFields[existing] = nil
            }
            headerFields[headerName] = value
        }
        let label = service + "." + name  // as `Asked.label`, for the task's errors
        let (sampleResponse, stubData) = Self.stub(endpoint.sampleResponseClosure())
        return Asked(
            service: service, name: name,
            url: endpoint.url, targetBase: targetBase, baseURL: baseURL,
            method: endpoint.method.rawValue, headerFields: headerFields, sampleResponse: sampleResponse,
            stubData: stubData,
            task: Result { () throws(ContractError) in try Self.requestTask(endpoint.task, label: label) },
            targetRules: target.rules, validStatusCodes: target.validationType.validStatusCodes,
            stubBehavior: Self.servedBehavior(stubClosure(target)))
    }

    /// The contract from what the target said: the URL, headers, stub and rules checked, the request built.
    /// - Parameters:
    ///   - asked: What the target said (`asked(_:service:name:)`).
    ///   - rules: The converter's service-wide rules.
    package static func contract(from asked: Asked, rules: ContractRules) throws(ContractError) -> TargetContract {
        let label = asked.label
        let url = redirected(asked.url, from: asked.targetBase, to: asked.baseURL)
        // A URL that `URL(string:)` keeps whole is an http or https URL with a host (most endpoints): parsing each
        // target's URL to ask was a quarter of converting bench/run's 2,000 targets.
        guard URL.isKeptWhole(url) || HTTPRequest.isHTTPURL(url) else {
            throw ContractError(file: label, "the endpoint's url '\(url)' is not an http or https URL")
        }
        var requestHeaders = asked.headerFields.sorted { $0.key < $1.key }.map { HTTPHeader($0.key, $0.value) }
        if let unsafe = requestHeaders.first(where: { !HTTPHeader.isSafeValue($0.value) }) {
            throw ContractError(
                file: label, "header \(unsafe.name) holds a line break or NUL (it would split the request)")
        }
        let sampleData = try stubBody(
            asked.stubData, label: label, response: asked.sampleResponse, headers: requestHeaders)
        let converted = try asked.task.get()
        if converted.isJSONData, !requestHeaders.contains(where: { isContentType($0.name) }) {
            requestHeaders.append(HTTPHeader("Content-Type", "application/json"))
        }
        let request = RequestBuilder.request(
            method: asked.method, baseURL: url, path: "", headers: requestHeaders,
            task: converted.task ?? .plain)

        // As a manifest's: the target's own paths must be in its stub, and the stub must satisfy the merged rules.
        let merged = asked.targetRules.merged(over: rules.applicable(to: sampleData))
        var problems = asked.targetRules.problems(stub: sampleData)
        if problems.isEmpty { problems = merged.problems(stub: sampleData) }
        if let problem = problems.first {
            throw ContractError(file: label, problem.message)
        }
        var contract = Contract(
            service: asked.service, name: asked.name, baseURL: asked.baseURL, request: request, sampleData: sampleData,
            sampleResponse: asked.sampleResponse, validStatusCodes: asked.validStatusCodes, source: label,
            rules: merged, stubBehavior: asked.stubBehavior)
        // The redactor reads credentials from the base URL; an endpoint that goes elsewhere brings its own.
        let credentials = HTTPRequest.credentials(in: url)
        if !credentials.isEmpty, credentials != HTTPRequest.credentials(in: asked.baseURL) {
            contract.credentials = credentials
        }
        return TargetContract(contract: contract, skipReason: converted.skipReason)
    }

    /// `.never` (do not stub) means nothing to a served stub: it answers at once.
    static func servedBehavior(_ behavior: StubBehavior) -> StubBehavior {
        behavior == .never ? .immediate : behavior
    }

    // MARK: - Names

    /// Moya's default mapping for a target of any type.
    static func defaultEndpoint(for target: any TargetType) -> Endpoint {
        func open<T: TargetType>(_ target: T) -> Endpoint { MoyaProvider<T>.defaultEndpointMapping(for: target) }
        return open(target)
    }

    /// The target's type name; inside a `MultiTarget`, the wrapped target's.
    package static func serviceName(of target: any TargetType) -> String {
        var known: [ObjectIdentifier: String] = [:]
        return serviceName(of: target, known: &known)
    }

    /// As `serviceName(of:)`, each type's name spelled once across calls sharing `known` (the name is demangled,
    /// microseconds a target).
    private static func serviceName(of target: any TargetType, known: inout [ObjectIdentifier: String]) -> String {
        if let multi = multiTarget(target) { return serviceName(of: multi.target, known: &known) }
        let metatype = type(of: target)
        if let name = known[ObjectIdentifier(metatype)] { return name }
        // What `String(describing: metatype)` writes, without its search for conformances a metatype cannot have:
        // the first search for a protocol a type lacks reads every conformance of the program (1 ms of a run).
        let name = _typeName(metatype, qualified: false)
        known[ObjectIdentifier(metatype)] = name
        return name
    }

    /// The target's description (its enum case with any values); inside a `MultiTarget`, the wrapped target's.
    static func fullName(of target: any TargetType) -> String {
        if let multi = multiTarget(target) { return fullName(of: multi.target) }
        return String(describing: target)
    }

    /// `target` as a `MultiTarget` if it is one: an enum has no subclasses, so comparing the dynamic type (one load)
    /// answers for every other target without the conformance lookup of a cast.
    private static func multiTarget(_ target: any TargetType) -> MultiTarget? {
        type(of: target) == MultiTarget.self ? target as? MultiTarget : nil
    }

    /// Each target's `fullName(of:)`. When the targets' type describes itself (`CustomStringConvertible`, as an enum
    /// or struct), its `description` is called directly: `String(describing:)` looks the conformances up for every
    /// value, a third of naming 2,000 targets.
    static func fullNames<Target: TargetType>(of targets: [Target]) -> [String] {
        guard Target.self != MultiTarget.self, !(Target.self is AnyObject.Type),
            !(Target.self is any TextOutputStreamable.Type),  // `String(describing:)` asks for that one first
            let describing = Target.self as? any CustomStringConvertible.Type
        else { return targets.map { fullName(of: $0) } }
        func described<Described: CustomStringConvertible>(as _: Described.Type) -> [String] {
            targets.map { ($0 as! Described).description }  // the same type: no conformance to look up
        }
        return described(as: describing)
    }

    /// `userRepositories` for `userRepositories(name: "octocat")`.
    static func caseName(of target: any TargetType) -> String {
        caseName(inFullName: fullName(of: target))
    }

    /// `userRepositories` for the full name `userRepositories(name: "octocat")`.
    static func caseName(inFullName full: String) -> String {
        // The "(" found by its byte: searching the Characters was a third of naming each target. Only where that
        // byte is not a Character of its own (a mark after it) are the Characters searched.
        guard let paren = full.utf8.firstIndex(of: UInt8(ascii: "(")) else { return full }
        if let boundary = paren.samePosition(in: full), full[boundary] == "(" { return String(full[..<boundary]) }
        return full.firstIndex(of: "(").map { String(full[..<$0]) } ?? full
    }

    /// A target's service and its name in reports.
    package struct Name: Hashable {
        package var service: String
        package var name: String
    }

    /// Each target's service and name, in order: the case name, or where two targets of a service share it, the
    /// full description, then ` #2`, ` #3` for repeats.
    package static func uniqueNames(for targets: [some TargetType]) -> [Name] {
        var known: [ObjectIdentifier: String] = [:]
        let fullNames = fullNames(of: targets)
        let keys = targets.indices.map {
            Name(service: serviceName(of: targets[$0], known: &known), name: caseName(inFullName: fullNames[$0]))
        }
        var seen = Set<Name>(minimumCapacity: keys.count)
        guard keys.contains(where: { !seen.insert($0).inserted }) else { return keys }  // every one is unique
        var counts: [Name: Int] = [:]
        for key in keys { counts[key, default: 0] += 1 }
        var used: [Name: Int] = [:]
        return zip(fullNames, keys).map { fullName, key in
            var unique = key
            if counts[key, default: 0] > 1 { unique.name = fullName }
            used[unique, default: 0] += 1
            if let count = used[unique], count > 1 { unique.name += " #\(count)" }
            return unique
        }
    }

    // MARK: - URL

    /// `url` with its `from` prefix replaced by `to`; a URL elsewhere keeps its path but goes to `to`'s origin, so an
    /// override never lets a request reach another host. The override replaces the base whole, its query included:
    /// what the endpoint added to the base's query is kept, after the override's own (see `RequestBuilder.joined`).
    static func redirected(_ url: String, from base: String, to override: String) -> String {
        guard base != override else { return url }
        let target = RequestBuilder.split(url)
        let old = RequestBuilder.split(base)
        var path = target.head.dropFirst(old.head.count)
        var added = target.query.map { Substring($0) } ?? ""
        if target.head.hasPrefix(old.head), path.isEmpty || path.hasPrefix("/") || old.head.hasSuffix("/") {
            if let baseQuery = old.query, let query = target.query, query.hasPrefix(baseQuery) {
                let rest = query.dropFirst(baseQuery.count)
                if rest.isEmpty || rest.hasPrefix("&") { added = rest.drop { $0 == "&" } }
            }
        } else if let components = URLComponents(string: target.head) {
            path = Substring(components.percentEncodedPath)
        } else {
            return override
        }
        return RequestBuilder.appendingQuery(added, to: RequestBuilder.joined(baseURL: override, encodedPath: path))
    }

    static func isContentType(_ name: String) -> Bool { HTTPHeader(name, "").isNamed("Content-Type") }

    // MARK: - Task

    package struct ConvertedTask: Sendable {
        /// `nil` for a skipped task.
        var task: RequestTask?
        /// The body is JSON bytes from an `Encodable`: `Content-Type: application/json` unless the target sets one.
        var isJSONData = false
        var skipReason: String?
    }

    static func requestTask(_ task: Task, label: String) throws(ContractError) -> ConvertedTask {
        switch task {
        case .requestPlain:
            return ConvertedTask(task: .plain)
        case .requestData(let data):
            return ConvertedTask(task: .data(data))
        case .requestJSONEncodable(let value):
            // Keys sorted: a default JSONEncoder's key order changes from run to run, and a contract must not.
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            return ConvertedTask(task: .data(try encode(value, with: encoder, label: label)), isJSONData: true)
        case .requestCustomJSONEncodable(let value, let encoder):
            return ConvertedTask(task: .data(try encode(value, with: encoder, label: label)), isJSONData: true)
        case .requestParameters(let parameters, let encoding):
            return ConvertedTask(
                task: .parameters(try json(parameters, label: label), encoding: encoding.requestEncoding))
        case .requestCompositeData(let body, let urlParameters):
            return ConvertedTask(task: .compositeData(body: body, urlParameters: try json(urlParameters, label: label)))
        case .requestCompositeParameters(let bodyParameters, let bodyEncoding, let urlParameters):
            let encoding = bodyEncoding.requestEncoding
            guard encoding == .json || encoding == .httpBody else {
                throw ContractError(
                    file: label,
                    "requestCompositeParameters: bodyEncoding must be JSONEncoding or URLEncoding.httpBody (Moya stops on "
                        + "any other URLEncoding); put query parameters in urlParameters instead")
            }
            return ConvertedTask(
                task: .compositeParameters(
                    body: try json(bodyParameters, label: label), bodyEncoding: encoding,
                    urlParameters: try json(urlParameters, label: label)))
        case .uploadFile, .uploadMultipart, .uploadCompositeMultipart:
            return ConvertedTask(
                skipReason: "the task is an upload: Tether does not send uploads, so only the stub is kept")
        case .downloadDestination, .downloadParameters:
            return ConvertedTask(
                skipReason: "the task is a download to a file: Tether does not download to files")
        }
    }

    static func encode(_ value: any Encodable, with encoder: JSONEncoder, label: String) throws(ContractError) -> Data {
        do {
            return try encoder.encode(value)
        } catch {
            throw ContractError(file: label, "cannot encode the task's Encodable body as JSON: \(error)")
        }
    }

    /// `[String: Any]` parameters as JSON: keys sorted (a dictionary has no stable order), values as
    /// `JSONSerialization` and Alamofire's query encoding see them; anything else as its description.
    static func json(_ parameters: [String: Any], label: String) throws(ContractError) -> JSONValue {
        .object(parameters.keys.sorted().map { JSONMember($0, jsonValue(parameters[$0] as Any)) })
    }

    static func jsonValue(_ value: Any) -> JSONValue {
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            guard let wrapped = mirror.children.first?.value else { return .null }
            return jsonValue(wrapped)
        }
        switch value {
        case is NSNull: return .null
        case let flag as Bool: return .bool(flag)
        case let text as String: return .string(text)
        case let text as Substring: return .string(String(text))
        case let number as Int: return .integer(Int64(number))
        case let number as Int8: return .integer(Int64(number))
        case let number as Int16: return .integer(Int64(number))
        case let number as Int32: return .integer(Int64(number))
        case let number as Int64: return .integer(number)
        case let number as UInt8: return .integer(Int64(number))
        case let number as UInt16: return .integer(Int64(number))
        case let number as UInt32: return .integer(Int64(number))
        case let number as UInt:
            return Int64(exactly: number).map(JSONValue.integer) ?? .unsignedInteger(UInt64(number))
        case let number as UInt64: return Int64(exactly: number).map(JSONValue.integer) ?? .unsignedInteger(number)
        case let number as Double: return .double(number)
        case let number as Float: return .double(Double(number))
        case let elements as [Any]: return .array(elements.map(jsonValue))
        case let members as [String: Any]:
            return .object(members.keys.sorted().map { JSONMember($0, jsonValue(members[$0] as Any)) })
        default: return .string("\(value)")
        }
    }

    // MARK: - Stub

    static func stub(_ response: EndpointSampleResponse) -> (StubResponse, Data) {
        switch response {
        case .networkResponse(let statusCode, let data):
            return (.network(statusCode: statusCode, headers: []), data)
        case .response(let response, let data):
            var headers: [HTTPHeader] = []
            for (key, value) in response.allHeaderFields {
                headers.append(HTTPHeader(String(describing: key), String(describing: value)))
            }
            headers.sort { $0.name < $1.name }
            return (.network(statusCode: response.statusCode, headers: headers), data)
        case .networkError(let error):
            return (.networkError(code: error.code, description: error.localizedDescription), Data())
        }
    }

    /// The file format's rule: empty (or only whitespace) is `.none`, JSON when it parses, text otherwise; but text
    /// where the content type says JSON is an error.
    static func stubBody(_ data: Data, label: String, response: StubResponse, headers: [HTTPHeader])
        throws(ContractError)
        -> StubBody
    {
        let (body, error) = StubBody.classify(data)
        guard let parseError = error else { return body }
        var claims: [(String, String)] = []
        if case .network(_, let stubHeaders) = response, let type = stubHeaders.first(where: { isContentType($0.name) })
        {
            claims.append(("the stubbed response's Content-Type", type.value))
        }
        // Accept is not a claim: it may list JSON while an endpoint answers text (GitHub's /zen).
        for header in headers where isContentType(header.name) {
            claims.append(("its \(header.name) header", header.value))
        }
        if let (what, value) = claims.first(where: { isJSONMediaType($0.1) }) {
            throw ContractError(
                file: label,
                "sampleData is not valid JSON (\(parseError.problem)), but \(what) says '\(value)': fix sampleData, or make the "
                    + "content type say it is not JSON")
        }
        return .text(data)
    }

    /// `application/json`, `application/vnd.github+json`, …: every media range listed is JSON.
    static func isJSONMediaType(_ value: String) -> Bool {
        let types = value.split(separator: ",").map { HTTPHeader.mediaType(of: String($0)) }
        return !types.isEmpty && types.allSatisfy { $0 == "application/json" || $0.hasSuffix("+json") }
    }
}
