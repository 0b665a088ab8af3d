import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// The built binary against a server on 127.0.0.1: a base URL with a query and a fragment sends the target's path,
/// the base's query and the target's query, and nothing else (the old join sent `/anything?key=abc/json?p=1`).
@Suite struct VerifyBaseURLTests {
    @Test(arguments: [false, true])
    func theTargetsPathIsRequestedWithTheBasesQuery(viaOverride: Bool) throws {
        let seen = SeenRequests()
        let server = try MockServer { request in
            seen.record(request)
            return request.path == "/anything/json" ? .json(#"{"id": 1}"#) : .json(#"{"other": true}"#, status: 404)
        }
        let base = "\(server.baseURL)/anything?key=abc#top"
        let manifest = """
            {"service": "Shop", "baseURL": "\(viaOverride ? "https://shop.invalid" : base)", "targets": [
              {"name": "json", "path": "/json", "query": {"p": "1"}, "sampleData": {"json": {"id": 1}}}]}
            """
        let folder = try ContractFolder(["shop.json": manifest])
        let run = try TetherBinary.run(
            ["verify", folder.path, "--no-color"] + (viaOverride ? ["--base-url", base] : []))
        #expect(run.exitCode == 0, "\(run.stdout)\(run.stderr)")
        #expect(seen.all.map(\.path) == ["/anything/json"])
        #expect(seen.all.map(\.query) == ["key=abc&p=1"])
    }
}
