import Foundation
import Testing

@testable import TetherEngine
@testable import TetherKit

/// Requests matched to operations: servers and base paths stripped, literal segments before templates, path
/// parameters' values, and the nearest operation for a "did you mean".
@Suite struct SpecMatchingTests {
    static let document: SpecDocument? = try? SpecDocumentTests.load(
        """
        openapi: 3.0.3
        servers:
        - url: https://api.example.com/v1
        - url: /v2
        paths:
          /users/me: {get: {operationId: me, responses: {'200': {description: ok}}}}
          /users/{username}:
            get: {operationId: user, responses: {'200': {description: ok}}}
            patch: {operationId: updateUser, responses: {'200': {description: ok}}}
          /users/{username}/repositories: {get: {operationId: repos, responses: {'200': {description: ok}}}}
          /users/{username}/followers: {get: {operationId: followers, responses: {'200': {description: ok}}}}
          /users/{username}/repos: {post: {operationId: createRepo, responses: {'201': {description: ok}}}}
          /files/{name}.json: {get: {operationId: file, responses: {'200': {description: ok}}}}
          /versions/v{major}.{minor}: {get: {operationId: version, responses: {'200': {description: ok}}}}
          /: {get: {operationId: root, responses: {'200': {description: ok}}}}
          /elsewhere:
            servers: [{url: 'https://other.example.com'}]
            get: {operationId: elsewhere, responses: {'200': {description: ok}}}
        """)

    static func route(_ method: String, _ url: String) throws -> SpecRoute {
        let document = try #require(document)
        switch document.match(method: method, url: url) {
        case .found(let route): return route
        case .missing(let miss): throw SpecError(SpecProblem(.invalidValue, file: "", message: miss.description))
        }
    }

    static func miss(_ method: String, _ url: String) throws -> SpecMiss? {
        let document = try #require(document)
        if case .missing(let miss) = document.match(method: method, url: url) { return miss }
        return nil
    }

    @Test(arguments: [
        ("GET", "https://api.example.com/v1/users/me", "me", ""),
        ("get", "https://api.example.com/v1/users/octocat", "user", "username=octocat"),
        ("PATCH", "https://API.example.com/v1/users/octocat?x=1", "updateUser", "username=octocat"),
        ("GET", "https://api.example.com/v1/users/a%20b%2Fc/repositories", "repos", "username=a b/c"),
        ("GET", "http://127.0.0.1:8080/v2/users/octocat/followers", "followers", "username=octocat"),
        ("GET", "https://api.example.com/v1/files/report.v2.json", "file", "name=report.v2"),
        ("GET", "https://api.example.com/v1/versions/v3.10", "version", "major=3,minor=10"),
        ("GET", "https://api.example.com/v1", "root", ""),
        ("GET", "https://api.example.com/v1/", "root", ""),
        ("GET", "https://api.example.com/v1/users/octocat/", "user", "username=octocat"),
        ("GET", "/v2/users/me", "me", ""),
        ("GET", "https://other.example.com/elsewhere", "elsewhere", ""),
    ])
    func matches(_ method: String, _ url: String, _ operationId: String, _ values: String) throws {
        let route = try Self.route(method, url)
        #expect(route.operation.operationId == operationId)
        #expect(route.pathParameters.map { "\($0.name)=\($0.value)" }.joined(separator: ",") == values)
    }

    @Test func serversAndHosts() throws {
        let exact = try Self.route("GET", "https://api.example.com/v1/users/me")
        #expect(exact.server.url == "https://api.example.com/v1")
        #expect(exact.isHostMatched)
        #expect(exact.path == "/users/me")
        // A relative server URL matches any host.
        let relative = try Self.route("GET", "http://localhost:9/v2/users/me")
        #expect(relative.server.url == "/v2")
        #expect(relative.isHostMatched)
        // Another host still matches by path, and says so.
        let staging = try Self.route("GET", "https://staging.example.com/v1/users/me")
        #expect(staging.server.url == "https://api.example.com/v1")
        #expect(!staging.isHostMatched)
        // Without its server's base path, a path is not the document's.
        #expect(try Self.miss("GET", "https://api.example.com/users/me") != nil)
    }

