#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The stubs of contracts as routes of a mock service (`tether serve`): each target's stubbed response at its method
/// and path (and query, when the contract has one).
///
/// Matching: the method (a `HEAD` with no `HEAD` route is answered from a `GET` one), the path below the service's
/// base URL path (percent-escapes compared decoded, except `%2F` and `%5C`, which never become separators), then the
/// query: a route's parameters must all be in the request (extra ones are allowed); among the routes that match, the
/// one with the most parameters wins, then the first declared. Bodies are read when the routes are built, so no
/// request ever opens a file. An unknown path gets 404 with a JSON body naming the closest routes; a known path with
/// another method gets 405 with `Allow`.
public struct StubRoutes: Sendable {
    /// One served stub.
    public struct Route: Sendable, Equatable {
        /// `Service.target`, for the console.
        public var label: String
        /// The upper-case method.
        public var method: String
        /// The path as matched (see `StubRoutes`), e.g. `/users/octocat/repos`.
        public var path: String
        /// The query parameters the request must carry (decoded, sorted).
        var query: [RequestKey.QueryPair]
        /// What the route answers: status, headers, body, delay, or a closed or held connection.
        public var response: MockResponse

        /// `GET /users/octocat/repos?per_page=2`.
        public var display: String {
            let pairs = query.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
            return "\(method) \(path)" + (pairs.isEmpty ? "" : "?\(pairs)")
        }
    }

    /// The `Content-Type` of a body whose stub declares none: `application/json` for JSON, `text/plain;
    /// charset=utf-8` for UTF-8 text, `application/octet-stream` for other bytes.
    public static func defaultContentType(for body: StubBody) -> String? {
        switch body {
        case .none: return nil
        case .json: return "application/json"
        case .text(let data):
            return String(data: data, encoding: .utf8) == nil ? "application/octet-stream" : "text/plain; charset=utf-8"
        }
    }

    /// How long a `networkError` stub with the timeout code (-1001, `NSURLErrorTimedOut`) holds the connection
    /// without answering, unless the client gives up first: 60 s, URLSession's and Moya's default request timeout.
    public static let holdSeconds: TimeInterval = 60

    /// The routes in declaration order.
    public private(set) var routes: [Route]
    /// Lines about the routes (a route declared twice: the first one answers).
    public private(set) var notes: [String] = []
    private let redactor: Redactor

    /// Builds the routes of contracts.
    /// - Parameters:
    ///   - contracts: The contracts, as `ManifestLoader` or `TargetConverter` made them.
    ///   - sampleFile: Reads a whole sample file's bytes (the body is served byte for byte); `nil` when unreadable,
    ///     then the body is the stub's parsed value, serialized.
    public init(contracts: [Contract], sampleFile: (String) -> Data? = { FileManager.default.contents(atPath: $0) }) {
        redactor = Redactor(contracts: contracts)
        var routes: [Route] = []
        var seen: [String: String] = [:]
        for contract in contracts {
            let route = Self.route(for: contract, sampleFile: sampleFile)
            let label = "\(contract.service).\(contract.name)"
            if let first = seen[route.display] {
                notes.append(
                    "\(label) is not served: \(first), declared first, answers \(redactor.redact(route.display))")
                continue
            }
            seen[route.display] = label
            routes.append(route)
        }
        self.routes = routes
    }

