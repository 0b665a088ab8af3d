import Foundation
import Testing

@testable import Tether
@testable import TetherContracts

/// `tether mock FILE.har` serves a HAR on 127.0.0.1 until it is stopped.
@Suite struct MockCommandTests {
    @Test func servesTheRecordedResponsesAndNamesWhatIsNotRecorded() throws {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { root.deleteLastPathComponent() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TetherBinary.path)
        process.arguments = ["mock", root.appendingPathComponent("contracts/github.har").path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            kill(process.processIdentifier, SIGKILL)  // SIGTERM may be blocked in a child of a test thread
            process.waitUntilExit()
        }
        let banner = try #require(firstOutput(of: output, within: 10), "tether mock printed nothing within 10 s")
        let match = try #require(banner.firstMatch(of: /on (http:\/\/127\.0\.0\.1:\d+)/), "banner: \(banner)")
        #expect(banner.hasPrefix("serving 5 recorded responses from"))
        let baseURL = String(match.1)
        let results = CurlTransport().send(
            [
                HTTPRequest(method: "GET", url: "\(baseURL)/users/octocat/repos?per_page=2"),
                HTTPRequest(method: "GET", url: "\(baseURL)/users/nobody"),
            ], options: TransportOptions(timeout: 5))
        let recorded = try results[0].get()
        #expect(recorded.statusCode == 200)
        #expect(recorded.header("Link")?.contains("rel=\"next\"") == true)
        let missing = try results[1].get()
        #expect(missing.statusCode == 404)
        #expect(missing.header("X-Tether-Mock") == "not-recorded")
        #expect(
            String(decoding: missing.body, as: UTF8.self).contains(
                "not recorded in \(root.appendingPathComponent("contracts/github.har").path): GET /users/nobody"))
    }
}

/// The first bytes a child process writes to `pipe`, or `nil` if it writes nothing within `seconds`.
private func firstOutput(of pipe: Pipe, within seconds: Double) -> String? {
    final class Box: @unchecked Sendable { var text: String? }
    let box = Box()
    let done = DispatchSemaphore(value: 0)
    let handle = pipe.fileHandleForReading
    Thread.detachNewThread {
        box.text = String(decoding: handle.availableData, as: UTF8.self)
        done.signal()
    }
    return done.wait(timeout: .now() + seconds) == .success ? box.text : nil
}