    /// A request whose path no server's path begins (a service's base URL at `/v9` where the spec serves `/v1`):
    /// the message says so, and the suggestion carries its server's path, so that the difference shows.
    @Test func aPathUnderNoServerSaysSoAndTheSuggestionHasItsServersPath() throws {
        let document = try SpecDocumentTests.load(
            """
            openapi: 3.0.3
            servers: [{url: 'https://api.example.com/v1'}, {url: /v2}]
            paths:
              /users/{username}: {get: {responses: {'200': {description: ok}}}}
              /legacy/{id}:
                servers: [{url: 'https://api.example.com/old/v0'}]
                get: {responses: {'200': {description: ok}}}
            """)
        guard case .missing(let miss) = document.match(method: "GET", url: "https://api.example.com/v9/users/octocat")
        else {
            Issue.record("/v9/users/octocat matched")
            return
        }
        #expect(miss.path == "/v9/users/octocat")
        #expect(miss.serverPaths == ["/v1", "/v2", "/old/v0"])  // in document order
        #expect(
            miss.description
                == "the spec has no GET /v9/users/octocat (under none of its servers' paths: /v1, /v2, /old/v0); did"
                + " you mean GET /v1/users/{username}?")
        // Under a server, the path is the document's: no word of servers, the suggestion as the document writes it.
        guard case .missing(let under) = document.match(method: "GET", url: "https://api.example.com/v1/user/octocat")
        else {
            Issue.record("/v1/user/octocat matched")
            return
        }
        #expect(under.serverPaths.isEmpty)
        #expect(under.description == "the spec has no GET /user/octocat; did you mean GET /users/{username}?")
        // The operation's own server's path, when it has one.
        guard case .missing(let legacy) = document.match(method: "GET", url: "https://api.example.com/v0/legacy/1")
        else {
            Issue.record("/v0/legacy/1 matched")
            return
        }
        #expect(legacy.description.hasSuffix("; did you mean GET /old/v0/legacy/{id}?"), "\(legacy.description)")
    }

    @Test func didYouMean() throws {
        let repos = try #require(try Self.miss("GET", "https://api.example.com/v1/users/octocat/repos"))
        #expect(repos.suggestion?.name == "GET /users/{username}/repositories")
        #expect(repos.methodsAtPath == ["POST"])
        #expect(
            repos.description
                == "the spec has no GET /users/octocat/repos (it has POST there); did you mean GET"
                + " /users/{username}/repositories?")
        let delete = try #require(try Self.miss("DELETE", "https://api.example.com/v1/users/octocat"))
        #expect(delete.methodsAtPath == ["GET", "PATCH"])
        #expect(delete.path == "/users/octocat")
        let follower = try #require(try Self.miss("GET", "https://api.example.com/v1/users/octocat/follower"))
        #expect(follower.suggestion?.name == "GET /users/{username}/followers")
        #expect(follower.methodsAtPath.isEmpty)
        // The same method first: POST has only one operation, and it is the one suggested.
        let post = try #require(try Self.miss("POST", "https://api.example.com/v1/users/octocat/repositories"))
        #expect(post.suggestion?.name == "POST /users/{username}/repos")
        #expect(post.methodsAtPath == ["GET"])
    }

    @Test func aLiteralSegmentBeatsATemplateInAnyOrder() throws {
        let document = try SpecDocumentTests.load(
            """
            swagger: '2.0'
            host: api.example.com:8443
            basePath: /api
            paths:
              /{kind}/{id}: {get: {operationId: generic, responses: {200: {description: ok}}}}
              /{kind}/latest: {get: {operationId: latest, responses: {200: {description: ok}}}}
              /pets/{id}: {get: {operationId: pet, responses: {200: {description: ok}}}}
            """)
        func id(_ url: String) -> String? {
            if case .found(let route) = document.match(method: "GET", url: url) { return route.operation.operationId }
            return nil
        }
        #expect(id("https://api.example.com:8443/api/pets/latest") == "pet")
        #expect(id("https://api.example.com/api/cats/latest") == "latest")
        #expect(id("https://api.example.com/api/cats/7") == "generic")
        #expect(id("https://api.example.com/api/pets") == nil)
        #expect(id("https://api.example.com/api/pets//") == nil)
    }

    /// Found by the spec fuzzer: a Swagger 2.0 `basePath` without its '/', or a path (and scheme) written into `host`,
    /// left every operation unreachable by its own URL.
    @Test(arguments: [
        ("host: api.example.com\nbasePath: v1", "https://api.example.com/v1/pets/7", "https://api.example.com/v1"),
        ("basePath: v1/", "http://localhost:9/v1/pets/7", "/v1"),
        ("host: api.example.com/v1/", "https://api.example.com/v1/pets/7", "https://api.example.com/v1"),
        (
            "host: http://api.example.com\nbasePath: /v1", "http://api.example.com/v1/pets/7",
            "http://api.example.com/v1"
        ),
    ])
    func aSwaggerBasePathOrHostWrittenLooselyStillPlacesTheOperations(
        written: String, url: String, server: String
    ) throws {
        let document = try SpecDocumentTests.load(
            """
            swagger: '2.0'
            \(written)
            paths:
              /pets/{id}: {get: {operationId: pet, responses: {200: {description: ok}}}}
            """)
        guard case .found(let route) = document.match(method: "GET", url: url) else {
            Issue.record("GET \(url) did not find its operation")
            return
        }
        #expect(route.operation.operationId == "pet")
        #expect(route.server.url == server)
        #expect(route.isHostMatched)
    }

    /// The index that narrows a request to a few operations finds what trying every operation finds: the same
    /// operation, server and values, the first in document order of equal ranks, on random documents and requests.
    @Test func theIndexFindsWhatTryingEveryOperationFinds() throws {
        var random = SplitMix(state: 24)
        let words = ["a", "b", "{x}", "{y}.json", "a{z}", "ab"]
        let texts = ["a", "b", "c", "q.json", "ab", "a%2Fb", ""]
        let servers = ["https://h1.example.com/v1", "https://h2.example.com/v1", "/v2", "https://h1.example.com"]
        for _ in 0..<60 {
            var paths = Set<String>()
            while paths.count < 12 {
                let count = Int.random(in: 0...3, using: &random)
                paths.insert("/" + (0..<count).map { _ in words.randomElement(using: &random)! }.joined(separator: "/"))
            }
            var yaml = "openapi: 3.0.3\nservers: [{url: '\(servers[0])'}, {url: '\(servers[2])'}]\npaths:\n"
            for path in paths.sorted() {
                yaml += "  '\(path)':\n"
                if Bool.random(using: &random) {
                    let own = servers.shuffled(using: &random).prefix(2).map { "{url: '\($0)'}" }
                    yaml += "    servers: [\(own.joined(separator: ", "))]\n"
                }
                let methods = ["get", "post"].filter { _ in Bool.random(using: &random) }
                for method in methods.isEmpty ? ["get"] : methods {
                    yaml += "    \(method): {responses: {'200': {description: ok}}}\n"
                }
            }
            let document = try SpecDocumentTests.load(yaml)
            for _ in 0..<40 {
                let method = Bool.random(using: &random) ? "GET" : "POST"
                let host = ["h1.example.com", "h2.example.com", "other.example.com"].randomElement(using: &random)!
                let base = ["/v1", "/v2", ""].randomElement(using: &random)!
                let count = Int.random(in: 0...3, using: &random)
                let rest = (0..<count).map { _ in texts.randomElement(using: &random)! }.joined(separator: "/")
                let url =
                    "https://\(host)\(base)/\(rest)" + (count > 0 && Bool.random(using: &random) ? "/" : "")
                let expected = Self.tryingEveryOperation(document, method: method, url: url)
                switch document.match(method: method, url: url) {
                case .found(let route):
                    let found = "\(route.index) \(route.server.url) \(route.pathParameters.map(\.value)) \(route.path)"
                    #expect(found == expected, "\(method) \(url) in\n\(yaml)")
                    #expect(document.operations[route.index].path == route.operation.path)
                case .missing(let miss):
                    #expect(expected == nil, "\(method) \(url) in\n\(yaml)")
                    let nearest = Self.measuringEveryOperation(document, method: method, path: miss.path)
                    #expect(miss.suggestion?.name == nearest, "\(method) \(url) in\n\(yaml)")
                }
            }
        }
    }

    /// A miss's "did you mean", whose bounds pass over most operations unmeasured (a literal's length, then the
    /// characters one text has that the other lacks), finds what measuring every operation finds, on random
    /// documents of longer literals, accented ones among them (no bytes-only bound for those).
    @Test func theBoundedNearestIsWhatMeasuringEveryOperationFinds() throws {
        var random = SplitMix(state: 2_024)
        func word() -> String {
            String((0..<Int.random(in: 1...7, using: &random)).map { _ in "abcdeé1".randomElement(using: &random)! })
        }
        for _ in 0..<60 {
            var paths = Set<String>()
            while paths.count < 30 {
                let count = Int.random(in: 1...3, using: &random)
                paths.insert(
                    "/"
                        + (0..<count).map { _ in Int.random(in: 0..<5, using: &random) == 0 ? "{id}" : word() }
                        .joined(separator: "/"))
            }
            var yaml = "openapi: 3.0.3\nservers: [{url: 'https://h.example.com'}]\npaths:\n"
            for path in paths.sorted() {
                let method = Bool.random(using: &random) ? "get" : "post"
                yaml += "  '\(path)':\n    \(method): {responses: {'200': {description: ok}}}\n"
            }
            let document = try SpecDocumentTests.load(yaml)
            for _ in 0..<30 {
                let method = Bool.random(using: &random) ? "GET" : "POST"
                let count = Int.random(in: 0...4, using: &random)
                let path = (0..<count).map { _ in word() }.joined(separator: "/")
                let url = "https://h.example.com/" + path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)!
                guard case .missing(let miss) = document.match(method: method, url: url) else { continue }
                let nearest = Self.measuringEveryOperation(document, method: method, path: miss.path)
                #expect(miss.suggestion?.name == nearest, "\(method) \(url) in\n\(yaml)")
            }
        }
    }

    /// How `match` found a route before the index: every operation of the method, every one of its servers, the
    /// first of the highest rank.
    static func tryingEveryOperation(_ document: SpecDocument, method: String, url: String) -> String? {
        let (host, path) = SpecDocument.hostAndPath(url)
        for attempt in [path, path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : nil] {
            guard let attempt else { continue }
            var best: (found: String, rank: [Int])?
            for (index, operation) in document.operations.enumerated() where operation.method == method {
                for server in operation.servers {
                    guard let rest = SpecDocument.strip(server.basePath, from: attempt) else { continue }
                    let segments = SpecPathTemplate.segments(of: rest).map(SpecDocument.decoded)
                    guard let found = SpecPathTemplate(operation.path).match(segments) else { continue }
                    let hostMatched = server.host.map { SpecDocument.sameHost($0, host) } ?? true
                    let rank = [hostMatched ? 1 : 0] + found.specificity + [server.basePath.count]
                    if best.map({ $0.rank.lexicographicallyPrecedes(rank) }) ?? true {
                        best = ("\(index) \(server.url) \(found.values.map(\.value)) \(rest)", rank)
                    }
                }
            }
            if let best { return best.found }
        }
        return nil
    }

    /// The "did you mean" as it was before distances were bounded: every operation's distance measured, the first
    /// nearest kept, the nearest of the method when it is within one of the nearest.
    static func measuringEveryOperation(_ document: SpecDocument, method: String, path: String) -> String? {
        let request = SpecPathTemplate.segments(of: path).map(SpecDocument.decoded)
        var nearest: (name: String, distance: Double)?
        var sameMethod: (name: String, distance: Double)?
        for operation in document.operations {
            let template = SpecPathTemplate(operation.path)
            var previous = (0...request.count).map(Double.init)
            for (i, parts) in template.segments.enumerated() {
                var current = [Double(i + 1)]
                for (j, text) in request.enumerated() {
                    let cost = SpecPathTemplate.cost(parts, text)
                    current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + cost))
                }
                previous = current
            }
            let distance = previous[request.count]
            if nearest.map({ distance < $0.distance }) ?? true { nearest = (operation.name, distance) }
            if operation.method == method, sameMethod.map({ distance < $0.distance }) ?? true {
                sameMethod = (operation.name, distance)
            }
        }
        if let sameMethod, let nearest, sameMethod.distance <= nearest.distance + 1 { return sameMethod.name }
        return nearest?.name
    }

    /// A JSON pointer's token unescaped in one pass reads as RFC 6901's two replacements (`~1` first, then `~0`).
    @Test func aPointerTokenIsUnescapedAsTheTwoReplacements() {
        var random = SplitMix(state: 6901)
        for _ in 0..<2_000 {
            let token = String(
                (0..<Int.random(in: 0...6, using: &random)).map { _ in "~01a/é".randomElement(using: &random)! })
            let twoPasses = token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            #expect(SpecReferences.unescape(Substring(token)) == twoPasses, "\(token)")
        }
    }

    /// The edit distance counts characters, as a reader does, whether the bytes-only path takes the text or not: a
    /// carriage return and line feed are one character, and so are `é` and `e` with a combining accent.
    @Test func theEditDistanceCountsCharacters() {
        func characters(_ a: [Character], _ b: [Character]) -> Int {
            var previous = Array(0...b.count)
            for i in a.indices {
                var current = [i + 1]
                for j in b.indices {
                    current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (a[i] == b[j] ? 0 : 1)))
                }
                previous = current
            }
            return previous[b.count]
        }
        var random = SplitMix(state: 80)
        let pieces = ["a", "b", "ab", "\r", "\n", "\r\n", "é", "e\u{301}", "/"]
        for _ in 0..<2_000 {
            let a = (0..<Int.random(in: 0...5, using: &random)).map { _ in pieces.randomElement(using: &random)! }
                .joined()
            let b = (0..<Int.random(in: 0...5, using: &random)).map { _ in pieces.randomElement(using: &random)! }
                .joined()
            #expect(
                SpecText.editDistance(a, b) == characters(Array(a), Array(b)),
                "\(a.debugDescription) \(b.debugDescription)")
        }
    }
}
