#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Checks a target's stub against the provider's OpenAPI document (`--spec`), with nothing sent: the operation its
/// method and path match (after the servers' base paths), its query, headers and request body against the
/// operation's parameters and `requestBody`, the stub's status against the documented responses (the exact code,
/// then `2XX`, then `default`), the stub's headers against that response's, and the stub's body against that
/// response's schema as the app reads it (`SchemaCheckMode.consumer`: a field the schema does not declare is a
/// drift, a required one the stub leaves out a note). Every finding of this check blames the stub
/// (`Finding.Culprit.stub`) and names the spec's place; `check(live:of:)`'s blame the service.
///
/// The schemas of the operations a run's targets match are compiled once, when the check is made, so that a schema
/// that cannot be walked stops the run before anything is checked; checking a stub then resolves nothing. An
/// operation no target matches is not compiled: a run of a few targets against a provider's large document takes the
/// time of the part it uses (the document itself is read whole: `SpecDocument.load` finds every unresolved `$ref`),
/// and a schema elsewhere that cannot be compiled (a cycle that no value could end) does not stop it.
public struct SpecCheck: Sendable {
    /// The document.
    public let document: SpecDocument
    /// The compiled schemas, by the place of the schema in the document.
    private let schemas: [SpecPlace: CompiledSchema]

    /// What the check of one stub found, and which part of the document it covered.
    public struct Verdict: Sendable {
        /// Drifts and notes, each with its culprit and the spec's place.
        public var findings: [Finding]
        /// The operation the target matched, by its index in `document.operations`; `nil` when none.
        public var operation: Int?
        /// The documented response the stub's status chose, as written (`200`, `2XX`, `default`); `nil` when none.
        public var response: String?
    }

    /// Compiles every request, parameter and response schema of the document's operations.
    /// - Parameter document: A loaded document.
    /// - Throws: `SchemaError` for a schema that cannot be compiled (a cycle that no value could end).
    public init(document: SpecDocument) throws(SchemaError) {
        try self.init(document: document, operations: nil)
    }

    /// Compiles the schemas of the operations that `contracts`' requests match (as `check(stubOf:)` and
    /// `check(live:of:)` match them): only those contracts may be checked.
    /// - Parameters:
    ///   - document: A loaded document.
    ///   - contracts: The run's targets.
    /// - Throws: `SchemaError` for a schema of those operations that cannot be compiled.
    package init(document: SpecDocument, for contracts: [Contract]) throws(SchemaError) {
        var matched = Set<Int>()
        for contract in contracts {
            if let route = document.route(method: contract.request.method, url: contract.request.url) {
                matched.insert(route.index)
            }
        }
        try self.init(document: document, operations: matched)
    }

    /// Compiles the schemas of the operations numbered `operations` (of every operation when `nil`).
    private init(document: SpecDocument, operations chosen: Set<Int>?) throws(SchemaError) {
        self.document = document
        let source = SpecSchemaSource(document: document)
        var compiler = SchemaCompiler(dialect: document.version.dialect, source: source)
        var schemas: [SpecPlace: CompiledSchema] = [:]
        func add(_ node: SpecNode?) throws(SchemaError) {
            guard let node, schemas[node.place] == nil else { return }
            source.remember(node)
            schemas[node.place] = try compiler.compile(node.value, at: node.place)
        }
        for (index, operation) in document.operations.enumerated() where chosen?.contains(index) ?? true {
            for parameter in operation.parameters { try add(parameter.schema) }
            for media in operation.requestBody?.content ?? [] { try add(media.schema) }
            for response in operation.responses {
                for media in response.content { try add(media.schema) }
                for header in response.headers { try add(header.schema) }
            }
        }
        self.schemas = schemas
    }

