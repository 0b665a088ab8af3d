import Foundation
import Testing

@testable import TetherEngine
@testable import TetherKit

/// `tether verify --ctrf FILE` against a server on 127.0.0.1, every outcome once, validated against CTRF's published
/// schema (`Fixtures/ctrf`, with its source and licence) by Python's jsonschema, formats checked.
@Suite struct VerifyCTRFTests {
    static let secret = "ctrf-secret-7f3a9b2c"

    @Test func theReportIsValidCTRFWithEveryOutcomeAndNoSecret() async throws {
        let server = try MockServer { request in
            switch request.path {
            case "/ok": .json(#"{"id": 1}"#)
            case "/drift": .json(#"{"id": "1", "note": "\#(Self.secret)"}"#)
            default: .json(#"{"message": "not found"}"#, status: 404)
            }
        }
        let folder = try ContractFolder([
            "contracts/shop.json": """
            {"service": "Shop", "baseURL": "\(server.baseURL)", "headers": {"Authorization": "Bearer ${TOKEN}"},
             "targets": [
               {"name": "ok", "path": "/ok", "sampleData": {"json": {"id": 1}}},
               {"name": "drift", "path": "/drift", "sampleData": {"json": {"id": 1, "note": "x"}}},
               {"name": "new", "path": "/drift", "pending": true, "sampleData": {"json": {"id": 1}}},
               {"name": "offline", "path": "/ok",
                "sampleResponse": {"networkError": {"code": -1009, "description": "offline"}}}
             ]}
            """
        ])
        let (contracts, ctrf) = (folder.file("contracts"), folder.file("reports/ctrf.json"))
        let run = try await offPool {
            try TetherBinary.run(
                ["verify", contracts, "--ctrf", ctrf, "--no-color"], environment: ["TOKEN": Self.secret])
        }
        #expect(run.exitCode == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("CTRF report: \(ctrf)"), "\(run.stdout)")
        let text = try String(contentsOfFile: ctrf, encoding: .utf8)
        #expect(!text.contains(Self.secret), "a secret reached the CTRF report")

        let schema = FixturePaths.fixture("ctrf/ctrf.schema.json")
        let check = try Python.run([
            "-c",
            """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1])); document = json.load(open(sys.argv[2]))
            validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
            errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(document)]
            print("\\n".join(errors) or "valid")
            summary = document["results"]["summary"]
            print(summary["tests"], summary["passed"], summary["failed"], summary["pending"], summary["skipped"])
            print(" ".join(t["name"] + "=" + t["status"] for t in document["results"]["tests"]))
            """,
            schema, ctrf,
        ])
        #expect(check.status == 0, "\(check.output)")
        let lines = check.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "valid", "\(check.output)")
        #expect(lines.dropFirst().first == "4 1 1 1 1", "tests passed failed pending skipped: \(check.output)")
        #expect(
            lines.last == "Shop.ok=passed Shop.drift=failed Shop.new=pending Shop.offline=skipped", "\(check.output)")
    }
}
