import Foundation
import Testing

/// The test servers the transport's tests rely on behave as they say, seen from curl (`--max-time 2`).
///
/// Times are curl's own (`-w %{time_total}`), never the test's clock around `await`: the test's task resumes only
/// when the cooperative pool has a free thread, and synchronous tests beside it (a blocking `CurlTransport.send`)
/// can hold both threads of a 2-core machine for seconds. That is how `hangTimesOut` once saw 8.4 s for a 2 s
/// `--max-time` (reproduced beside the transport isolation tests: curl 2.002 s, the test's clock 29.6 s).
@Suite struct MisbehavingServerTests {
    @Test func hangTimesOut() async throws {
        let server = try MisbehavingServer(mode: .hang)
        defer { server.stop() }
        let result = try await runCurl(
            ["-s", "-w", "%{time_total}", "--max-time", "2", server.baseURL + "/slow"], deadline: 30)
        #expect(result.exitCode == 28)  // operation timed out
        #expect(!result.wasKilled)  // curl ended on its own: the server held the connection, nothing hung
        let waited = try #require(Double(result.outputText), "curl -w printed '\(result.outputText)'")
        #expect(waited >= 1.9, "the server should hold the request until curl gives up at 2 s, curl saw \(waited) s")
        #expect(server.requests.first?.hasPrefix("GET /slow HTTP/1.1\r\n") == true)
    }

    @Test func resetIsSeenAsAConnectionReset() async throws {
        let server = try MisbehavingServer(mode: .reset)
        defer { server.stop() }
        let result = try await runCurl(["-sS", "--max-time", "2", server.baseURL + "/reset"], deadline: 10)
        #expect(result.exitCode == 56)  // failure receiving network data
        #expect(result.errorText.contains("Connection reset by peer"))
        #expect(server.requests.first?.hasPrefix("GET /reset HTTP/1.1\r\n") == true)
    }

    @Test func closeWithoutAnswerIsAnEmptyReply() async throws {
        let server = try MisbehavingServer(mode: .closeWithoutAnswer)
        defer { server.stop() }
        let result = try await runCurl(["-sS", "--max-time", "2", server.baseURL + "/empty"], deadline: 10)
        #expect(result.exitCode == 52)  // empty reply from server
        #expect(result.errorText.contains("Empty reply from server"))
        #expect(server.requests.count == 1)
    }

    @Test func stopEndsHeldConnectionsAndTheListener() async throws {
        let server = try MisbehavingServer(mode: .hang)
        // curl waits up to 10 s; stopping the server closes its connection first, so curl ends early with
        // an empty reply instead of timing out. Started here, and the server watched and stopped off the cooperative
        // pool: on a busy machine an `async let` or a `Task.sleep` may wait for a free thread of the pool for longer
        // than curl's 10 s (curl then started after the server stopped, or timed out before it did).
        let waiting = try StartedCurl(
            ["-sS", "-w", "%{time_total}", "--max-time", "10", server.baseURL + "/held"], deadline: 30)
        let requests = try await offPool {
            let deadline = Date().addingTimeInterval(30)
            while server.requests.isEmpty, Date() < deadline { usleep(20_000) }
            let requests = server.requests.count
            server.stop()
            server.stop()  // idempotent
            return requests
        }
        #expect(requests == 1)
        let result = try await waiting.result()
        #expect(result.exitCode == 52)  // the server closed the held connection: not curl's timeout (28)
        let waited = try #require(Double(result.outputText), "curl -w printed '\(result.outputText)'")
        #expect(waited < 10, "curl waited \(waited) s: the connection was not closed by stop()")
        let refused = try await runCurl(["-s", "--max-time", "2", server.baseURL + "/"], deadline: 10)
        #expect(refused.exitCode == 7)
    }
}
