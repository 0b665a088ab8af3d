import Foundation

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// Fixed runs for the report tests: fixed clock, fixed host, every outcome.
enum ReportFixtures {
    /// 2026-05-04T03:02:01Z: its timestamp contains "202" (see the short-secret test).
    static let startedAt = Date(timeIntervalSince1970: 1_777_863_721)

    static let token = "s3cr3t-token-value"
    static let apiKey = "apikey-123456"

    static func contract(
        _ service: String, _ name: String, url: String = "http://127.0.0.1:8080/x", headers: [HTTPHeader] = [],
        secrets: [String] = [], baseURL: String = "http://127.0.0.1:8080", source: String? = nil
    ) -> Contract {
        Contract(
            service: service, name: name, baseURL: baseURL,
            request: HTTPRequest(method: "GET", url: url, headers: headers), sampleData: .none,
            source: source ?? "contracts/\(service.lowercased()).json", secrets: secrets)
    }

    /// Two services; a pass with a note, a drift with drifts and a note, an error, a skip, a plain pass.
    static var everyOutcome: RunReport {
        let auth = [HTTPHeader("Authorization", "Bearer \(token)")]
        let results = [
            ContractResult(
                contract: contract("GitHub", "user", url: "http://127.0.0.1:8080/user", headers: auth),
                outcome: .passed, findings: [Finding(.note, .extraKey, at: .jsonPath("$.plan"), "key not in the stub")],
                liveStatusCode: 200,
                liveURL: "http://127.0.0.1:8080/user", duration: 0.1204),
            ContractResult(
                contract: contract(
                    "GitHub", "repos", url: "http://127.0.0.1:8080/repos?key=\(apiKey)", secrets: [apiKey]),
                outcome: .drifted,
                findings: [
                    Finding(.drift, .status, at: .status, "expected 200, got 404"),
                    Finding(.note, .header, at: .header("Content-Type"), "text/html instead of application/json"),
                    Finding(.drift, .type, at: .jsonPath("$.items[0].id"), "expected number, got string \"7\""),
                ],
                liveStatusCode: 404, liveURL: "http://127.0.0.1:8080/repos?key=\(apiKey)", duration: 0.3016),
            ContractResult(
                contract: contract("GitHub", "search", url: "http://127.0.0.1:9/search?q=swift"),
                outcome: .error("couldn't connect to server"), duration: 1.0026),
            ContractResult(
                contract: contract("Petstore", "upload"),
                outcome: .skipped("networkError stub: cannot be checked against a service")),
            ContractResult(contract: contract("Petstore", "pet"), outcome: .passed, liveStatusCode: 200, duration: 2),
        ]
        return RunReport(results: results, startedAt: startedAt, duration: 2.5, hostname: "ci-host", secrets: [apiKey])
    }

    /// One drifted result whose finding message is `message`, in a run with `secrets`.
    static func drift(
        message: String, at location: Finding.Location = .body, url: String = "http://127.0.0.1:8080/x",
        secrets: [String] = [],
        headers: [HTTPHeader] = []
    ) -> RunReport {
        let result = ContractResult(
            contract: contract("Svc", "target", url: url, headers: headers), outcome: .drifted,
            findings: [Finding(.drift, .notJSON, at: location, message)], liveStatusCode: 500, duration: 0.5)
        return RunReport(results: [result], startedAt: startedAt, duration: 0.5, hostname: "ci-host", secrets: secrets)
    }
}
