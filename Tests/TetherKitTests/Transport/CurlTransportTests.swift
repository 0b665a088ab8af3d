internal import CCurl
import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// The real libcurl against real servers on 127.0.0.1.
@Suite struct CurlTransportTests {
    let transport = CurlTransport()

    private func gzipped(_ text: String) throws -> Data {
        // gzip from PATH: /bin/gzip on Debian, /usr/bin/gzip on macOS.
        let gzip = try #require(
            executableOnPath("gzip"),
            "gzip is not on PATH (\(ProcessInfo.processInfo.environment["PATH"] ?? "")): install it")
        let run = try ChildProcess.run(gzip, ["-c"], input: Data(text.utf8))
        #expect(run.status == 0, "\(gzip) -c failed: \(run.stderrText)")
        return run.stdout
    }

    @Test func manyRequestsInParallelComeBackInOrder() throws {
        let seen = SeenRequests()
        let server = try MockServer { request in
            seen.record(request)
            return .json(#"{"path": "\#(request.path)"}"#)
        }
        let requests = (0..<200).map { HTTPRequest(method: "GET", url: "\(server.baseURL)/r/\($0)") }
        let results = transport.send(requests, options: TransportOptions(jobs: 16))
        #expect(results.count == 200)
        for (index, result) in results.enumerated() {
            let response = try result.get()
            #expect(response.statusCode == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == #"{"path": "/r/\#(index)"}"#)
        }
        #expect(seen.all.count == 200)
    }

    /// One request at a time (`--jobs 1`), the transport polls a moment before it sleeps (`CurlMulti.spin`): answers
    /// that come within that, later, not at all (a closed connection) and after a timeout each come back as they
    /// would without it, in order, each on its own request.
    @Test func oneAtATimeEveryKindOfAnswerComesBackOnItsOwnRequest() throws {
        let server = try MockServer { request in
            let number = Int(request.path.split(separator: "/").last ?? "") ?? 0
            var response = MockResponse.json(#"{"path": "\#(request.path)"}"#)
            switch number % 5 {
            case 1: response.delay = 0.02  // well after the spin: the wait takes over
            case 3: response.ending = .close  // no answer at all
            case 4 where number == 4: response.ending = .hold(seconds: 2)  // a timeout, once
            default: break  // at once, within the spin
            }
            return response
        }
        let requests = (0..<30).map { HTTPRequest(method: "GET", url: "\(server.baseURL)/r/\($0)") }
        var order: [Int] = []
        var results = [Result<HTTPResponse, TransportError>?](repeating: nil, count: requests.count)
        transport.send(requests, options: TransportOptions(jobs: 1, timeout: 0.5)) { index, result in
            order.append(index)
            results[index] = result
        }
        #expect(order == Array(0..<30), "one at a time, each handed over in the order sent")
        for (index, result) in results.enumerated() {
            let result = try #require(result)
            if index % 5 == 3 || index == 4 {
                #expect(throws: TransportError.self, "request \(index)") { try result.get() }
            } else {
                let body = String(decoding: try result.get().body, as: UTF8.self)
                #expect(body == #"{"path": "/r/\#(index)"}"#)
            }
        }
    }

    /// libcurl's set-up starts once per process, on a thread of its own (`tether verify` starts it before reading its
    /// arguments); waiting on it returns once it is done, and requests go out after it as before. Transports without
    /// a library to set up start nothing.
    @Test func theLibrarysSetUpStartsOnceAndRequestsFollowIt() throws {
        let first = try #require(transport.startUp())
        let second = try #require(CurlTransport().startUp())
        #expect(first === second)
        first.wait()
        second.wait()
        let server = try MockServer { _ in .json(#"{"ok": true}"#) }
        let response = try #require(
            transport.send([HTTPRequest(method: "GET", url: server.baseURL)], options: TransportOptions()).first
        ).get()
        #expect(response.statusCode == 200)
        #expect(StubTransport(status: 200).startUp() == nil)
    }

    @Test func aLongRunIsSharedOutAmongLoopsWhoseJobsAddUpToTheRunsJobs() {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let loops = CurlTransport.loops(requests: 2000, options: TransportOptions(jobs: 16))
        #expect(loops.count == min(cores, 4))
        #expect(loops.reduce(0, +) == 16)
        #expect(loops.allSatisfy { $0 >= 4 }, "\(loops)")
        let odd = CurlTransport.loops(requests: 2000, options: TransportOptions(jobs: 9))
        #expect(odd.reduce(0, +) == 9)
        #expect(odd.count == min(cores, 2))
        // One loop: a short run, few jobs, or limits on a host (one limiter counts every request to it).
        #expect(CurlTransport.loops(requests: 63, options: TransportOptions(jobs: 16)) == [16])
        #expect(CurlTransport.loops(requests: 2000, options: TransportOptions(jobs: 7)) == [7])
        #expect(
            CurlTransport.loops(
                requests: 2000, options: TransportOptions(jobs: 16, hostLimits: HostLimits(jobsPerHost: 8))) == [16])
        #expect(
            CurlTransport.loops(
                requests: 2000, options: TransportOptions(jobs: 16, hostLimits: HostLimits(requestsPerSecond: 50)))
                == [16])
    }

    #if canImport(Glibc)
        /// On Linux, each loop of a long run stays on a core of its own (`DeepStack.concurrentPerform`'s `coreEach`):
        /// the results come from as many threads as loops, each kept on one core, no two on the same one.
        @Test func eachLoopOfALongRunStaysOnACoreOfItsOwn() throws {
            let loops = CurlTransport.loops(requests: 200, options: TransportOptions(jobs: 16))
            let allowed = try #require(DeepStack.CoreAffinity.allowed())
            let server = try MockServer { _ in .json(#"{"ok": true}"#) }
            let requests = (0..<200).map { HTTPRequest(method: "GET", url: "\(server.baseURL)/r/\($0)") }
            var cores: [UInt: [UInt64]] = [:]  // by thread; `onResult` is called under the transport's lock
            transport.send(requests, options: TransportOptions(jobs: 16)) { _, result in
                #expect(throws: Never.self) { try result.get() }
                cores[UInt(pthread_self())] = DeepStack.CoreAffinity.allowed() ?? []
            }
            #expect(cores.count == loops.count, "\(loops.count) loops")
            // One loop, or fewer cores allowed than loops (`taskset`): the loops may share one.
            guard loops.count > 1, allowed.reduce(0, { $0 + $1.nonzeroBitCount }) >= loops.count else { return }
            #expect(cores.values.allSatisfy { $0.reduce(0) { $0 + $1.nonzeroBitCount } == 1 }, "one core each")
            #expect(Set(cores.values).count == loops.count, "no two loops on one core")
            #expect(cores.values.allSatisfy { zip($0, allowed).allSatisfy { $0 & ~$1 == 0 } }, "cores it may use")
        }
    #endif

    @Test func methodHeadersAndBodyReachTheServer() throws {
        let seen = SeenRequests()
        let server = try MockServer { request in
            seen.record(request)
            return MockResponse(status: 201)
        }
        let body = Data(String(repeating: "x", count: 5000).utf8)
        let results = transport.send(
            [
                HTTPRequest(
                    method: "PATCH", url: "\(server.baseURL)/p?a=1",
                    headers: [HTTPHeader("X-Trace", "abc"), HTTPHeader("Content-Type", "application/json")], body: body)
            ],
            options: TransportOptions())
        #expect(try results[0].get().statusCode == 201)
        let request = try #require(seen.all.first)
        #expect(request.method == "PATCH")
        #expect(request.path == "/p")
        #expect(request.query == "a=1")
        #expect(request.body == body)
        #expect(request.header("X-Trace") == "abc")
        #expect(request.header("Content-Type") == "application/json")
        #expect(request.header("Expect") == nil)
    }

    /// `User-Agent` and `Accept-Encoding` are sent once each, though the transport gives them in the header list:
    /// the product's, and libcurl's as it writes it for `CURLOPT_ACCEPT_ENCODING ""` (what a handle of its own, with
    /// nothing else set, sends to the same server); on a request with no headers, one with headers, a POST (after
    /// which the handle's options are reset) and a GET after it. A request's own goes alone.
    @Test func userAgentAndAcceptEncodingAreSentOnceOrTheRequestsOwn() throws {
        let seen = SeenRequests()
        let server = try MockServer { request in
            seen.record(request)
            return .json("{}")
        }
        // libcurl's global set-up first, once, as the transport does it: `curl_easy_init` would otherwise run it, which
        // is not safe beside the other tests' threads.
        transport.startUp()?.wait()
        let handle = try #require(curl_easy_init())
        defer { curl_easy_cleanup(handle) }
        _ = tether_curl_setopt_string(handle, CURLOPT_URL, "\(server.baseURL)/libcurl")
        _ = tether_curl_setopt_string(handle, CURLOPT_ACCEPT_ENCODING, "")
        _ = tether_curl_setopt_write(handle, CURLOPT_WRITEFUNCTION) { _, size, count, _ in size * count }
        #expect(curl_easy_perform(handle) == CURLE_OK)
        let results = transport.send(
            [
                HTTPRequest(method: "GET", url: "\(server.baseURL)/plain"),
                HTTPRequest(method: "GET", url: "\(server.baseURL)/headers", headers: [HTTPHeader("X-Trace", "abc")]),
                HTTPRequest(
                    method: "GET", url: "\(server.baseURL)/own",
                    headers: [HTTPHeader("accept-encoding", "gzip"), HTTPHeader("user-agent", "App/2.1")]),
                HTTPRequest(method: "POST", url: "\(server.baseURL)/post", body: Data("{}".utf8)),
                HTTPRequest(method: "GET", url: "\(server.baseURL)/after"),
            ], options: TransportOptions(jobs: 1))
        for result in results { #expect(try result.get().statusCode == 200) }
        var sent: [String: (agent: [String], encoding: [String])] = [:]
        for request in seen.all {
            sent[request.path] = (
                request.headers.filter { $0.isNamed("User-Agent") }.map(\.value),
                request.headers.filter { $0.isNamed("Accept-Encoding") }.map(\.value)
            )
        }
        let libcurls = try #require(sent["/libcurl"]?.encoding.first)
        #expect(sent["/libcurl"]?.encoding == [libcurls])
        #expect(libcurls.contains("gzip"), "Debian's and Homebrew's libcurl decode gzip: \(libcurls)")
        for path in ["/plain", "/headers", "/post", "/after"] {
            #expect(sent[path]?.agent == [CurlTransport.userAgent], "\(path)")
            #expect(sent[path]?.encoding == [libcurls], "\(path)")
        }
        #expect(sent["/own"]?.agent == ["App/2.1"])
        #expect(sent["/own"]?.encoding == ["gzip"])
    }

    @Test func compressedBodiesAreDecodedAndRedirectsFollowed() throws {
        let compressed = try gzipped(#"{"zipped": true}"#)
        let server = try MockServer { request in
            switch request.path {
            case "/old": return MockResponse(status: 301, headers: [HTTPHeader("Location", "/new")])
            case "/new":
                return MockResponse(
                    status: 200,
                    headers: [HTTPHeader("Content-Encoding", "gzip"), HTTPHeader("Content-Type", "application/json")],
                    body: compressed)
            default: return MockResponse(status: 404)
            }
        }
        let response = try transport.send(
            [HTTPRequest(method: "GET", url: "\(server.baseURL)/old")], options: TransportOptions())[0].get()
        #expect(response.statusCode == 200)
        #expect(response.url == "\(server.baseURL)/new")
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"zipped": true}"#)
        #expect(response.header("content-type") == "application/json")
        #expect(response.headers.allSatisfy { $0.name != "Location" })
    }

    @Test func aBodyOverTheCapIsAnErrorNamingTheCap() throws {
        let server = try MockServer { _ in MockResponse(status: 200, body: Data(count: 100_000)) }
        let result = transport.send(
            [HTTPRequest(method: "GET", url: "\(server.baseURL)/big")], options: TransportOptions(maxBodyBytes: 10_000))[
                0]
        guard case .failure(let error) = result else {
            Issue.record("expected an error, got \(result)")
            return
        }
        #expect(error.message == "response body larger than 10000 bytes (raise --max-body to accept it)")
        #expect(error.url == "\(server.baseURL)/big")
    }

    /// A large body (5.5 MB) in 64 kB pieces, with its length announced (its buffer's pages are then faulted in
    /// ahead of it: `PaddedBytes.Prefault`) or not (then the connection closes at its end): it arrives whole and byte
    /// for byte, in the buffer the JSON check parses in place (no copy of it on the way).
    @Test(arguments: [true, false])
    func aLargeBodyArrivesWholeInAPaddedBuffer(announcesLength: Bool) throws {
        let server = try PythonServer(
            script: """
                import http.server, sys
                body = ("[" + ",".join(str(i) for i in range(800000)) + "]").encode()
                announce = sys.argv[1] == "1"
                class Handler(http.server.BaseHTTPRequestHandler):
                    protocol_version = "HTTP/1.1" if announce else "HTTP/1.0"
                    def do_GET(self):
                        self.send_response(200)
                        self.send_header("Content-Type", "application/json")
                        if announce: self.send_header("Content-Length", str(len(body)))
                        self.end_headers()
                        for start in range(0, len(body), 65536): self.wfile.write(body[start:start + 65536])
                    def log_message(self, *args):
                        pass
                server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
                print(server.server_address[1], flush=True)
                server.serve_forever()
                """,
            name: "large body server", arguments: [announcesLength ? "1" : "0"])
        defer { server.stop() }
        let expected = Data(("[" + (0..<800_000).map(String.init).joined(separator: ",") + "]").utf8)
        #expect(expected.count >= PaddedBytes.prefaultBytes)
        let response = try transport.send(
            [HTTPRequest(method: "GET", url: "\(server.baseURL)/big")], options: TransportOptions())[0].get()
        #expect(response.header("Content-Length") == (announcesLength ? String(expected.count) : nil))
        #expect(response.body.count == expected.count)
        #expect(response.body == expected)
        let isPadded = response.body.withUnsafeBytes { raw in
            PaddedBytes.hasPadding(raw.bindMemory(to: UInt8.self).baseAddress!, count: raw.count)
        }
        #expect(isPadded)
    }

    @Test func aHangingServerTimesOutWithCurlsText() throws {
        let server = try MisbehavingServer(mode: .hang)
        defer { server.stop() }
        let start = Date()
        let result = transport.send(
            [HTTPRequest(method: "GET", url: "\(server.baseURL)/slow")], options: TransportOptions(timeout: 0.5))[0]
        #expect(Date().timeIntervalSince(start) < 5)
        guard case .failure(let error) = result else {
            Issue.record("expected a timeout, got \(result)")
            return
        }
        #expect(error.message.contains("timed out"), "\(error.message)")
        #expect(error.code == 28)
    }

    @Test(arguments: [MisbehavingServer.Mode.reset, .closeWithoutAnswer])
    func aServerThatDropsTheConnectionIsAnError(mode: MisbehavingServer.Mode) throws {
        let server = try MisbehavingServer(mode: mode)
        defer { server.stop() }
        let result = transport.send(
            [HTTPRequest(method: "GET", url: "\(server.baseURL)/x")], options: TransportOptions(timeout: 5))[0]
        guard case .failure(let error) = result else {
            Issue.record("expected an error, got \(result)")
            return
        }
        #expect(!error.message.isEmpty)
        #expect([52, 56].contains(error.code), "\(error.code): \(error.message)")
    }

    @Test func oneFailureNeverStopsTheOthers() throws {
        let server = try MockServer { _ in .json("[]") }
        let results = transport.send(
            [
                HTTPRequest(method: "GET", url: "http://127.0.0.1:1/refused"),
                HTTPRequest(method: "GET", url: "\(server.baseURL)/ok"), HTTPRequest(method: "GET", url: "notaurl://x"),
            ],
            options: TransportOptions())
        #expect((try? results[0].get()) == nil)
        #expect(try results[1].get().statusCode == 200)
        #expect((try? results[2].get()) == nil)
    }
}

@Suite struct CurlTransportTLSTests {
    @Test func aTLSFailureIsAnErrorWithCurlsText() throws {
        // https to a plain-HTTP server on loopback: the TLS handshake fails, as it does against a misconfigured host.
        let server = try MockServer { _ in .json("{}") }
        let url = server.baseURL.replacingOccurrences(of: "http://", with: "https://") + "/tls"
        let result = CurlTransport().send(
            [HTTPRequest(method: "GET", url: url)], options: TransportOptions(timeout: 5))[0]
        guard case .failure(let error) = result else {
            Issue.record("expected a TLS error, got \(result)")
            return
        }
        #expect(error.code == 35, "\(error.code): \(error.message)")
        #expect(error.message.contains("SSL") || error.message.contains("TLS"), "\(error.message)")
        #expect(error.url == url)
    }
}

@Suite struct CurlTransportMethodTests {
    @Test(arguments: ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
    func theMethodIsSentAsGivenWithOrWithoutABody(method: String) throws {
        let seen = SeenRequests()
        let server = try MockServer { request in
            seen.record(request)
            return .json("{}")
        }
        let results = CurlTransport().send(
            [
                HTTPRequest(method: method, url: "\(server.baseURL)/with", body: Data(#"{"a":1}"#.utf8)),
                HTTPRequest(method: method, url: "\(server.baseURL)/without"),
            ], options: TransportOptions())
        #expect(results.allSatisfy { (try? $0.get().statusCode) == 200 })
        let byPath = Dictionary(uniqueKeysWithValues: seen.all.map { ($0.path, $0) })
        #expect(byPath["/with"]?.method == method)
        #expect(byPath["/with"]?.body == Data(#"{"a":1}"#.utf8))
        #expect(byPath["/without"]?.method == method)
    }

    @Test func aPOSTRedirectedWith303ContinuesAsGETAsURLSessionDoes() throws {
        let seen = SeenRequests()
        let server = try MockServer { request in
            seen.record(request)
            return request.path == "/go"
                ? MockResponse(status: 303, headers: [HTTPHeader("Location", "/done")]) : .json("{}")
        }
        let response = try CurlTransport().send(
            [HTTPRequest(method: "POST", url: "\(server.baseURL)/go", body: Data("x=1".utf8))],
            options: TransportOptions()
        )[0].get()
        #expect(response.statusCode == 200)
        #expect(seen.all.map { "\($0.method) \($0.path)" } == ["POST /go", "GET /done"])
    }
}

@Suite struct CurlTransportTimeoutTests {
    /// The Swift API takes any Double: infinite, huge or NaN timeouts must not trap.
    @Test(arguments: [Double.infinity, 1e300, Double.nan, 0])
    func anyTimeoutValueIsAccepted(timeout: Double) throws {
        let server = try MockServer { _ in .json("{}") }
        let result = CurlTransport().send(
            [HTTPRequest(method: "GET", url: "\(server.baseURL)/t")],
            options: TransportOptions(timeout: timeout, connectTimeout: timeout))[0]
        #expect((try? result.get().statusCode) == 200, "\(result)")
    }
}
