import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// Durations and timeout messages tell the truth: the wait the request really had, libcurl's own text, the URL, and
/// the option that raises the limit that was hit.
@Suite struct CurlTransportHonestyTests {
    @Test func aResponseTimeoutNamesTimeoutAndCountsTheWholeWait() async throws {
        let server = try await offPool { try SlowServer() }
        let url = "\(server.baseURL)/delay/8/slow"
        let result = try await offPool {
            CurlTransport().send(
                [HTTPRequest(method: "GET", url: url)], options: TransportOptions(timeout: 1, connectTimeout: 0.5))[0]
        }
        guard case .failure(let error) = result else {
            Issue.record("expected a timeout, got \(result)")
            return
        }
        // Connected at once, then waited for the answer: the connect limit is not the one that was hit.
        #expect(error.message.hasPrefix("Operation timed out after"), "\(error.message)")
        #expect(error.message.hasSuffix(" (raise --timeout to wait longer)"), "\(error.message)")
        #expect(error.description.hasPrefix(url + ": "))
        #expect(error.code == 28)
        #expect(error.duration >= 0.99, "\(error.duration)")
    }

    /// A TLS handshake that never completes: every request to that host reaches its own connect limit, says so,
    /// and takes that long, not longer (it did not wait out the first one's handshake), nor zero. No `--timeout`
    /// (0) keeps the connect limit.
    @Test(
        .timeLimit(.minutes(1)),
        arguments: [
            (timeout: 5.0, connect: 1.0, option: "--connect-timeout"), (1.0, 10.0, "--timeout"),
            (0, 1.0, "--connect-timeout"),
        ])
    func aHangingHandshakeIsAConnectTimeoutForEveryRequest(timeout: Double, connect: Double, option: String)
        async throws
    {
        let server = try MisbehavingServer(mode: .hang)
        defer { server.stop() }
        let base = server.baseURL.replacingOccurrences(of: "http://", with: "https://")
        let requests = (0..<3).map { HTTPRequest(method: "GET", url: "\(base)/r\($0)") }
        let options = TransportOptions(jobs: 8, timeout: timeout, connectTimeout: connect)
        let results = try await offPool { CurlTransport().send(requests, options: options) }
        let limit = timeout > 0 ? min(timeout, connect) : connect
        for (request, result) in zip(requests, results) {
            guard case .failure(let error) = result else {
                Issue.record("expected a timeout, got \(result)")
                continue
            }
            #expect(error.code == 28, "\(error)")
            #expect(error.url == request.url)
            #expect(!error.message.contains("resolve"), "\(error.message)")
            #expect(error.message.hasSuffix(" (raise \(option) to wait longer)"), "\(error.message)")
            #expect(error.duration >= limit - 0.01, "\(request.url): \(error.duration) s")
            #expect(error.duration < limit * 2, "\(request.url) waited for another request: \(error.duration) s")
        }
    }

    /// A request that completes reports the time it took, not zero, when it waited on the server.
    @Test func aSlowAnswerReportsItsRealDuration() async throws {
        let server = try await offPool { try SlowServer() }
        let request = HTTPRequest(method: "GET", url: "\(server.baseURL)/delay/1/answer")
        let result = try await offPool { CurlTransport().send([request], options: TransportOptions(timeout: 10))[0] }
        let response = try result.get()
        #expect(response.statusCode == 200)
        #expect(response.duration >= 0.99, "\(response.duration)")
    }
}
