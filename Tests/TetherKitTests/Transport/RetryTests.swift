import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// `--retries` in the real transport against real servers on 127.0.0.1. The assertions count the attempts the server
/// saw and bound the waits from below only: a loaded 2-core machine makes every wait longer, never shorter.
@Suite struct RetryTests {
    let transport = CurlTransport()

    private func options(retries: Int, baseDelay: Double = 0.2, maxDelay: Double = 30) -> TransportOptions {
        TransportOptions(retry: RetryPolicy(retries: retries, baseDelay: baseDelay, maxDelay: maxDelay))
    }

    private func gaps(_ times: [Date]) -> [Double] {
        zip(times.dropFirst(), times).map { $0.timeIntervalSince($1) }
    }

    @Test func aServerThatFailsTwiceIsAnsweredOnTheThirdAttempt() throws {
        let server = try FlakyServer.failingTwice()
        let results = transport.send(
            [HTTPRequest(method: "GET", url: server.baseURL + "/user")], options: options(retries: 2))
        let response = try results[0].get()
        #expect(response.statusCode == 200)
        #expect(response.attempts == 3)
        #expect(server.requestCount == 3)
        // Equal jitter: each wait is at least half its step (0.2 s, then 0.4 s).
        let waits = gaps(server.arrivalTimes)
        #expect(waits.count == 2)
        #expect(waits[0] >= 0.1, "\(waits)")
        #expect(waits[1] >= 0.2, "\(waits)")
    }

    /// Through `sendFromAnyLoop`, a loop decides on a finished transfer's retry only after it has sent what takes its
    /// place: when that transfer was its last one, the loop must still wait out the back-off and send it again.
    @Test func aLoopsLastRequestIsRetriedToo() throws {
        let server = try FlakyServer.failingTwice()
        let handed = Locked<[Result<HTTPResponse, TransportError>]>([])
        transport.sendFromAnyLoop(
            [HTTPRequest(method: "GET", url: server.baseURL + "/user")],
            options: options(retries: 2, baseDelay: 0.01, maxDelay: 0.05)
        ) { _, result in handed.withLock { $0.append(result) } }
        let results = handed.withLock { $0 }
        #expect(results.count == 1)
        let response = try #require(results.first).get()
        #expect(response.statusCode == 200)
        #expect(response.attempts == 3)
        #expect(server.requestCount == 3)
    }

    @Test func retriesRunOutOnTheTransportError() throws {
        let server = try FlakyServer.failingTwice()
        let results = transport.send(
            [HTTPRequest(method: "GET", url: server.baseURL + "/user")], options: options(retries: 1, baseDelay: 0.01))
        guard case .failure(let error) = results[0] else {
            Issue.record("expected a transport error, got \(results[0])")
            return
        }
        #expect(error.attempts == 2)
        #expect(server.requestCount == 2)
    }

    @Test func withoutRetriesARequestIsSentOnce() throws {
        let server = try FlakyServer.failingTwice()
        let results = transport.send(
            [HTTPRequest(method: "GET", url: server.baseURL + "/user")], options: options(retries: 0))
        #expect((try? results[0].get()) == nil)
        #expect(server.requestCount == 1)
    }

