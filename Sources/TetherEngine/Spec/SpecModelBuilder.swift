#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Builds the model of a document (servers, operations, parameters, bodies, responses, examples) from its values,
/// collecting every problem and every keyword it does not read.
struct SpecModelBuilder {
    let root: SpecNode
    let version: SpecVersion
    let store: SpecStore
    var servers: [SpecServer] = []
    var operations: [SpecOperation] = []
    var unchecked: [SpecUncheckedKeyword] = []
    var problems: [SpecProblem] = []
    /// The values references led to, by the file they are written in and their text (a document refers to the same
    /// parameter or response from many operations).
    private var followed: [String: SpecNode] = [:]

    static let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    // What `note` takes as read at each kind of object (made once: a set literal at each call was a set built and
    // hashed for every operation, parameter and response of the document).
    static let description: Set<String> = ["description"]
    static let summaryAndDescription: Set<String> = ["summary", "description"]
    static let descriptionAndDeprecated: Set<String> = ["description", "deprecated"]
    static let operationDocumentation: Set<String> = ["summary", "description", "externalDocs"]
    static let pathItemKeywords = Set(methods + ["parameters", "servers", "$ref"])
    private static let sharedOperationKeywords: Set<String> = [
        "parameters", "responses", "operationId", "tags", "deprecated",
    ]
    static let swaggerOperationKeywords = sharedOperationKeywords.union(["consumes", "produces"])
    static let operationKeywords = sharedOperationKeywords.union(["requestBody", "servers"])
    private static let openAPIValueKeywords: Set<String> = [
        "schema", "content", "style", "explode", "example", "examples",
    ]
    static let swaggerParameterKeywords = swaggerSchemaKeywords.union([
        "name", "in", "required", "schema", "allowEmptyValue",
    ])
    static let parameterKeywords = openAPIValueKeywords.union(["name", "in", "required"])
    static let swaggerHeaderKeywords = swaggerSchemaKeywords.union(["required"])
    static let headerKeywords = openAPIValueKeywords.union(["required"])
    static let mediaTypeKeywords: Set<String> = ["schema", "example", "examples"]
    static let exampleKeywords: Set<String> = ["value", "externalValue", "summary"]
    static let swaggerResponseKeywords: Set<String> = ["schema", "headers", "examples"]
    static let responseKeywords: Set<String> = ["content", "headers"]
    static let requestBodyKeywords: Set<String> = ["content", "required"]

    /// Swagger 2.0's schema keywords on parameters, headers and `items`, which become the made schema.
    static let swaggerSchemaKeywords: Set<String> = [
        "type", "format", "items", "collectionFormat", "default", "maximum", "exclusiveMaximum", "minimum",
        "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "enum",
        "multipleOf",
    ]

    init(root: SpecNode, version: SpecVersion, store: SpecStore) {
        self.root = root
        self.version = version
        self.store = store
    }

    // MARK: - Helpers

