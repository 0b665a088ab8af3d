import Foundation
import TetherKit

/// A server on 127.0.0.1 (the engine's own libmicrohttpd `MockServer`) that fails its first `failures` requests
/// with `failure` and answers `answer` from then on, counting every request and when it came: what a retry test
/// asserts on (how many attempts the server saw, and the least time between them).
final class FlakyServer {
    private let server: MockServer
    /// When each request came; safe to read from any thread.
    let arrivals = Arrivals()

    var baseURL: String { server.baseURL }
    /// Requests seen so far.
    var requestCount: Int { arrivals.count }
    /// When each request came, in order.
    var arrivalTimes: [Date] { arrivals.times }

    /// - Parameters:
    ///   - failures: How many requests fail before the first answer (`Int.max`: every one).
    ///   - failure: What a failing request gets: a 503, or a closed connection (a transport error).
    ///   - answer: What the others get.
    init(failures: Int, failure: MockResponse, answer: MockResponse = .json(#"{"id": 1}"#)) throws {
        let arrivals = self.arrivals
        server = try MockServer { _ in
            arrivals.record() <= failures ? failure : answer
        }
    }

    /// Fails twice by closing the connection without an answer, then answers.
    static func failingTwice() throws -> FlakyServer {
        try FlakyServer(failures: 2, failure: MockResponse(ending: .close))
    }

    /// Answers 503 with `Retry-After: seconds`, every time.
    static func alwaysBusy(retryAfter seconds: Int) throws -> FlakyServer {
        try FlakyServer(
            failures: Int.max, failure: MockResponse(status: 503, headers: [HTTPHeader("Retry-After", "\(seconds)")]))
    }

    /// Answers every request with `response` (a drift, a 4xx): nothing in it is worth a retry.
    static func always(_ response: MockResponse) throws -> FlakyServer {
        try FlakyServer(failures: 0, failure: response, answer: response)
    }
}

/// The arrival times of a server's requests, recorded on the server's threads.
final class Arrivals: Sendable {
    private let recorded = Locked<[Date]>([])

    /// Records a request now; returns how many there have been, this one included.
    func record() -> Int {
        recorded.withLock { list in
            list.append(Date())
            return list.count
        }
    }

    /// Requests so far.
    var count: Int { recorded.withLock { $0.count } }
    /// When each came, in order.
    var times: [Date] { recorded.withLock { $0 } }
}