    /// Checks `contract`'s request and stub against the document.
    /// - Parameter contract: A target whose stub is a response (a `networkError` stub has no response to check; its
    ///   request still is).
    /// - Returns: The findings and what they covered.
    public func check(stubOf contract: Contract) -> Verdict {
        let request = contract.request
        let route: SpecRoute
        switch document.match(method: request.method, url: request.url) {
        case .missing(let miss):
            let place = miss.suggestion?.node.place ?? document.root.place
            return Verdict(
                findings: [
                    finding(
                        .specOperation, at: .target,
                        miss.description
                            + (miss.suggestion == nil ? "; fix the target's path or method, or document it" : ""),
                        place: place, expected: miss.suggestion?.name, actual: "\(miss.method) \(miss.path)")
                ], operation: nil, response: nil)
        case .found(let found):
            route = found
        }
        let operation = route.operation
        var findings: [Finding] = []
        findings += parameterFindings(route, request: request)
        findings += requestBodyFindings(operation, request: request)
        guard case .network(let status, let headers) = contract.sampleResponse else {
            return Verdict(findings: findings, operation: route.index, response: nil)
        }
        guard let response = operation.response(for: status) else {
            let documented = operation.responses.map(\.status)
            findings.append(
                finding(
                    .specStatus, at: .status,
                    "the spec documents no \(status) response for \(operation.name)"
                        + (documented.isEmpty ? "" : " (it documents \(documented.joined(separator: ", ")))")
                        + "; fix the stub's status, or document the response",
                    place: operation.node.place, expected: documented.joined(separator: ", "), actual: "\(status)"))
            return Verdict(findings: findings, operation: route.index, response: nil)
        }
        findings += headerFindings(headers, response: response, operation: operation, culprit: .stub)
        findings += bodyFindings(
            contract.sampleData, contentType: headers.first { $0.isNamed("Content-Type") }?.value, status: status,
            response: response, operation: operation, rules: contract.rules)
        return Verdict(findings: findings, operation: route.index, response: response.status)
    }

    /// Checks a live answer against the document, as the service must keep it: its status documented, its headers
    /// and body fit for that response's schemas, a required header and member included (the findings blame the
    /// service). A member the schema does not declare is a note whose `expected` is `undeclared`: `SpecTriangle`
    /// needs it where the stub has the member too (then the spec is out of date), and drops it otherwise.
    /// - Parameters:
    ///   - response: The live answer.
    ///   - contract: The target it answers.
    /// - Returns: Drifts and notes, culprit `.service`; none when the target matches no operation.
    public func check(live response: HTTPResponse, of contract: Contract) -> [Finding] {
        guard case .found(let route) = document.match(method: contract.request.method, url: contract.request.url)
        else { return [] }
        let operation = route.operation
        guard let documented = operation.response(for: response.statusCode) else {
            let statuses = operation.responses.map(\.status).joined(separator: ", ")
            return [
                finding(
                    .specStatus, at: .status,
                    "the service answers \(response.statusCode), which the spec does not document for "
                        + "\(operation.name) (it documents \(statuses))", place: operation.node.place,
                    expected: statuses, actual: "\(response.statusCode)", culprit: .service)
            ]
        }
        let headers = headerFindings(response.headers, response: documented, operation: operation, culprit: .service)
        let contentType = response.headers.first { $0.isNamed("Content-Type") }?.value
        guard !response.body.isEmpty, !documented.content.isEmpty,
            let media = documented.mediaType(for: contentType), Self.isJSON(media.name),
            let schemaNode = media.schema, let schema = schemas[schemaNode.place]
        else { return headers }
        guard let value = try? JSONReader().value(response.body) else {
            return headers + [
                finding(
                    .specMediaType, at: .body,
                    "the spec documents \(media.name) for the \(documented.status) response of \(operation.name); the "
                        + "service's body is not JSON", place: media.place, expected: media.name,
                    actual: contentType ?? "absent", culprit: .service)
            ]
        }
        return headers
            + schema.violations(of: value, mode: .consumer).map { violation in
                let isUndeclared = violation.keyword == "properties" && violation.isViolation
                // The service must send what the spec requires (a note for the app's reading of a stub).
                let isDrift = !isUndeclared && (violation.isViolation || violation.keyword == "required")
                return finding(
                    .specSchema, kind: isDrift ? .drift : .note, at: .json(violation.location), violation.message,
                    place: violation.place, expected: isUndeclared ? "undeclared" : violation.expected,
                    actual: violation.actual, culprit: .service)
            }
    }

    // MARK: The stub's body against the response

