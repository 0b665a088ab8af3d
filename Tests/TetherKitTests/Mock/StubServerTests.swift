import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// `StubRoutes`: contracts → routes → responses, as `tether serve` answers them.
@Suite struct StubServerTests {
    static let manifest = """
        { "service": "API", "baseURL": "https://api.test/v1?key=base",
          "stubBehavior": {"delayed": 0.25},
          "targets": [
            { "name": "profile", "path": "/users/octocat", "sampleData": {"file": "samples/profile.json"},
              "stubBehavior": "immediate" },
            { "name": "page2", "path": "/list", "query": {"page": "2"}, "sampleData": {"json": {"page": 2}} },
            { "name": "list", "path": "/list", "sampleData": {"json": [1, 2]} },
            { "name": "zen", "path": "/zen", "sampleData": {"text": "Keep it simple."} },
            { "name": "bytes", "path": "/bytes", "sampleData": {"base64": "/wAB"} },
            { "name": "remove", "method": "DELETE", "path": "/users/octocat",
              "sampleData": {"json": {"ignored": true}},
              "sampleResponse": {"networkResponse": {"statusCode": 204}} },
            { "name": "created", "method": "POST", "path": "/issues", "sampleData": {"json": {"id": 1}},
              "sampleResponse": {"response": {"statusCode": 201, "headers": {"Content-Type": "application/vnd.api+json", "ETag": "\\"x\\""}}} },
            { "name": "offline", "path": "/offline",
              "sampleResponse": {"networkError": {"code": -1009, "description": "offline"}} },
            { "name": "slow", "path": "/slow",
              "sampleResponse": {"networkError": {"code": -1001, "description": "timed out"}} }
          ] }
        """
    /// Spaced and without a trailing newline: served as written, not re-serialized.
    static let profile = "{\n  \"login\" :  \"octocat\",\n  \"id\": 1 }"

    static func routes() throws -> (StubRoutes, ContractFolder) {
        let folder = try ContractFolder(["api.json": manifest, "samples/profile.json": profile])
        return (try StubRoutes.load(paths: [folder.path], environment: [:]), folder)
    }

