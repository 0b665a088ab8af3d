import Foundation
import Testing

/// The test servers the transport's tests rely on behave as they say, seen from curl (`--max-time 2`).
@Suite struct MisbehavingServerTests {
    @Test func hangTimesOut() async throws {
        let server = try MisbehavingServer(mode: .hang)
        defer { server.stop() }
        let started = Date()
        let result = try await runCurl(["-s", "--max-time", "2", server.baseURL + "/slow"], deadline: 10)
        let elapsed = Date().timeIntervalSince(started)
        #expect(result.exitCode == 28)  // operation timed out
        #expect(!result.wasKilled)
        #expect(elapsed >= 1.9 && elapsed < 6)
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
        // an empty reply instead of timing out.
        async let waiting = runCurl(["-sS", "--max-time", "10", server.baseURL + "/held"], deadline: 15)
        let deadline = Date().addingTimeInterval(5)
        while server.requests.isEmpty, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(server.requests.count == 1)
        let started = Date()
        server.stop()
        server.stop()  // idempotent
        let result = try await waiting
        #expect(result.exitCode == 52)
        #expect(Date().timeIntervalSince(started) < 3)
        let refused = try await runCurl(["-s", "--max-time", "2", server.baseURL + "/"], deadline: 10)
        #expect(refused.exitCode == 7)
    }
}