    private func bodyFindings(
        _ body: StubBody, contentType: String?, status: Int, response: SpecResponse, operation: SpecOperation,
        rules: ContractRules
    ) -> [Finding] {
        let place = response.node.place
        let what = "the \(response.status) response of \(operation.name)"
        if case .none = body { return [] }
        if response.content.isEmpty {
            return [
                finding(
                    .specNotChecked, kind: .note, at: .body,
                    "\(what) documents no body: the stub's is not checked against the spec", place: place)
            ]
        }
        let stubType = contentType ?? (body.jsonValue != nil ? "application/json" : nil)
        guard let media = response.mediaType(for: stubType) else {
            let documented = response.content.map(\.name).joined(separator: ", ")
            return [
                finding(
                    .specMediaType, at: .body,
                    "\(what) is documented as \(documented), the stub is \(stubType ?? "not JSON")", place: place,
                    expected: documented, actual: stubType)
            ]
        }
        guard let schemaNode = media.schema, let schema = schemas[schemaNode.place] else {
            return [
                finding(
                    .specNotChecked, kind: .note, at: .body,
                    "\(what) has no schema for \(media.name): the stub's body is not checked against the spec",
                    place: media.place)
            ]
        }
        guard let value = body.jsonValue else {
            // A text stub against a text media type (`text/plain` with `type: string`): nothing more to check.
            if !Self.isJSON(media.name) { return [] }
            return [
                finding(
                    .specMediaType, at: .body,
                    "\(what) is documented as \(media.name) with a schema, the stub's body is not JSON", place: place,
                    expected: media.name, actual: "text")
            ]
        }
        return ShapeCheck.repeatedKeys(in: value, rules: rules, culprit: .stub)
            + schemaFindings(schema.violations(of: value, mode: .consumer), rules: rules, at: { .json($0) })
    }

    // MARK: Response headers

    /// A response's headers (the stub's or the live answer's) against those `response` documents. A value outside
    /// its header's schema is a drift. A header the spec requires and the response lacks is a note for a stub (a stub
    /// made with `.networkResponse` has no headers, and the app may not read it) and a drift for the service (it must
    /// send it). A header the spec does not document is neither: services send many (`Date`, `Server`, `Vary`).
    /// `Content-Type` is the media type's business (OpenAPI ignores a header object of that name). The value of a
    /// credential header (`Set-Cookie`) is never quoted.
    private func headerFindings(
        _ headers: [HTTPHeader], response: SpecResponse, operation: SpecOperation, culprit: Finding.Culprit
    ) -> [Finding] {
        var findings: [Finding] = []
        let whose = culprit == .stub ? "the stub's" : "the service's"
        for header in response.headers where header.name.lowercased() != "content-type" {
            guard let sent = headers.first(where: { $0.isNamed(header.name) }) else {
                if header.isRequired {
                    findings.append(
                        finding(
                            .specHeader, kind: culprit == .stub ? .note : .drift, at: .header(header.name),
                            "the \(response.status) response of \(operation.name) requires the header "
                                + "'\(header.name)'; \(whose) answer has none", place: header.node.place,
                            expected: "required", actual: "absent", culprit: culprit))
                }
                continue
            }
            guard let schemaNode = header.schema, let schema = schemas[schemaNode.place],
                let misfit = Self.misfit(Self.headerCandidates(sent.value), schema, at: schemaNode)
            else { continue }
            // (The schema's words quote the value too.)
            let said =
                sent.isCredential
                ? "outside its schema (a credential: its value is not shown)"
                : "'\(sent.value)', outside its schema" + misfit.words
            findings.append(
                finding(
                    .specHeader, at: .header(header.name), "\(whose) header '\(header.name)' is " + said,
                    place: misfit.place, expected: "in its schema",
                    actual: sent.isCredential ? "not shown" : sent.value,
                    culprit: culprit))
        }
        return findings
    }

