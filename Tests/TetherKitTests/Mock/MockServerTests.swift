import Foundation
import Testing
import TetherKit

@Suite struct MockServerTests {
    /// Answers `GET /users/{name}` with JSON naming the user, everything else with 404.
    static func routes(_ log: RequestLog) -> @Sendable (MockRequest) -> MockResponse {
        { request in
            log.record(request)
            if request.method == "GET", request.path.hasPrefix("/users/") {
                let name = request.path.dropFirst("/users/".count)
                return .json(#"{"login":"\#(name)","query":"\#(request.query)"}"#)
            }
            if request.method == "POST", request.path == "/echo" {
                return MockResponse(
                    status: 201, headers: [HTTPHeader("Content-Type", "application/octet-stream")], body: request.body)
            }
            return MockResponse(status: 404, body: Data("no route".utf8))
        }
    }

    @Test func listensOnLoopbackAtTheChosenPort() throws {
        let server = try MockServer { _ in MockResponse() }
        #expect(server.port > 0 && server.port < 65536)
        #expect(server.baseURL == "http://127.0.0.1:\(server.port)")
    }

    @Test func routesByMethodPathAndQuery() async throws {
        let log = RequestLog()
        let server = try MockServer(handler: Self.routes(log))
        let user = try await exchange(server.baseURL + "/users/octocat?page=2&per_page=3", headers: ["X-Trace: abc"])
        #expect(user.exitCode == 0)
        #expect(user.status == 200)
        #expect(String(decoding: user.body, as: UTF8.self) == #"{"login":"octocat","query":"page=2&per_page=3"}"#)
        #expect(user.values("Content-Type") == ["application/json"])

        let missing = try await exchange(server.baseURL + "/repos/x", method: "DELETE")
        #expect(missing.status == 404)
        #expect(String(decoding: missing.body, as: UTF8.self) == "no route")

        let seen = log.all
        #expect(seen.count == 2)
        #expect(seen.first?.method == "GET")
        #expect(seen.first?.path == "/users/octocat")
        #expect(seen.first?.query == "page=2&per_page=3")
        #expect(seen.first?.header("x-trace") == "abc")
        #expect(seen.last?.method == "DELETE")
        #expect(seen.last?.query == "")
    }

    @Test func pathAndQueryArriveStillPercentEncoded() async throws {
        let log = RequestLog()
        let server = try MockServer(handler: Self.routes(log))
        let result = try await exchange(server.baseURL + "/users/a%20b?q=sesame%20repo%3Ax&x=1+2")
        #expect(result.status == 200)
        #expect(log.all.first?.path == "/users/a%20b")
        #expect(log.all.first?.query == "q=sesame%20repo%3Ax&x=1+2")
    }

    /// The request target is split as a HAR file's URLs are (`HAREntry.target(of:)`), so a replay matches like with
    /// like: a `://` in the query stays in the query, an absolute-form target (RFC 9112 §3.2.2) gives its path.
    @Test(arguments: [
        ("/users/go?to=https://h.test/x", "/users/go", "to=https://h.test/x"),
        ("http://h.test/users/a?x=1", "/users/a", "x=1"),
        ("/users/b", "/users/b", ""),
    ])
    func requestTargetIsSplitAsHARURLsAre(target: String, path: String, query: String) async throws {
        let log = RequestLog()
        let server = try MockServer(handler: Self.routes(log))
        let result = try await runCurl(["-s", "-o", "/dev/null", "--request-target", target, server.baseURL])
        #expect(result.exitCode == 0)
        #expect(log.all.map(\.path) == [path])
        #expect(log.all.map(\.query) == [query])
    }

    @Test(arguments: ["POST", "PUT", "PATCH"])
    func uploadBodyIsReceivedWhole(method: String) async throws {
        let log = RequestLog()
        let server = try MockServer { request in
            log.record(request)
            return MockResponse(status: 201, body: request.body)
        }
        // 300 KB of every byte value: MHD hands it over in many chunks.
        let body = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let result = try await exchange(
            server.baseURL + "/echo", method: method, body: body, headers: ["Content-Type: application/octet-stream"])
        #expect(result.status == 201)
        #expect(log.all.first?.method == method)
        // Compared as Booleans: a failing `==` on 300 KB would make Swift Testing diff byte by byte.
        let received = log.all.first?.body ?? Data()
        #expect(received.count == body.count)
        let receivedWhole = received == body
        #expect(receivedWhole)
        let echoedWhole = result.body == body
        #expect(echoedWhole)
    }

    @Test func keepAliveReusesOneConnection() async throws {
        let log = RequestLog()
        let server = try MockServer(handler: Self.routes(log))
        let result = try await runCurl([
            "-s", "--max-time", "10", "-o", "/dev/null", "-o", "/dev/null", "-o", "/dev/null",
            "-w", "%{http_code}:%{num_connects} ",
            server.baseURL + "/users/a", server.baseURL + "/users/b", server.baseURL + "/nothing",
        ])
        #expect(result.exitCode == 0)
        // One connection opened for the first transfer, reused by the two others.
        #expect(result.outputText == "200:1 200:0 404:0 ")
        #expect(log.all.map(\.path) == ["/users/a", "/users/b", "/nothing"])
    }

    @Test func framingHeadersComeFromTheBodyNotTheHandler() async throws {
        let server = try MockServer { _ in
            MockResponse(
                status: 200,
                headers: [
                    HTTPHeader("Content-Length", "999"), HTTPHeader("Transfer-Encoding", "chunked"),
                    HTTPHeader("Link", "<http://127.0.0.1/next>; rel=\"next\""), HTTPHeader("X-Custom", "1"),
                    HTTPHeader(":status", "200"), HTTPHeader("X-Split", "a\r\nX-Injected: 1"),
                ],
                body: Data("hello".utf8))
        }
        let result = try await exchange(server.baseURL + "/")
        #expect(result.exitCode == 0)
        #expect(result.values("Content-Length") == ["5"])
        #expect(result.values("Transfer-Encoding").isEmpty)
        #expect(result.values("Link") == ["<http://127.0.0.1/next>; rel=\"next\""])
        #expect(result.values("X-Custom") == ["1"])
        // Not sendable as HTTP/1.1 headers: left out rather than written broken.
        #expect(result.values(":status").isEmpty)
        #expect(result.values("X-Split").isEmpty)
        #expect(result.values("X-Injected").isEmpty)
        #expect(result.body == Data("hello".utf8))
    }

    @Test func emptyBodyAndNoContentStatus() async throws {
        let server = try MockServer { request in
            MockResponse(status: request.path == "/gone" ? 204 : 200)
        }
        let noContent = try await exchange(server.baseURL + "/gone", method: "DELETE")
        #expect(noContent.exitCode == 0)
        #expect(noContent.status == 204)
        #expect(noContent.body.isEmpty)
        let empty = try await exchange(server.baseURL + "/")
        #expect(empty.status == 200)
        #expect(empty.values("Content-Length") == ["0"])
        #expect(empty.body.isEmpty)
    }

    @Test func statusOutsideHTTPRangeBecomes500() async throws {
        let server = try MockServer { _ in MockResponse(status: 42) }
        let result = try await exchange(server.baseURL + "/")
        #expect(result.status == 500)
        #expect(String(decoding: result.body, as: UTF8.self).contains("status 42"))
    }

    @Test func takenPortIsReportedWithMHDsReason() throws {
        let first = try MockServer { _ in MockResponse() }
        #expect {
            _ = try MockServer(port: first.port) { _ in MockResponse() }
        } throws: { error in
            guard case MockServerError.cannotStart(_, let port, let reason) = error else { return false }
            let text = String(describing: error)
            return port == first.port && !reason.isEmpty
                && text.hasPrefix("mock server: cannot listen on 127.0.0.1:\(first.port): ")
        }
    }