    /// The route a contract becomes.
    static func route(for contract: Contract, sampleFile: (String) -> Data?) -> Route {
        let (urlPath, urlQuery) = HAREntry.target(of: contract.request.url)
        let (basePath, baseQuery) = HAREntry.target(of: contract.baseURL)
        var path = urlPath
        let prefix = basePath.hasSuffix("/") ? String(basePath.dropLast()) : basePath
        if !prefix.isEmpty, path.hasPrefix(prefix + "/") || path == prefix {
            path = String(path.dropFirst(prefix.count))
        }
        if path.isEmpty { path = "/" }
        var query = RequestKey.pairs(urlQuery)
        for pair in RequestKey.pairs(baseQuery) {
            if let index = query.firstIndex(of: pair) { query.remove(at: index) }
        }

        var response: MockResponse
        switch contract.sampleResponse {
        case .networkError(let code, _):
            response = MockResponse(status: 0, ending: code == -1001 ? .hold(seconds: holdSeconds) : .close)
        case .network(let status, let headers):
            var body = Data()
            if let source = contract.stubSource, source.location.isEmpty, let bytes = sampleFile(source.file) {
                body = bytes
            } else {
                switch contract.sampleData {
                case .none: body = Data()
                case .json(let stub): body = stub.value.serialized()
                case .text(let data): body = data
                }
            }
            var served = headers
            if !served.contains(where: { $0.isNamed("Content-Type") }),
                let type = defaultContentType(for: contract.sampleData)
            {
                served.append(HTTPHeader("Content-Type", type))
            }
            // No body for 1xx, 204 and 304 (HTTP forbids one).
            if status < 200 || status == 204 || status == 304 { body = Data() }
            response = MockResponse(status: status, headers: served, body: body)
        }
        response.delay = contract.stubBehavior.delay
        return Route(
            label: "\(contract.service).\(contract.name)", method: contract.request.method.uppercased(),
            path: normalized(path), query: query, response: response)
    }

    /// A path as routes compare it: percent-escapes decoded, except those of `/`, `\` and `%`, kept as upper-case
    /// escapes so that `%2F` never becomes a separator; a broken escape stays as is.
    static func normalized(_ path: String) -> String {
        let bytes = Array(path.utf8)
        var out: [UInt8] = []
        var index = 0
        func hex(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
            default: return nil
            }
        }
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count, let high = hex(bytes[index + 1]),
                let low = hex(bytes[index + 2])
            {
                let byte = high << 4 | low
                if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "%") {
                    out += Array(formatted("%%%02X", byte).utf8)
                } else {
                    out.append(byte)
                }
                index += 3
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The route that answers a request, if any (see `StubRoutes` for the rules).
    /// - Parameter request: The request received.
    /// - Returns: The matching route, or `nil`.
    public func route(for request: MockRequest) -> Route? {
        let path = Self.normalized(request.path)
        let pairs = RequestKey.pairs(request.query)
        let method = request.method.uppercased()
        func best(_ method: String) -> Route? {
            var found: Route?
            for route in routes where route.method == method && route.path == path {
                var remaining = pairs
                let matches = route.query.allSatisfy { pair in
                    guard let index = remaining.firstIndex(of: pair) else { return false }
                    remaining.remove(at: index)
                    return true
                }
                if matches, route.query.count > (found?.query.count ?? -1) { found = route }
            }
            return found
        }
        return best(method) ?? (method == "HEAD" ? best("GET") : nil)
    }

    /// The answer to a request: the matching route's response, or 404 or 405.
    /// - Parameter request: The request received.
    /// - Returns: The response to send.
    public func response(for request: MockRequest) -> MockResponse {
        if let route = route(for: request) { return route.response }
        let path = Self.normalized(request.path)
        let onPath = routes.filter { $0.path == path }
        if !onPath.isEmpty {
            let methods = Array(Set(onPath.map(\.method) + (onPath.contains { $0.method == "GET" } ? ["HEAD"] : [])))
                .sorted()
            if !methods.contains(request.method.uppercased()) {
                return error(
                    status: 405,
                    "no stub for \(request.method) \(path): its stubs answer \(methods.joined(separator: ", "))",
                    routes: onPath, headers: [HTTPHeader("Allow", methods.joined(separator: ", "))])
            }
        }
        let closest = routes.map { ($0, editDistance($0.display, "\(request.method.uppercased()) \(path)")) }
            .sorted { $0.1 < $1.1 }.prefix(3).map(\.0)
        let query = request.query.isEmpty ? "" : "?\(request.query)"
        return error(
            status: 404,
            "no stub for \(request.method) \(path)\(query); the closest routes are listed in closestRoutes",
            routes: closest)
    }