    /// A header's text as the values a schema may read it as (OpenAPI's `simple` style): those of
    /// `candidates(_:)`, then the comma-separated parts as an array (`1, 2` as `[1, 2]` and `["1", "2"]`).
    static func headerCandidates(_ text: String) -> [JSONValue] {
        let trimmed = text.trimmingWhitespace()
        let parts = trimmed.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingWhitespace()
        }
        return candidates(trimmed) + [
            .array(parts.map { candidates($0)[0] }), .array(parts.map { JSONValue.string($0) }),
        ]
    }

    // MARK: The request

    private func parameterFindings(_ route: SpecRoute, request: HTTPRequest) -> [Finding] {
        let operation = route.operation
        var findings: [Finding] = []
        let query = RequestBuilder.split(request.url).query.map(RequestKey.queryPairs) ?? []
        for parameter in operation.parameters {
            let value: String?
            let location: Finding.Location
            switch parameter.location {
            case .path:
                value = route.pathParameters.first { $0.name == parameter.name }?.value
                location = .target
            case .query:
                value = query.first { $0.0 == parameter.name }?.1
                location = .query(parameter.name)
            case .header:
                value = request.headers.first { $0.isNamed(parameter.name) }?.value
                location = .header(parameter.name)
            default:
                continue
            }
            guard let value else {
                if parameter.isRequired {
                    findings.append(
                        finding(
                            .specParameter, at: location,
                            "\(operation.name) requires the \(parameter.location.rawValue) parameter "
                                + "'\(parameter.name)'; the request has none: add it to the target",
                            place: parameter.node.place, expected: "required", actual: "absent"))
                }
                continue
            }
            // A value a set-up step captures is known only when the run sends the target (`--offline` sends
            // nothing): it is not judged by the stand-in the request holds until then.
            guard let schemaNode = parameter.schema, let schema = schemas[schemaNode.place],
                StepCaptures.names(in: value).isEmpty
            else { continue }
            guard let misfit = Self.misfit(Self.candidates(value), schema, at: schemaNode) else { continue }
            findings.append(
                finding(
                    .specParameter, at: location,
                    "the \(parameter.location.rawValue) parameter '\(parameter.name)' is '\(value)', "
                        + "outside its schema" + misfit.words,
                    place: misfit.place, expected: "in its schema", actual: value))
        }
        let declared = Set(operation.parameters.filter { $0.location == .query }.map(\.name))
        for (name, _) in query where !declared.contains(name) {
            findings.append(
                finding(
                    .specParameter, at: .query(name),
                    "\(operation.name) declares no query parameter '\(name)': the service may reject or ignore "
                        + "it; remove it from the target, or document it", place: operation.node.place,
                    expected: "declared", actual: "undeclared"))
        }
        return findings
    }

    private func requestBodyFindings(_ operation: SpecOperation, request: HTTPRequest) -> [Finding] {
        let hasBody = !(request.body?.isEmpty ?? true)
        guard let requestBody = operation.requestBody else {
            guard hasBody else { return [] }
            return [
                finding(
                    .specRequestBody, at: .target,
                    "\(operation.name) documents no request body; the target sends one", place: operation.node.place,
                    expected: "none", actual: "a body")
            ]
        }
        guard let body = request.body, hasBody else {
            guard requestBody.isRequired else { return [] }
            return [
                finding(
                    .specRequestBody, at: .target,
                    "\(operation.name) requires a request body; the target sends none", place: requestBody.node.place,
                    expected: "required", actual: "absent")
            ]
        }
        let contentType = request.headers.first { $0.isNamed("Content-Type") }?.value
        guard let media = requestBody.mediaType(for: contentType) else {
            let documented = requestBody.content.map(\.name).joined(separator: ", ")
            return [
                finding(
                    .specRequestBody, at: .header("Content-Type"),
                    "\(operation.name) takes a request body of \(documented), the target sends "
                        + (contentType ?? "no Content-Type"), place: requestBody.node.place, expected: documented,
                    actual: contentType ?? "absent")
            ]
        }
        guard let schemaNode = media.schema, let schema = schemas[schemaNode.place],
            let value = try? JSONReader().value(body)
        else { return [] }
        // A request the spec rejects is the stub's drift: a member it lacks that the schema requires is one too
        // (the service would refuse it), not a note as in a response the app reads.
        let violations = schema.violations(of: value, mode: .consumer).compactMap { violation -> SchemaViolation? in
            // A value a set-up step captures is known only when the run sends the target: its stand-in is judged
            // only as the string it will be (a captured value in a JSON body is in a string), not by its format,
            // pattern or length.
            if violation.keyword != "type", case .string(let text)? = Self.value(at: violation.location, in: value),
                !StepCaptures.names(in: text).isEmpty
            {
                return nil
            }
            var violation = violation
            if violation.keyword == "required" { violation.severity = .violation }
            return violation
        }
        return violations.map { violation in
            finding(
                .specRequestBody, kind: violation.isViolation ? .drift : .note, at: .target,
                "the request body at \(violation.location): \(violation.message)", place: violation.place,
                expected: violation.expected, actual: violation.actual)
        }
    }

    /// The value at `location` in `root`, if there is one.
    private static func value(at location: JSONLocation, in root: JSONValue) -> JSONValue? {
        var value = root
        for component in location.components {
            switch (component, value) {
            case (.key(let key), .object):
                guard let member = value[key] else { return nil }
                value = member
            case (.index(let index), .array(let elements)) where elements.indices.contains(index):
                value = elements[index]
            default:
                return nil
            }
        }
        return value
    }

    // MARK: Findings

    private func schemaFindings(
        _ violations: [SchemaViolation], rules: ContractRules, at location: (JSONLocation) -> Finding.Location
    ) -> [Finding] {
        violations.compactMap { violation in
            if Self.isIgnored(violation.location, by: rules) { return nil }
            return finding(
                .specSchema, kind: violation.isViolation ? .drift : .note, at: location(violation.location),
                violation.message, place: violation.place, expected: violation.expected, actual: violation.actual)
        }
    }

    private func finding(
        _ rule: Finding.Rule, kind: Finding.Kind = .drift, at location: Finding.Location, _ message: String,
        place: SpecPlace, expected: String? = nil, actual: String? = nil, culprit: Finding.Culprit = .stub
    ) -> Finding {
        Finding(
            kind, rule, at: location, message + " (the spec: \(place) \(place.pointer))", expected: expected,
            actual: actual,
            culprit: culprit, specPlace: place)
    }

    /// Whether a media type is JSON: `application/json`, `application/vnd.github+json`, `application/problem+json`,
    /// `*/*` (2.0's default, and JSON is what a JSON stub is).
    static func isJSON(_ mediaType: String) -> Bool {
        let essence = SpecMediaType.essence(mediaType)
        return essence == "*/*" || essence == "application/json" || essence.hasSuffix("+json")
    }

    /// Whether `rules.ignore` names the value at `location` or one it is in.
    static func isIgnored(_ location: JSONLocation, by rules: ContractRules) -> Bool {
        guard !rules.ignore.isEmpty else { return false }
        let steps = location.components.map { component -> JSONPathPattern.Step in
            switch component {
            case .key(let key): .key(key)
            case .index(let index): .index(index)
            }
        }
        return (0...steps.count).contains { length in
            rules.ignore.contains { $0.matches(Array(steps.prefix(length))) }
        }
    }

    /// How a text (a parameter's or a header's) falls outside its schema: `nil` when one of `readings` fits, else the
    /// place of the first rule its first reading breaks (the schema's own when none is named) and that rule's words
    /// (`": expected integer, got …"`, or nothing).
    private static func misfit(_ readings: [JSONValue], _ schema: CompiledSchema, at schemaNode: SpecNode)
        -> (place: SpecPlace, words: String)?
    {
        guard !readings.contains(where: { schema.isValid($0) }) else { return nil }
        let violation = readings.first.flatMap { schema.violations(of: $0).first(where: \.isViolation) }
        return (violation?.place ?? schemaNode.place, violation.map { ": " + $0.message } ?? "")
    }

    /// A parameter's text as the values a schema may read it as: a number, `true`/`false`, and the string itself.
    static func candidates(_ text: String) -> [JSONValue] {
        var values: [JSONValue] = []
        if let integer = Int64(text) {
            values.append(.integer(integer))
        } else if let number = Double(text), number.isFinite, text.contains(where: \.isNumber) {
            values.append(.double(number))
        }
        if text == "true" || text == "false" { values.append(.bool(text == "true")) }
        values.append(.string(text))
        return values
    }
}

extension SpecVersion {
    /// The Schema Object's dialect of this version.
    var dialect: SchemaDialect {
        switch self {
        case .swagger20: .openAPI20
        case .openAPI30: .openAPI30
        case .openAPI31: .openAPI31
        }
    }
}
