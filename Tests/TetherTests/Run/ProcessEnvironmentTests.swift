import Foundation
import Testing

@testable import Tether
@testable import TetherContracts

/// `ProcessEnvironment.current()` reads `environ` itself on Linux: it must give what Foundation gives.
@Suite struct ProcessEnvironmentTests {
    @Test func theEnvironmentIsFoundationsOwn() {
        let current = ProcessEnvironment.current()
        #expect(current == ProcessInfo.processInfo.environment)
        #expect(current["PATH"] != nil)
    }

    /// End to end, through `${VAR}` in a manifest: a value holding `=`, an empty value, a non-ASCII name and value.
    @Test func theBinaryExpandsVariablesFromItsEnvironment() throws {
        let seen = SeenRequests()
        let server = try MockServer { request in
            seen.record(request)
            return .json(#"{"id": 1}"#)
        }
        let folder = try ContractFolder([
            "api.json": #"""
            {"service": "Env", "baseURL": "\#(server.baseURL)",
             "targets": [{"name": "one", "path": "/one", "headers": {"X-A": "${TETHER_A}", "X-B": "[${TETHER_EMPTY:-unset}]", "X-C": "${TETHER_Ü}"},
                          "sampleData": {"json": {"id": 2}}}]}
            """#
        ])
        let run = try TetherBinary.run(
            ["verify", folder.path], environment: ["TETHER_A": "x=y=z", "TETHER_EMPTY": "", "TETHER_Ü": "gruen"])
        #expect(run.exitCode == 0, "\(run.stdout)\(run.stderr)")
        let request = try #require(seen.all.first)
        #expect(request.header("X-A") == "x=y=z")
        #expect(request.header("X-B") == "[unset]")
        #expect(request.header("X-C") == "gruen")
    }
}