    private func error(status: Int, _ message: String, routes: [Route], headers: [HTTPHeader] = [])
        -> MockResponse
    {
        let body = JSONValue.object([
            JSONMember("error", .string(message)),
            JSONMember(
                "closestRoutes",
                .array(
                    routes.map {
                        .object([
                            JSONMember("route", .string(redactor.redact($0.display))),
                            JSONMember("target", .string($0.label)),
                        ])
                    })),
        ])
        return MockResponse(
            status: status, headers: headers + [HTTPHeader("Content-Type", "application/json")],
            body: body.serialized(pretty: true))
    }

    /// One console line for a finished request: method, path and query, the target that answered (or `-`), the
    /// outcome and the time, secrets redacted: `GET /zen  GitHub.zen  200  0.001s`.
    /// - Parameter exchange: The finished request.
    /// - Returns: The line, without a line break.
    public func line(for exchange: MockExchange) -> String {
        let request = exchange.request
        let target =
            request.query.isEmpty
            ? request.path : "\(request.path)?\(Redactor.hidingSecretValues(ofQuery: request.query))"
        let label = route(for: request)?.label ?? "-"
        let outcome: String
        switch exchange.outcome {
        case .answered: outcome = String(exchange.response.status)
        case .closed:
            if case .hold = exchange.response.ending {
                outcome = "held, closed (networkError -1001)"
            } else {
                outcome = "closed (networkError)"
            }
        case .clientLeft: outcome = "held until the client left (networkError -1001)"
        case .stopped: outcome = "not answered: the server stopped"
        }
        let text = "\(request.method) \(target)  \(label)  \(outcome)  \(formatted("%.3fs", exchange.seconds))"
        return ReportText.escapingControls(redactor.redact(text))
    }
}

extension StubRoutes {
    /// Loads the manifests under `paths` (as `tether verify` does) and builds their routes, refusing any sample file
    /// outside the folder that was named (through `..`, an absolute path or a symbolic link): only declared sample
    /// files inside it are ever served.
    /// - Parameters:
    ///   - paths: Manifests or folders of them, as named on the command line.
    ///   - environment: The variables `${VAR}` expands from.
    /// - Returns: The routes.
    /// - Throws: `ContractErrors`: every contract error, and one per sample file that leaves its folder, each naming
    ///   the manifest, its line and column, and the path.
    public static func load(paths: [String], environment: [String: String]) throws(ContractErrors) -> StubRoutes {
        var loader = ManifestLoader(environment: environment)
        loader.keepsUnsetVariables = true
        let contracts = try loader.load(paths: paths)
        let roots: [(named: String, real: String)] = paths.map { path in
            let folder = path.fileKind.isFolder ? path : path.pathDeletingLastComponent
            return (path, realPath(folder.isEmpty ? "." : folder))
        }
        var errors: [ContractError] = []
        for contract in contracts {
            guard let source = contract.stubSource, source.location.isEmpty else { continue }
            let manifest = realPath(source.manifest)
            // The named folder that holds the manifest (the deepest, when folders nest).
            guard
                let root = roots.filter({ manifest.isInside($0.real) }).max(by: { $0.real.count < $1.real.count })
            else { continue }
            let sample = realPath(source.file)
            guard !sample.isInside(root.real) else { continue }
            errors.append(
                ContractError(
                    file: source.manifest, line: source.line, column: source.column,
                    location: source.manifestLocation + ".file",
                    "sample file '\(source.file)' is outside '\(root.named)', the folder that was named; "
                        + "tether serve serves only files inside it: move the file there, or name the folder that holds both"
                ))
        }
        guard errors.isEmpty else { throw ContractErrors(errors) }
        return StubRoutes(contracts: contracts)
    }

    /// The path with symbolic links, `.` and `..` resolved (`realpath`); the path made absolute when it does not exist.
    private static func realPath(_ path: String) -> String {
        path.resolvedPath ?? URL(fileURLWithPath: path).standardizedFileURL.path
    }
}