    /// An address of no interface of this machine (TEST-NET-1) is the host's fault, not the port's: the message says
    /// what --host takes. Nothing is sent there: binding fails before any traffic.
    @Test func anAddressOfAnotherMachineIsReportedAsTheHostsFault() throws {
        #expect {
            _ = try MockServer(host: "192.0.2.1", port: 0) { _ in MockResponse() }
        } throws: { error in
            String(describing: error).hasSuffix(
                "--host must be an address of this machine: 127.0.0.1, 0.0.0.0 (every interface) or one of its own")
        }
    }

    @Test func givenPortIsUsed() throws {
        var port = 0
        do {
            let probe = try MockServer { _ in MockResponse() }
            port = probe.port
        }  // the probe is gone: its port is free again
        let server = try MockServer(port: port) { _ in MockResponse() }
        #expect(server.port == port)
    }

    @Test func invalidPortIsRejected() {
        #expect(throws: MockServerError.invalidPort(70000)) {
            _ = try MockServer(port: 70000) { _ in MockResponse() }
        }
        #expect(String(describing: MockServerError.invalidPort(-1)).contains("port -1 is not in 0…65535"))
    }

    @Test func stopClosesTheListener() async throws {
        let server = try MockServer { _ in MockResponse() }
        let before = try await exchange(server.baseURL + "/")
        #expect(before.status == 200)
        server.stop()
        server.stop()  // idempotent
        let after = try await exchange(server.baseURL + "/", maxTime: 2)
        #expect(after.exitCode == 7)  // connection refused
    }

    /// The lead's benchmark shape: 2,000 small requests over 16 keep-alive connections.
    @Test func twoThousandRequestsOverSixteenConnections() async throws {
        let server = try MockServer { request in .json(#"{"id":1,"path":"\#(request.path)"}"#) }
        let config = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tether-bench-\(UUID().uuidString).curl")
        defer { try? FileManager.default.removeItem(at: config) }
        let lines = (0..<2000).map { "url = \"\(server.baseURL)/items/\($0)\"\noutput = \"/dev/null\"" }
        try lines.joined(separator: "\n").write(to: config, atomically: true, encoding: .utf8)
        let result = try await runCurl(
            [
                "-s", "--parallel", "--parallel-max", "16", "--max-time", "30", "-w", "%{http_code} %{num_connects}\n",
                "-K", config.path,
            ], deadline: 60)
        #expect(result.exitCode == 0)
        let rows = result.outputText.split(separator: "\n")
        #expect(rows.count == 2000)
        #expect(rows.allSatisfy { $0.hasPrefix("200 ") })
        let connections = rows.compactMap { Int($0.split(separator: " ").last ?? "") }.reduce(0, +)
        #expect(connections <= 16)  // keep-alive: speed itself is measured by bench/run, not here
    }
}