    @Test func aSampleFileIsServedByteForByteAndEachBodyKindWithItsContentType() throws {
        let (routes, folder) = try Self.routes()
        withExtendedLifetime(folder) {}
        let profile = routes.response(for: MockRequest(method: "GET", path: "/users/octocat"))
        #expect(profile.status == 200)
        #expect(profile.body == Data(Self.profile.utf8))
        #expect(profile.headers == [HTTPHeader("Content-Type", "application/json")])
        let zen = routes.response(for: MockRequest(method: "GET", path: "/zen"))
        #expect(zen.body == Data("Keep it simple.".utf8))
        #expect(zen.headers == [HTTPHeader("Content-Type", "text/plain; charset=utf-8")])
        let bytes = routes.response(for: MockRequest(method: "GET", path: "/bytes"))
        #expect(bytes.body == Data([0xFF, 0x00, 0x01]))
        #expect(bytes.headers == [HTTPHeader("Content-Type", "application/octet-stream")])
        let list = routes.response(for: MockRequest(method: "GET", path: "/list"))
        #expect(try JSONValue.parse(list.body) == .array([.integer(1), .integer(2)]))
        // The stub's own response headers, its Content-Type kept.
        let created = routes.response(for: MockRequest(method: "POST", path: "/issues"))
        #expect(created.status == 201)
        #expect(
            created.headers == [HTTPHeader("Content-Type", "application/vnd.api+json"), HTTPHeader("ETag", "\"x\"")])
        // 204 has no body, whatever the stub holds.
        let removed = routes.response(for: MockRequest(method: "DELETE", path: "/users/octocat"))
        #expect(removed.status == 204)
        #expect(removed.body.isEmpty)
    }

    @Test func routesMatchMethodPathAndTheContractsQuery() throws {
        let (routes, folder) = try Self.routes()
        withExtendedLifetime(folder) {}
        func label(_ method: String, _ path: String, _ query: String = "") -> String? {
            routes.route(for: MockRequest(method: method, path: path, query: query))?.label
        }
        #expect(label("GET", "/list", "page=2") == "API.page2")
        #expect(label("GET", "/list", "x=1&page=2") == "API.page2")  // extra parameters are allowed
        #expect(label("GET", "/list", "page=3") == "API.list")  // the route without a query takes the rest
        #expect(label("GET", "/list") == "API.list")
        #expect(label("HEAD", "/zen") == "API.zen")  // HEAD is answered from GET
        #expect(label("get", "/users/octocat") == "API.profile")
        #expect(label("GET", "/users/%6Fctocat") == "API.profile")  // escapes compared decoded
        #expect(label("DELETE", "/users/octocat") == "API.remove")
        // The base URL's path is the mount point: routes are below it; its query is not required.
        #expect(label("GET", "/v1/users/octocat") == nil)
        // `%2F` never becomes a separator, `..` is never resolved.
        #expect(label("GET", "/users%2Foctocat") == nil)
        #expect(label("GET", "/users/x/../octocat") == nil)
        #expect(StubRoutes.normalized("/a%2fb%5C%41%2e%2E") == "/a%2Fb%5CA..")
    }

    @Test func anUnknownRouteGets404NamingTheClosestRoutesAndAnotherMethod405() throws {
        let (routes, folder) = try Self.routes()
        withExtendedLifetime(folder) {}
        let missing = routes.response(for: MockRequest(method: "GET", path: "/users/octocats"))
        #expect(missing.status == 404)
        #expect(missing.headers.contains(HTTPHeader("Content-Type", "application/json")))
        let body = try JSONValue.parse(missing.body)
        #expect(
            body["error"] == .string("no stub for GET /users/octocats; the closest routes are listed in closestRoutes"))
        guard case .array(let closest) = body["closestRoutes"] else {
            Issue.record("no closestRoutes in \(String(decoding: missing.body, as: UTF8.self))")
            return
        }
        #expect(closest.count == 3)
        #expect(closest.first?["route"] == .string("GET /users/octocat"))
        #expect(closest.first?["target"] == .string("API.profile"))

        let wrongMethod = routes.response(for: MockRequest(method: "PUT", path: "/users/octocat"))
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.headers.contains(HTTPHeader("Allow", "DELETE, GET, HEAD")))
        #expect(
            try JSONValue.parse(wrongMethod.body)["error"]
                == .string("no stub for PUT /users/octocat: its stubs answer DELETE, GET, HEAD"))
    }

    @Test func stubBehaviorAndNetworkErrorsBecomeDelaysClosesAndHolds() throws {
        let (routes, folder) = try Self.routes()
        withExtendedLifetime(folder) {}
        func response(_ path: String) -> MockResponse { routes.response(for: MockRequest(method: "GET", path: path)) }
        #expect(response("/users/octocat").delay == 0)  // the target's "immediate" wins over the service default
        #expect(response("/list").delay == 0.25)  // the service default
        #expect(response("/offline").ending == .close)
        #expect(response("/slow").ending == .hold(seconds: StubRoutes.holdSeconds))
        #expect(StubRoutes.holdSeconds == 60)
    }

    @Test(arguments: [
        (#""stubBehavior": "later""#, "unknown case 'later'"),
        (#""stubBehavior": {"delayed": -1}"#, "-1 seconds is out of range 0...3600"),
        (#""stubBehavior": {"delayed": "2"}"#, "expected a number of seconds, got string"),
    ])
    func aBadStubBehaviorIsAContractErrorAndVerifyAcceptsAGoodOne(key: String, message: String) throws {
        let bad = try ContractFolder([
            "api.json": #"{"service": "A", "baseURL": "https://a.test", "targets": [{"name": "t", \#(key)}]}"#
        ])
        #expect {
            try ManifestLoader(environment: [:]).load(paths: [bad.path])
        } throws: { error in
            "\(error)".contains("targets[0].stubBehavior") && "\(error)".contains(message)
        }
        let good = try ContractFolder([
            "api.json":
                #"{"service": "A", "baseURL": "https://a.test", "targets": [{"name": "t", "stubBehavior": {"delayed": 2}}]}"#
        ])
        #expect(
            try ManifestLoader(environment: [:]).load(paths: [good.path]).first?.stubBehavior == .delayed(seconds: 2))
    }

    @Test(arguments: ["../outside.json", "/ABSOLUTE/outside.json", "samples/link.json"])
    func aSampleFileOutsideTheNamedFolderIsRefusedAtLoad(sample: String) throws {
        let outer = try ContractFolder(["outside.json": #"{"secret": true}"#, "contracts/samples/in.json": "{}"])
        let contracts = outer.file("contracts")
        try FileManager.default.createSymbolicLink(
            atPath: outer.file("contracts/samples/link.json"), withDestinationPath: outer.file("outside.json"))
        let path = sample.replacingOccurrences(of: "/ABSOLUTE", with: outer.path)
        let manifest =
            #"{"service": "A", "baseURL": "https://a.test", "targets": [{"name": "t", "sampleData": {"file": "\#(path)"}}]}"#
        try Data(manifest.utf8).write(to: URL(fileURLWithPath: outer.file("contracts/api.json")))
        // verify may read it; serve refuses it, naming the manifest, the location and the path.
        #expect(try ManifestLoader(environment: [:]).load(paths: [contracts]).count == 1)
        #expect {
            try StubRoutes.load(paths: [contracts], environment: [:])
        } throws: { error in
            let text = "\(error)"
            return text.contains("\(contracts)/api.json:1:")
                && text.contains("targets[0].sampleData.file: sample file '")
                && text.contains(
                    (sample as NSString).lastPathComponent + "' is outside '\(contracts)', the folder that was named")
        }
        // A path with `..` that stays inside is fine.
        let inside =
            #"{"service": "A", "baseURL": "https://a.test", "targets": [{"name": "t", "sampleData": {"file": "samples/../samples/in.json"}}]}"#
        try Data(inside.utf8).write(to: URL(fileURLWithPath: outer.file("contracts/api.json")))
        #expect(try StubRoutes.load(paths: [contracts], environment: [:]).routes.count == 1)
    }

    @Test func swiftStubBehaviorIsCarriedIntoTheContractAndTheExportedManifest() throws {
        var converter = TargetConverter()
        converter.stubClosure = { target in (target as? ServedDemo) == .slow ? .delayed(seconds: 1.5) : .never }
        let slow = try converter.contract(for: ServedDemo.slow).contract
        let fast = try converter.contract(for: ServedDemo.fast).contract
        #expect(slow.stubBehavior == .delayed(seconds: 1.5))
        #expect(fast.stubBehavior == .immediate)  // `.never` means nothing to a served stub
        let folder = try ContractFolder([:])
        let written = try ContractManifest(
            service: "Demo", targets: [ServedDemo.slow, ServedDemo.fast], converter: converter
        )
        .write(to: folder.path)
        let loaded = try ManifestLoader(environment: [:]).load(paths: [written])
        #expect(loaded.map(\.stubBehavior) == [.delayed(seconds: 1.5), .immediate])
    }

    @Test func secretsInARouteNeverReachA404BodyOrTheConsole() throws {
        let folder = try ContractFolder([
            "api.json": """
            {"service": "A", "baseURL": "https://a.test", "targets": [
              {"name": "keyed", "path": "/x", "query": {"key": "${API_KEY}"}, "sampleData": {"json": 1}}]}
            """
        ])
        let routes = try StubRoutes.load(paths: [folder.path], environment: ["API_KEY": "s3cr3t-value"])
        let matched = MockRequest(method: "GET", path: "/x", query: "key=s3cr3t-value")
        #expect(routes.route(for: matched)?.label == "A.keyed")
        let missing = routes.response(for: MockRequest(method: "GET", path: "/y"))
        let body = String(decoding: missing.body, as: UTF8.self)
        #expect(!body.contains("s3cr3t-value"), "\(body)")
        #expect(body.contains("GET /x?key=<redacted>"), "\(body)")
        let line = routes.line(
            for: MockExchange(request: matched, response: MockResponse(), outcome: .answered, seconds: 0.0004))
        #expect(line == "GET /x?key=<redacted>  A.keyed  200  0.000s")
    }

    @Test func aRouteDeclaredTwiceIsServedOnceWithANote() throws {
        let folder = try ContractFolder([
            "api.json": """
            {"service": "A", "baseURL": "https://a.test", "targets": [
              {"name": "first", "path": "/x", "sampleData": {"json": 1}},
              {"name": "second", "path": "/x", "sampleData": {"json": 2}}]}
            """
        ])
        let routes = try StubRoutes.load(paths: [folder.path], environment: [:])
        #expect(routes.routes.map(\.label) == ["A.first"])
        #expect(routes.notes == ["A.second is not served: A.first, declared first, answers GET /x"])
    }

    /// serve sends nothing, so a token its manifest sends need not be set; verify still refuses the unset variable.
    @Test func anUnsetVariableOfARequestDoesNotStopServe() throws {
        let manifest =
            #"{"service": "A", "baseURL": "https://a.test", "headers": {"X-Token": "${TETHER_TEST_UNSET_TOKEN}"}, "#
            + #""targets": [{"name": "x", "path": "/x", "sampleData": {"json": {"a": 1}}}]}"#
        let folder = try ContractFolder(["a.json": manifest])
        #expect(try StubRoutes.load(paths: [folder.path], environment: [:]).routes.map(\.label) == ["A.x"])
        #expect(throws: ContractErrors.self) { try ManifestLoader(environment: [:]).load(paths: [folder.path]) }
    }

    /// `tether serve` prints each request: a query parameter named as a secret (the client's own token) is hidden.
    @Test func aClientsCredentialInTheQueryIsNotPrinted() {
        #expect(
            Redactor.hidingSecretValues(ofQuery: "per_page=2&access_token=abc123SECRETQ&apiKey=k&x&=v&Session=")
                == "per_page=2&access_token=<redacted>&apiKey=<redacted>&x&=v&Session=<redacted>")
        #expect(Redactor.hidingSecretValues(ofQuery: "q=token") == "q=token")
        // A signed URL's signature, an OAuth code, a JWT, a password's short name; not a word that holds `sig`.
        #expect(
            Redactor.hidingSecretValues(ofQuery: "X-Amz-Signature=ab12&sig=cd&code=ef&jwt=gh&pwd=ij&design=kl&otp=1")
                == "X-Amz-Signature=<redacted>&sig=<redacted>&code=<redacted>&jwt=<redacted>&pwd=<redacted>&design=kl"
                + "&otp=<redacted>")
    }

    @Test func aHAREntryWithoutAResponseIsSkippedWithANote() throws {
        let har = """
            {"log": {"entries": [
              {"request": {"method": "GET", "url": "https://a.test/pending?token=abcdef"}},
              {"request": {"method": "GET", "url": "https://a.test/ok"}, "response": {"status": 200, "content": {"text": "ok"}}}
            ]}}
            """
        let archive = try HARArchive.parse(Data(har.utf8), path: "a.har")
        #expect(archive.notes == ["a.har: entries[0] (GET /pending) has no response: skipped"])
        // An entry whose url is not one answers no request: said, without the query a token may be in.
        let odd = har.replacingOccurrences(of: "https://a.test/pending?token=abcdef", with: "a.test/x?token=abcdef")
            .replacingOccurrences(of: #"/x?token=abcdef"}}"#, with: #"/x?token=abcdef"}, "response": {"status": 200}}"#)
        #expect(
            try HARArchive.parse(Data(odd.utf8), path: "a.har").notes == [
                "a.har: entries[0] has url 'a.test/x', not an http or https URL: it answers no request; fix its url, "
                    + "or remove it"
            ])
        let replay = HARReplay(archive)
        #expect(replay.count == 1)
        #expect(replay.response(for: MockRequest(method: "GET", path: "/ok")).body == Data("ok".utf8))
    }
}

