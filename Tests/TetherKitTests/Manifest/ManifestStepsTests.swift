import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// A manifest's `"steps"`: read as targets are, captured `${NAME}`s in scope only after the step that captures them,
/// every mistake a contract error at its place; the captured values filled into a request, encoded for where they
/// stand.
@Suite struct ManifestStepsTests {
    static func load(_ manifest: String, environment: [String: String] = [:]) throws -> [Contract] {
        let folder = try ContractFolder(["m.json": manifest])
        return try ManifestLoader(environment: environment).load(paths: [folder.path])
    }

    static func errors(_ manifest: String) -> [String] {
        do {
            _ = try load(manifest)
            return []
        } catch {
            return "\(error)".split(separator: "\n").map {
                String($0.split(separator: "error: ", maxSplits: 1).last ?? $0)
            }
        }
    }

    static let target = #"{"name": "read", "path": "/records/${ID}", "sampleData": {"json": {}}"#

    @Test func capturedValuesAreFilledInEncodedForWhereTheyStand() throws {
        let contracts = try Self.load(
            """
            {"service": "S", "baseURL": "https://api.example.com/v1",
             "targets": [{"name": "read", "method": "POST", "path": "/records/${ID}", "query": {"etag": "${ETAG}"},
                          "headers": {"If-Match": "${ETAG}", "Authorization": "Bearer ${ACCESS}"},
                          "task": {"requestJSONEncodable": {"note": "id ${ID}", "home": "${HOME_DIR}"}},
                          "steps": {"before": [{"name": "make", "method": "POST", "path": "/records",
                                                "capture": {"ID": "$.id", "ETAG": "header:ETag", "ACCESS": "$.a"}}]},
                          "sampleData": {"json": {}}}]}
            """, environment: ["HOME_DIR": "/home/ci", "ID": "from-the-environment"])
        let contract = try #require(contracts.first)
        let step = try #require(contract.steps?.before.first)
        #expect(step.name == "make" && step.request.url == "https://api.example.com/v1/records")
        #expect(step.captures.map(\.name) == ["ID", "ETAG", "ACCESS"])
        #expect(step.captures.map(\.source.description) == ["$.id", "header:ETag", "$.a"])
        #expect(step.captures.map(\.isSecret) == [false, false, false], "the names say nothing secret")
        // The request waits for the values: written back as ${NAME} (a capture wins over the environment's ID).
        #expect(
            StepCaptures.written(contract.request.url) == "https://api.example.com/v1/records/${ID}?etag=${ETAG}")
        let values = ["ID": "a/b c", "ETAG": "\"v1\"", "ACCESS": "tok"]
        let filled = try StepCaptures.filled(contract.request, with: values).get()
        #expect(filled.url == "https://api.example.com/v1/records/a%2Fb%20c?etag=%22v1%22")
        #expect(filled.headers.first { $0.isNamed("If-Match") }?.value == "\"v1\"")
        #expect(filled.headers.first { $0.isNamed("Authorization") }?.value == "Bearer tok")
        #expect(
            String(decoding: filled.body ?? Data(), as: UTF8.self) == #"{"home":"/home/ci","note":"id a/b c"}"#
                || String(decoding: filled.body ?? Data(), as: UTF8.self) == #"{"note":"id a/b c","home":"/home/ci"}"#,
            "\(String(decoding: filled.body ?? Data(), as: UTF8.self))")
        // A value sent in a credential header is a secret of the run.
        var session = StepSession(
            transport: CurlTransport(), options: TransportOptions(), sign: { $0 }, values: values)
        _ = session.filled(contract.request)
        #expect(session.secrets == ["tok"])
        // A JSON body gets a JSON-escaped value; a form body a form-encoded one.
        let json = HTTPRequest(
            method: "POST", url: "https://x.test", headers: [HTTPHeader("Content-Type", "application/json")],
            body: Data(#"{"a":"\#(StepCaptures.placeholder(for: "V"))"}"#.utf8))
        #expect(
            try StepCaptures.filled(json, with: ["V": "say \"hi\"\n"]).get().body
                == Data(#"{"a":"say \"hi\"\n"}"#.utf8))
        let form = HTTPRequest(
            method: "POST", url: "https://x.test",
            headers: [HTTPHeader("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")],
            body: Data("a=\(StepCaptures.placeholder(for: "V"))".utf8))
        #expect(try StepCaptures.filled(form, with: ["V": "1&b=2"]).get().body == Data("a=1%26b%3D2".utf8))
        // Missing values are named; a value that would split a header is refused.
        #expect(
            StepCaptures.filled(contract.request, with: [:]).failure
                == .notCaptured(["ID", "ETAG", "ACCESS"]))
        #expect(
            StepCaptures.filled(contract.request, with: ["ID": "1", "ETAG": "a\r\nX-Evil: 1", "ACCESS": "t"]).failure
                == .splitsHeader("If-Match"))
    }

    @Test func aCapturesNameOrSourceCanMakeItASecret() throws {
        let contracts = try Self.load(
            """
            {"service": "S", "baseURL": "https://api.example.com",
             "steps": {"before": [{"name": "login", "method": "POST", "path": "/login",
                                   "capture": {"SESSION_ID": "$.s", "C": "header:Set-Cookie", "ID": "$.id",
                                               "apiKey": "$.k"}}]},
             "targets": [\(Self.target)}]}
            """)
        let steps = try #require(contracts.first?.serviceSteps)
        #expect(steps.before[0].captures.map(\.isSecret) == [true, true, false, true])
        #expect(contracts.first?.steps == nil)
    }

    @Test func aCaptureIsInScopeOnlyAfterTheStepThatCapturesIt() {
        // The step that captures ID cannot use it itself: ${ID} is then an environment variable, and it is unset.
        let errors = Self.errors(
            """
            {"service": "S", "baseURL": "https://api.example.com",
             "targets": [{"name": "read", "path": "/records/${ID}", "sampleData": {"json": {}},
                          "steps": {"before": [{"name": "make", "path": "/records/${ID}", "capture": {"ID": "$.id"}}]}}]}
            """)
        #expect(errors.count == 1 && errors[0].contains("environment variable ID is not set"), "\(errors)")
        // A target's capture does not reach another target.
        let other = Self.errors(
            """
            {"service": "S", "baseURL": "https://api.example.com",
             "targets": [{"name": "a", "path": "/a", "sampleData": {"json": {}},
                          "steps": {"before": [{"name": "make", "path": "/records", "capture": {"ID": "$.id"}}]}},
                         {"name": "b", "path": "/records/${ID}", "sampleData": {"json": {}}}]}
            """)
        #expect(other.count == 1 && other[0].contains("environment variable ID is not set"), "\(other)")
    }

    @Test(arguments: [
        (
            #"{"before": [{"name": "make", "pth": "/x"}]}"#,
            "steps.before[0].pth: unknown key (did you mean 'path'?)"
        ),
        (#"{"before": [{"path": "/x"}]}"#, #"missing key "name""#),
        (#"{"befor": []}"#, "steps.befor: unknown key (did you mean 'before'?)"),
        (
            #"{"before": [{"name": "make", "capture": {"my-id": "$.id"}}]}"#,
            "'my-id' is not a variable name"
        ),
        (#"{"before": [{"name": "make", "capture": {"ID": "data.id"}}]}"#, "capture ID: "),
        (#"{"before": [{"name": "make", "capture": {"ID": "header:"}}]}"#, "is not a header name"),
        (#"{"before": [{"name": "make", "expect": {"status": [99]}}]}"#, "99 is out of range 100...599"),
        (#"{"before": [{"name": "make", "expect": {"status": []}}]}"#, "give at least one status"),
        (#"{"before": [{"name": "a"}], "after": [{"name": "a"}]}"#, "a second step named 'a'"),
    ])
    func aMistakeInAStepIsAContractErrorAtItsPlace(steps: String, message: String) {
        let errors = Self.errors(
            """
            {"service": "S", "baseURL": "https://api.example.com",
             "targets": [{"name": "read", "path": "/r", "sampleData": {"json": {}}, "steps": \(steps)}]}
            """)
        #expect(errors.count == 1 && errors[0].contains(message), "\(errors)")
        #expect(errors.first?.hasPrefix("targets[0].steps") == true, "\(errors)")
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }
}
