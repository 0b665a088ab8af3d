import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// Two manifests: `fast.json` (service Fast, a target that answers at once) first, `slow.json` (service Slow, a
/// target whose server reads the request and never answers) after it.
func fastThenSlow(fast: MockServer, slow: MisbehavingServer) throws -> ContractFolder {
    try ContractFolder([
        "fast.json":
            #"{"service": "Fast", "baseURL": "\#(fast.baseURL)", "targets": [{"name": "quick", "path": "/quick", "sampleData": {"json": {"id": 1}}}]}"#,
        "slow.json":
            #"{"service": "Slow", "baseURL": "\#(slow.baseURL)", "targets": [{"name": "late", "path": "/late", "sampleData": {"json": {"id": 1}}}]}"#,
    ])
}

/// Each result line reaches a pipe when its turn comes, not when the process ends.
@Suite struct VerifyStreamingTests {
    @Test func theFastTargetsLineArrivesThroughAPipeWhileTheSlowOneIsInFlight() throws {
        let fast = try MockServer { _ in .json(#"{"id": 1}"#) }
        let slow = try MisbehavingServer(mode: .hang)
        defer { slow.stop() }
        let folder = try fastThenSlow(fast: fast, slow: slow)
        let tether = try RunningTether([
            "verify", folder.file("fast.json"), folder.file("slow.json"), "--timeout", "30", "--no-color",
        ])
        #expect(
            tether.waitForOutput("PASS  Fast.quick", within: 20),
            "no line through the pipe within 20 s; stdout: \(tether.stdout)")
        // The line came while the slow request was still in flight: the server holds it, the process runs on.
        #expect(tether.process.isRunning)
        #expect(!tether.stdout.contains("Slow.late"))
        #expect(eventually(within: 10) { slow.requests.count == 1 }, "the slow request never reached its server")
        kill(tether.process.processIdentifier, SIGKILL)
        _ = tether.waitForExit(within: 10)
    }
}