/// `MockServer` waiting: a delay answers late, `close` sends nothing, a hold lasts until the client gives up.
@Suite struct MockServerWaitingTests {
    final class Exchanges: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [MockExchange] = []
        func append(_ exchange: MockExchange) { lock.withLock { list.append(exchange) } }
        var all: [MockExchange] { lock.withLock { list } }
    }

    @Test func aDelayedAnswerComesAfterTheDelayAndOthersAreServedMeanwhile() async throws {
        let log = Exchanges()
        let server = try MockServer(onFinish: log.append) { request in
            request.path == "/slow" ? MockResponse(status: 200, body: Data("late".utf8), delay: 1) : .json("{}")
        }
        let start = Date()
        let (slowURL, fastURL) = ("\(server.baseURL)/slow", "\(server.baseURL)/fast")
        // Both requests sent from a thread of their own, 0.2 s apart: from the cooperative pool (an `async let` and a
        // `Task.sleep`), a busy machine once sent the second more than a second after the first.
        let (slow, fast) = try await offPool {
            let slow = try StartedCurl(["-s", "-w", "\n%{http_code}", slowURL])
            usleep(200_000)
            return (slow, try StartedCurl(["-s", "-w", "\n%{http_code}", fastURL]))
        }
        let late = try await slow.result()
        let quick = try await fast.result()
        #expect(late.outputText == "late\n200")
        #expect(Date().timeIntervalSince(start) >= 1)
        #expect(quick.outputText == "{}\n200")
        // The request sent later was answered first: the waiting one held no thread back.
        #expect(log.all.map(\.request.path) == ["/fast", "/slow"])
        #expect(log.all.first { $0.request.path == "/slow" }.map { $0.seconds >= 1 } == true)
    }

    @Test func closeSendsNoResponseAndAHoldLastsUntilTheClientGivesUp() async throws {
        let log = Exchanges()
        let server = try MockServer(onFinish: log.append) { request in
            MockResponse(status: 0, ending: request.path == "/hold" ? .hold(seconds: 60) : .close)
        }
        let closed = try await runCurl(["-s", "--max-time", "10", "\(server.baseURL)/close"])
        #expect(closed.exitCode == 52)  // empty reply from server
        let held = try await runCurl(["-s", "--max-time", "1", "\(server.baseURL)/hold"])
        #expect(held.exitCode == 28)  // curl's own timeout: nothing came back within 1 s
        #expect(eventually(within: 5) { log.all.contains { $0.outcome == .clientLeft } }, "\(log.all)")
        #expect(log.all.first { $0.request.path == "/close" }?.outcome == .closed)
        server.stop()
    }

    @Test func stopEndsAHeldConnection() async throws {
        let log = Exchanges()
        let server = try MockServer(onFinish: log.append) { request in
            log.append(MockExchange(request: request, response: MockResponse(), outcome: .answered, seconds: 0))
            return MockResponse(status: 0, ending: .hold(seconds: 60))
        }
        let url = "\(server.baseURL)/hold"
        let held = try StartedCurl(["-s", "--max-time", "30", url], deadline: 60)
        // Stop once the request is held (the handler has run), not before curl connects.
        #expect(eventually(within: 20) { log.all.count == 1 })
        server.stop()
        #expect(log.all.last?.outcome == .stopped, "\(log.all)")
        let result = try await held.result()
        #expect(result.exitCode == 52 || result.exitCode == 56, "curl: \(result.exitCode) \(result.errorText)")
        #expect(!result.wasKilled)
    }

    @Test func aHostOtherThanAnIPv4AddressIsRefused() {
        #expect(throws: MockServerError.invalidHost("example.com")) {
            try MockServer(host: "example.com") { _ in MockResponse() }
        }
        #expect(
            MockServerError.invalidHost("example.com").description
                == "mock server: host 'example.com' is not an IPv4 address such as 127.0.0.1 or 0.0.0.0 (or localhost)")
    }
}

/// Two Swift targets for the stub-behaviour tests.
enum ServedDemo: TargetType, Equatable {
    case slow, fast
    var baseURL: URL { URL(string: "https://demo.test") ?? URL(fileURLWithPath: "/") }
    var path: String { self == .slow ? "/slow" : "/fast" }
    var method: TetherContracts.Method { .get }
    var sampleData: Data { Data(#"{"ok": true}"#.utf8) }
    var task: TetherContracts.Task { .requestPlain }
    var headers: [String: String]? { nil }
}