    @Test func aBusyServerIsWaitedForAsItsRetryAfterSays() throws {
        let server = try FlakyServer.alwaysBusy(retryAfter: 1)
        // The back-off alone would wait 0.01 s: every wait of a second comes from Retry-After.
        let results = transport.send(
            [HTTPRequest(method: "GET", url: server.baseURL + "/user")], options: options(retries: 2, baseDelay: 0.01))
        let response = try results[0].get()
        #expect(response.statusCode == 503)
        #expect(response.attempts == 3)
        #expect(server.requestCount == 3)
        for wait in gaps(server.arrivalTimes) { #expect(wait >= 0.95, "\(wait)") }
    }

    @Test func retryAfterIsCapped() throws {
        let server = try FlakyServer.alwaysBusy(retryAfter: 3600)
        let start = Date()
        let results = transport.send(
            [HTTPRequest(method: "GET", url: server.baseURL + "/user")], options: options(retries: 1, maxDelay: 0.3))
        #expect(try results[0].get().attempts == 2)
        #expect(server.requestCount == 2)
        #expect(gaps(server.arrivalTimes)[0] >= 0.25)
        #expect(Date().timeIntervalSince(start) < 600, "the hour of Retry-After was not capped")
    }

    @Test(arguments: [400, 401, 404, 409, 422])
    func aClientErrorIsNeverRetried(status: Int) throws {
        let server = try FlakyServer.always(.json(#"{"message": "no"}"#, status: status))
        let results = transport.send(
            [HTTPRequest(method: "GET", url: server.baseURL + "/user")], options: options(retries: 3, baseDelay: 0.01))
        #expect(try results[0].get().attempts == 1)
        #expect(server.requestCount == 1)
    }

    @Test func tooManyRequestsIsRetried() throws {
        let server = try FlakyServer(
            failures: 1, failure: MockResponse(status: 429, headers: [HTTPHeader("Retry-After", "0")]))
        let results = transport.send(
            [HTTPRequest(method: "GET", url: server.baseURL + "/user")], options: options(retries: 3, baseDelay: 0.01))
        #expect(try results[0].get().statusCode == 200)
        #expect(server.requestCount == 2)
    }

    @Test func aDriftIsNeverRetried() throws {
        let server = try FlakyServer.always(.json(#"{"id": "seven"}"#))
        let contract = Contract(
            service: "Demo", name: "user", baseURL: server.baseURL,
            request: HTTPRequest(method: "GET", url: server.baseURL + "/user"),
            sampleData: .json(.object([JSONMember("id", .integer(1))])), source: "test")
        let report = ContractRunner(transport: transport).run(
            [contract], transport: options(retries: 3, baseDelay: 0.01))
        #expect(report.results[0].outcome == .drifted)
        #expect(report.results[0].attempts == 1)
        #expect(server.requestCount == 1)
        #expect(report.exitCode == 1)
    }

    @Test func aCancellationEndsTheBackOffAndNothingIsSentAgain() throws {
        let server = try FlakyServer.alwaysBusy(retryAfter: 20)
        let cancellation = Cancellation()
        var transportOptions = options(retries: 3)
        transportOptions.cancellation = cancellation
        let arrivals = server.arrivals
        let watcher = Thread {
            while arrivals.count == 0 { usleep(5_000) }
            usleep(100_000)  // well inside the 20 s wait
            cancellation.cancel()
        }
        watcher.start()
        let start = Date()
        let results = transport.send(
            [HTTPRequest(method: "GET", url: server.baseURL + "/user")], options: transportOptions)
        let elapsed = Date().timeIntervalSince(start)
        guard case .failure(let error) = results[0] else {
            Issue.record("expected interrupted, got \(results[0])")
            return
        }
        #expect(error.isInterrupted)
        #expect(elapsed < 15, "the back-off did not wake on the cancellation (\(elapsed) s)")
        usleep(200_000)
        #expect(server.requestCount == 1)
    }

    /// Also through `sendFromAnyLoop` (a run's own path, into the hand-over), where a loop makes its finished
    /// transfers' results, and decides on their retries, only after it has sent the requests that take their places.
    @Test(arguments: [false, true])
    func aLongRunSentBySeveralLoopsRetriesEachFailedRequestOnItsOwn(fromAnyLoop: Bool) throws {
        // Every tenth path answers 503 the first time: each of them is sent twice, by whichever loop took it, and
        // every other request once.
        let seen = SeenRequests()
        let server = try MockServer { request in
            seen.record(request)
            let number = Int(request.path.split(separator: "/").last ?? "") ?? -1
            let isFirst = seen.all.filter { $0.path == request.path }.count == 1
            return number % 10 == 0 && isFirst ? MockResponse(status: 503) : .json("{}")
        }
        let requests = (0..<120).map { HTTPRequest(method: "GET", url: "\(server.baseURL)/r/\($0)") }
        var transportOptions = options(retries: 1, baseDelay: 0.01, maxDelay: 0.05)
        transportOptions.jobs = 8
        let cores = ProcessInfo.processInfo.activeProcessorCount
        #expect(CurlTransport.loops(requests: requests.count, options: transportOptions).count == min(cores, 2))
        let results: [Result<HTTPResponse, TransportError>]
        if fromAnyLoop {
            let handed = Locked([Result<HTTPResponse, TransportError>?](repeating: nil, count: requests.count))
            let handOvers = Locked(0)
            transport.sendFromAnyLoop(requests, options: transportOptions) { index, result in
                handed.withLock { $0[index] = result }
                handOvers.withLock { $0 += 1 }
            }
            #expect(handOvers.withLock { $0 } == requests.count, "a result was handed over twice, or not at all")
            results = handed.withLock { $0 }.enumerated().map { index, result in
                result ?? .failure(TransportError(message: "not handed over", url: requests[index].url))
            }
        } else {
            results = transport.send(requests, options: transportOptions)
        }
        for (index, result) in results.enumerated() {
            let response = try result.get()
            #expect(response.statusCode == 200, "\(requests[index].url)")
            #expect(response.attempts == (index % 10 == 0 ? 2 : 1), "\(requests[index].url)")
        }
        #expect(seen.all.count == 132)
    }

    @Test func aRateSpacesTheRequestsToOneHost() throws {
        let server = try FlakyServer.always(.json("{}"))
        var transportOptions = TransportOptions(jobs: 8)
        transportOptions.hostLimits.requestsPerSecond = 10
        let requests = (0..<5).map { HTTPRequest(method: "GET", url: server.baseURL + "/r/\($0)") }
        let results = transport.send(requests, options: transportOptions)
        #expect(results.allSatisfy { (try? $0.get().statusCode) == 200 })
        let times = server.arrivalTimes
        #expect(times.count == 5)
        // Four spacings of 0.1 s at least (a little slack for the clocks of two processes' views).
        #expect((times.last ?? Date()).timeIntervalSince(times.first ?? Date()) >= 0.38, "\(gaps(times))")
    }

    /// Python's threading server answers every connection at once: four slow requests to it take about one delay
    /// together, and four delays one at a time (a lower bound, which a loaded machine only makes easier to meet).
    @Test func jobsPerHostHoldsTheOthersBack() throws {
        let server = try SlowServer()
        var transportOptions = TransportOptions(jobs: 8)
        transportOptions.hostLimits.jobsPerHost = 1
        let requests = (0..<4).map { HTTPRequest(method: "GET", url: server.baseURL + "/delay/0.3/\($0)") }
        let start = Date()
        let results = transport.send(requests, options: transportOptions)
        #expect(results.allSatisfy { (try? $0.get().statusCode) == 200 })
        #expect(Date().timeIntervalSince(start) >= 1.15)
    }
}

/// The policy's rules on their own: what is retried, how long the waits are.
@Suite struct RetryPolicyTests {
    private let policy = RetryPolicy(retries: 3, baseDelay: 1, maxDelay: 10)
    private func response(_ status: Int, _ headers: [HTTPHeader] = []) -> Result<HTTPResponse, TransportError> {
        .success(HTTPResponse(statusCode: status, headers: headers, url: "http://127.0.0.1/"))
    }

    @Test(arguments: [
        (500, true), (502, true), (503, true), (599, true), (429, true), (200, false), (304, false),
        (400, false), (404, false), (499, false),
    ])
    func statuses(status: Int, isRetried: Bool) {
        #expect(policy.shouldRetry(response(status), attempt: 1) == isRetried)
    }

    @Test func transportErrorsButNotAStopOrTheBodyCap() {
        #expect(policy.shouldRetry(.failure(TransportError(message: "refused", url: "u", code: 7)), attempt: 1))
        #expect(!policy.shouldRetry(.failure(.interrupted(url: "u")), attempt: 1))
        #expect(!policy.shouldRetry(.failure(TransportError(message: "too large", url: "u", code: 63)), attempt: 1))
        #expect(!policy.shouldRetry(.failure(TransportError(message: "ours", url: "u", code: 0)), attempt: 1))
    }

    @Test func retriesRunOut() {
        #expect(policy.shouldRetry(response(503), attempt: 3))
        #expect(!policy.shouldRetry(response(503), attempt: 4))
        #expect(!RetryPolicy().shouldRetry(response(503), attempt: 1))
    }

    @Test func theBackOffDoublesWithEqualJitterUpToTheCap() {
        #expect(policy.delay(after: response(503), attempt: 1, random: 0) == 0.5)
        #expect(policy.delay(after: response(503), attempt: 1, random: 1) == 1)
        #expect(policy.delay(after: response(503), attempt: 2, random: 0) == 1)
        #expect(policy.delay(after: response(503), attempt: 3, random: 1) == 4)
        #expect(policy.delay(after: response(503), attempt: 9, random: 1) == 10)
    }

    @Test func retryAfterInSecondsOrAsADateWinsAndIsCapped() {
        #expect(policy.delay(after: response(503, [HTTPHeader("Retry-After", "3")]), attempt: 1, random: 0) == 3)
        #expect(policy.delay(after: response(429, [HTTPHeader("retry-after", "120")]), attempt: 1, random: 0) == 10)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let date = "Fri, 15 Jan 2027 08:00:05 GMT"
        let expected = RetryPolicy.retryAfterSeconds(date, now: now)
        #expect(expected != nil)
        let later = Date(timeIntervalSince1970: 1_800_000_000 + 2)
        #expect(RetryPolicy.retryAfterSeconds("Fri, 15 Jan 2027 08:00:05 GMT", now: later) == expected.map { $0 - 2 })
        #expect(RetryPolicy.retryAfterSeconds("soon", now: now) == nil)
        // An unreadable Retry-After falls back on the back-off.
        #expect(policy.delay(after: response(503, [HTTPHeader("Retry-After", "soon")]), attempt: 1, random: 0) == 0.5)
    }
}