    /// A value as a message quotes it: `'3.2.0'`, `3.1`, `true`.
    static func shown(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): return text.specQuoted
        case .integer(let number): return String(number)
        case .unsignedInteger(let number): return String(number)
        case .double(let number): return String(number)
        case .bool(let flag): return String(flag)
        case .null: return "null"
        case .array: return "a list"
        case .object: return "an object"
        }
    }

    private mutating func invalid(_ node: SpecNode, _ message: String, hint: String) {
        problems.append(SpecProblem(.invalidValue, at: node.place, message: message, hint: hint))
    }

    /// `node`, or the value its `$ref` names (a problem recorded when it does not resolve).
    private mutating func follow(_ node: SpecNode) -> SpecNode? {
        guard let text = node.string("$ref") else { return node }
        let key = node.file + "\u{0}" + text
        if let known = followed[key] { return known }
        guard let reference = node["$ref"] else { return node }
        do {
            let found = try store.resolve(text, at: reference.place)
            followed[key] = found
            return found
        } catch {
            problems.append(contentsOf: error.problems)
            return nil
        }
    }

    /// Records every member of `node` that is neither read nor documentation (`x-` extensions are neither).
    private mutating func note(_ node: SpecNode, read: Set<String>, documentation: Set<String> = Self.description) {
        guard case .object(let members) = node.value else { return }
        for member in members
        where !read.contains(member.key) && !documentation.contains(member.key) && !member.key.hasPrefix("x-") {
            if let found = node[member.key] {
                unchecked.append(SpecUncheckedKeyword(keyword: member.key, place: found.keyPlace))
            }
        }
    }

    /// The member `key` as an object, or `nil` (a problem recorded when it is there but not an object).
    private mutating func object(_ node: SpecNode, _ key: String) -> SpecNode? {
        guard let member = node[key] else { return nil }
        guard case .object = member.value else {
            invalid(
                member, "'\(key)' is \(SpecText.a(member.value.typeName)), not an object", hint: "write it as a map")
            return nil
        }
        return member
    }

    /// The member `key` as a list of strings (2.0 `consumes`, `produces`, `schemes`; `tags`), or `nil`.
    private mutating func strings(_ node: SpecNode, _ key: String) -> [String]? {
        guard let member = node[key] else { return nil }
        guard case .array(let elements) = member.value else {
            invalid(
                member, "'\(key)' is \(SpecText.a(member.value.typeName)), not a list",
                hint: "write it as a list of strings")
            return nil
        }
        return elements.compactMap { element in
            if case .string(let text) = element { return text }
            return nil
        }
    }

    // MARK: - The document

    /// The whole model: `buildTop()`, then every path item in order.
    mutating func build() {
        let items = buildTop()
        buildPaths(items[...])
    }

    /// The document's own keywords and servers; returns its path items (the `x-` members left out), in order.
    mutating func buildTop() -> [(template: String, item: SpecNode)] {
        switch version {
        case .swagger20:
            note(
                root,
                read: [
                    "swagger", "host", "basePath", "schemes", "consumes", "produces", "paths", "definitions",
                    "parameters", "responses", "securityDefinitions",
                ], documentation: ["info", "tags", "externalDocs"])
            servers = swaggerServers()
        case .openAPI30, .openAPI31:
            note(
                root, read: ["openapi", "servers", "paths", "components"],
                documentation: ["info", "tags", "externalDocs"])
            servers = openAPIServers(root) ?? []
            if servers.isEmpty {
                servers = [SpecServer(template: "/", url: "/", host: nil, basePath: "", place: root.place)]
            }
        }
        guard let paths = object(root, "paths") else { return [] }
        return paths.members.filter { !$0.key.hasPrefix("x-") }.map { ($0.key, $0.node) }
    }

    /// The operations of `items`, appended in order (with their problems and keywords not read).
    mutating func buildPaths(_ items: ArraySlice<(template: String, item: SpecNode)>) {
        for (template, item) in items {
            guard template.hasPrefix("/") else {
                invalid(
                    item, "the path \(template.specQuoted) does not begin with '/'",
                    hint: "write it as it follows the server URL: '/\(template)'")
                continue
            }
            pathItem(template, item)
        }
    }

    /// A builder for more path items after this one's: the same document and servers, nothing made yet.
    func continuation() -> SpecModelBuilder {
        var next = self
        next.operations = []
        next.unchecked = []
        next.problems = []
        return next
    }

    /// Appends what `later` made after this builder's, as if this one had gone on.
    mutating func append(_ later: SpecModelBuilder) {
        operations += later.operations
        unchecked += later.unchecked
        problems += later.problems
    }

    private mutating func swaggerServers() -> [SpecServer] {
        // 2.0 says `basePath` begins with '/' and `host` is a host and port alone; a base path without the '/' (`v1`),
        // and a scheme or a path written into the host (`https://api.example.com/v1`), are read as they are meant,
        // as a 3.x server URL would be, so that a target's URL still finds its operation.
        var basePath = root.string("basePath") ?? ""
        if !basePath.isEmpty, !basePath.hasPrefix("/") { basePath = "/" + basePath }
        while basePath.hasSuffix("/") { basePath.removeLast() }
        let schemes = strings(root, "schemes") ?? []
        let place = (root["host"] ?? root["basePath"] ?? root).place
        guard var host = root.string("host") else {
            return [
                SpecServer(
                    template: basePath, url: basePath.isEmpty ? "/" : basePath, host: nil, basePath: basePath,
                    place: place)
            ]
        }
        while host.hasSuffix("/") { host.removeLast() }
        let urls =
            host.contains("://")
            ? [host + basePath] : (schemes.isEmpty ? ["https"] : schemes).map { "\($0)://\(host)\(basePath)" }
        return urls.map { Self.server(template: $0, url: $0, place: place) }
    }

    /// 3.x `servers` of `node` (the document, a path item or an operation), or `nil` when it has none.
    private mutating func openAPIServers(_ node: SpecNode) -> [SpecServer]? {
        guard let list = node["servers"] else { return nil }
        guard case .array = list.value else {
            invalid(
                list, "'servers' is \(SpecText.a(list.value.typeName)), not a list", hint: "write a list of {url: …}")
            return nil
        }
        var result: [SpecServer] = []
        for server in list.elements {
            guard let url = server["url"], let template = url.string else {
                invalid(server, "a server without a 'url' string", hint: "give each server a url")
                continue
            }
            note(server, read: ["url", "variables"])
            var resolved = template
            if let variables = object(server, "variables") {
                for (name, variable) in variables.members {
                    guard let value = variable.string("default") else {
                        invalid(
                            variable, "the server variable \(name.specQuoted) has no 'default' string",
                            hint: "give it a default")
                        continue
                    }
                    resolved = resolved.replacingText("{\(name)}", with: value)
                }
            }
            result.append(Self.server(template: template, url: resolved, place: url.place))
        }
        return result
    }

    /// A server from its URL: absolute (`https://host:8443/v1`), scheme-relative (`//host/v1`) or relative (`/v1`).
    static func server(template: String, url: String, place: SpecPlace) -> SpecServer {
        var rest = Substring(url)
        var host: String?
        if let scheme = rest.rangeOfText("://") {
            rest = rest[scheme.upperBound...]
        } else if rest.hasPrefix("//") {
            rest = rest.dropFirst(2)
        } else {
            var path = String(rest)
            if !path.hasPrefix("/") { path = "/" + path }
            while path.hasSuffix("/") { path.removeLast() }
            return SpecServer(template: template, url: url, host: nil, basePath: path, place: place)
        }
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        host = String(rest[..<slash]).lowercased()
        var path = String(rest[slash...])
        if let query = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = String(path[..<query]) }
        while path.hasSuffix("/") { path.removeLast() }
        return SpecServer(template: template, url: url, host: host, basePath: path, place: place)
    }

    // MARK: - Paths and operations

    private mutating func pathItem(_ template: String, _ written: SpecNode) {
        guard case .object = written.value else {
            invalid(
                written, "the path item \(template.specQuoted) is \(SpecText.a(written.value.typeName)), not an object",
                hint: "write its operations as a map")
            return
        }
        guard let item = follow(written) else { return }
        note(item, read: Self.pathItemKeywords, documentation: Self.summaryAndDescription)
        let shared = parameters(item)
        let itemServers = version == .swagger20 ? nil : openAPIServers(item)
        for method in Self.methods {
            guard let operation = item[method] else { continue }
            guard case .object = operation.value else {
                invalid(
                    operation,
                    "the operation '\(method)' of \(template.specQuoted) is \(SpecText.a(operation.value.typeName))",
                    hint: "write it as an object with 'responses'")
                continue
            }
            self.operation(method, template, operation, shared: shared, servers: itemServers)
        }
    }

    private mutating func operation(
        _ method: String, _ template: String, _ node: SpecNode, shared: Parameters, servers itemServers: [SpecServer]?
    ) {
        note(
            node, read: version == .swagger20 ? Self.swaggerOperationKeywords : Self.operationKeywords,
            documentation: Self.operationDocumentation)
        let own = parameters(node)
        // The operation's parameters win over the path's by name and location.
        var merged = shared.list.filter { candidate in
            !own.list.contains { Self.sameParameter($0, candidate) }
        }
        merged += own.list
        var body: SpecRequestBody?
        if version == .swagger20 {
            if let bodyParameter = own.body ?? shared.body {
                let consumes = strings(node, "consumes") ?? strings(root, "consumes") ?? []
                let schema = bodyParameter.node["schema"]
                body = SpecRequestBody(
                    isRequired: bodyParameter.node.bool("required") ?? false,
                    content: (consumes.isEmpty ? ["*/*"] : consumes).map {
                        SpecMediaType(name: $0, schema: schema, examples: [], place: bodyParameter.node.place)
                    }, node: bodyParameter.node)
            }
        } else if let written = node["requestBody"], let requestBody = follow(written) {
            note(requestBody, read: Self.requestBodyKeywords)
            body = SpecRequestBody(
                isRequired: requestBody.bool("required") ?? false, content: content(requestBody),
                node: requestBody)
        }
        var responses: [SpecResponse] = []
        if let list = object(node, "responses") {
            let produces = version == .swagger20 ? (strings(node, "produces") ?? strings(root, "produces") ?? []) : []
            for (status, written) in list.members where !status.hasPrefix("x-") {
                guard let normalized = Self.status(status) else {
                    problems.append(
                        SpecProblem(
                            .invalidValue, at: written.keyPlace,
                            message: "the response status \(status.specQuoted) is not a code (100-599), a range (2XX)"
                                + " or 'default'", hint: "write the status code as a key, such as '200'"))
                    continue
                }
                guard let response = follow(written) else { continue }
                responses.append(self.response(normalized, response, produces: produces))
            }
        }
        let operationServers: [SpecServer]
        if version == .swagger20 {
            operationServers = servers
        } else {
            operationServers = openAPIServers(node) ?? itemServers ?? servers
        }
        operations.append(
            SpecOperation(
                method: method.uppercased(), path: template, operationId: node.string("operationId"),
                summary: node.string("summary"), tags: strings(node, "tags") ?? [],
                isDeprecated: node.bool("deprecated") ?? false, parameters: merged, requestBody: body,
                responses: responses, servers: operationServers, node: node))
    }

    /// `200`, `2XX` (from `2XX` or `2xx`) or `default`; `nil` for anything else.
    static func status(_ text: String) -> String? {
        if text == "default" { return text }
        let characters = Array(text.uppercased())
        guard characters.count == 3, let first = characters[0].wholeNumberValue, (1...5).contains(first) else {
            return nil
        }
        if characters[1] == "X", characters[2] == "X" { return String(characters) }
        guard characters[1].isASCII, characters[2].isASCII, characters[1].isNumber, characters[2].isNumber else {
            return nil
        }
        return String(characters)
    }

    private static func sameParameter(_ first: SpecParameter, _ second: SpecParameter) -> Bool {
        guard first.location == second.location else { return false }
        return first.location == .header
            ? first.name.lowercased() == second.name.lowercased() : first.name == second.name
    }

    // MARK: - Parameters

    struct Parameters {
        var list: [SpecParameter] = []
        /// Swagger 2.0's `in: body` parameter.
        var body: SpecParameter?
    }

    private mutating func parameters(_ node: SpecNode) -> Parameters {
        var result = Parameters()
        guard let list = node["parameters"] else { return result }
        guard case .array = list.value else {
            invalid(
                list, "'parameters' is \(SpecText.a(list.value.typeName)), not a list",
                hint: "write a list of parameters")
            return result
        }
        for written in list.elements {
            guard let parameter = follow(written) else { continue }
            guard let name = parameter.string("name"), let location = parameter.string("in") else {
                invalid(parameter, "a parameter without 'name' and 'in' strings", hint: "give it both")
                continue
            }
            note(
                parameter, read: version == .swagger20 ? Self.swaggerParameterKeywords : Self.parameterKeywords,
                documentation: Self.descriptionAndDeprecated)
            if location == "body", version == .swagger20 {
                result.body = SpecParameter(
                    name: name, location: .query, isRequired: parameter.bool("required") ?? false,
                    schema: parameter["schema"], content: [], style: nil, explode: nil, node: parameter)
                continue
            }
            guard let parameterLocation = SpecParameterLocation(rawValue: location),
                parameterLocation != .formData || version == .swagger20,
                parameterLocation != .cookie || version != .swagger20
            else {
                invalid(
                    parameter["in"] ?? parameter, "the parameter \(name.specQuoted) is 'in: \(location)'",
                    hint: version == .swagger20
                        ? "use path, query, header, formData or body" : "use path, query, header or cookie")
                continue
            }
            let schema: SpecNode?
            var style = parameter.string("style")
            if version == .swagger20 {
                schema = Self.madeSchema(parameter)
                style = parameter.string("collectionFormat")
            } else {
                schema = parameter["schema"]
            }
            result.list.append(
                SpecParameter(
                    name: name, location: parameterLocation,
                    isRequired: parameterLocation == .path || (parameter.bool("required") ?? false), schema: schema,
                    content: version == .swagger20 ? [] : content(parameter), style: style,
                    explode: parameter.bool("explode"), node: parameter))
        }
        return result
    }

    /// Swagger 2.0: the schema of a parameter or header, made of its own schema keywords (its `required: true` is
    /// not a schema's `required`), placed where the parameter is.
    static func madeSchema(_ node: SpecNode) -> SpecNode? {
        guard case .object(let members) = node.value else { return nil }
        let kept = members.filter { swaggerSchemaKeywords.contains($0.key) && $0.key != "collectionFormat" }
        guard !kept.isEmpty else { return nil }
        let place = node.place
        return SpecNode(
            value: .object(kept), pointer: node.pointer,
            origin: .made(file: place.file, line: place.line, column: place.column))
    }

    // MARK: - Bodies, responses, examples

    /// 3.x `content`: media types with schema and examples.
    private mutating func content(_ node: SpecNode) -> [SpecMediaType] {
        guard let content = object(node, "content") else { return [] }
        var result: [SpecMediaType] = []
        for (name, mediaType) in content.members {
            guard case .object = mediaType.value else {
                invalid(
                    mediaType, "the media type \(name.specQuoted) is \(SpecText.a(mediaType.value.typeName))",
                    hint: "write it as an object with 'schema'")
                continue
            }
            note(mediaType, read: Self.mediaTypeKeywords)
            result.append(
                SpecMediaType(
                    name: name, schema: mediaType["schema"], examples: examples(mediaType), place: mediaType.place))
        }
        return result
    }

    /// 3.x `example` and `examples` of a media type object, references followed.
    private mutating func examples(_ node: SpecNode) -> [SpecExample] {
        var result: [SpecExample] = []
        if let example = node["example"] {
            result.append(
                SpecExample(name: nil, summary: nil, value: example, externalValue: nil, place: example.place))
        }
        guard let examples = object(node, "examples") else { return result }
        for (name, written) in examples.members {
            guard let example = follow(written) else { continue }
            note(example, read: Self.exampleKeywords)
            result.append(
                SpecExample(
                    name: name, summary: example.string("summary"), value: example["value"],
                    externalValue: example.string("externalValue"), place: example.place))
        }
        return result
    }

    private mutating func response(_ status: String, _ node: SpecNode, produces: [String]) -> SpecResponse {
        var content: [SpecMediaType]
        if version == .swagger20 {
            note(node, read: Self.swaggerResponseKeywords)
            let schema = node["schema"]
            let examples = object(node, "examples")?.members ?? []
            var types = schema == nil ? [] : (produces.isEmpty ? ["*/*"] : produces)
            for (type, _) in examples where !types.contains(type) { types.append(type) }
            content = types.map { type in
                let written = examples.filter { $0.key == type }.map {
                    SpecExample(name: nil, summary: nil, value: $0.node, externalValue: nil, place: $0.node.place)
                }
                return SpecMediaType(name: type, schema: schema, examples: written, place: node.place)
            }
        } else {
            note(node, read: Self.responseKeywords)
            content = self.content(node)
        }
        var headers: [SpecHeader] = []
        if let list = object(node, "headers") {
            for (name, written) in list.members {
                guard let header = follow(written) else { continue }
                note(
                    header, read: version == .swagger20 ? Self.swaggerHeaderKeywords : Self.headerKeywords,
                    documentation: Self.descriptionAndDeprecated)
                headers.append(
                    SpecHeader(
                        name: name, isRequired: header.bool("required") ?? false,
                        schema: version == .swagger20 ? Self.madeSchema(header) : header["schema"], node: header))
            }
        }
        return SpecResponse(
            status: status, description: node.string("description"), content: content, headers: headers, node: node)
    }
}
