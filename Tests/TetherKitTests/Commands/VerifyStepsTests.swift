import Foundation
import Testing

@testable import TetherEngine
@testable import TetherKit

/// Set-up and clean-up steps (a manifest's `"steps"`) against a record store on 127.0.0.1: a step creates a record,
/// its id and ETag are captured, the target reads the record, a clean-up step deletes it, and does so after a pass,
/// a drift, a timeout and a Ctrl-C. Steps are no test cases: the JUnit counts only the targets.
@Suite(.serialized) struct VerifyStepsTests {
    /// A record store: `POST /records` creates one (201, `{"data": {"id", "session"}}`, the version in `ETag`);
    /// `GET /records/ID` reads it (404 when there is none); `GET /records/ID/slow` holds the connection for a minute;
    /// `DELETE /records/ID` removes it, only with its ETag in `If-Match` (412 without).
    final class Store {
        struct State {
            var created = 0
            var records: [String: String] = [:]
            var log: [String] = []
        }
        let state = Locked(State())
        let server: MockServer

        init(createStatus: Int = 201) throws {
            let state = state
            server = try MockServer { request in
                state.withLock { $0.log.append("\(request.method) \(request.path)") }
                let parts = request.path.split(separator: "/").map(String.init)
                switch (request.method, parts.count) {
                case ("POST", 1) where parts[0] == "records":
                    guard createStatus == 201 else { return .json(#"{"message": "forbidden"}"#, status: createStatus) }
                    let id = state.withLock { state -> String in
                        state.created += 1
                        let id = "r-\(state.created)"
                        state.records[id] = String(decoding: request.body, as: UTF8.self)
                        return id
                    }
                    return MockResponse(
                        status: 201,
                        headers: [HTTPHeader("Content-Type", "application/json"), HTTPHeader("ETag", "\"v1-\(id)\"")],
                        body: Data(#"{"data": {"id": "\#(id)", "session": "sess-7f6e5d4c3b2a"}}"#.utf8))
                case ("GET", 2) where parts[0] == "records":
                    guard
                        request.headers.contains(where: { $0.isNamed("X-Session") && $0.value == "sess-7f6e5d4c3b2a" })
                    else { return .json(#"{"message": "no session"}"#, status: 401) }
                    guard let body = state.withLock({ $0.records[parts[1]] }) else {
                        return .json(#"{"message": "not found"}"#, status: 404)
                    }
                    return .json(#"{"id": "\#(parts[1])", "title": \#(Self.title(body)), "version": 1}"#)
                case ("GET", 3) where parts[0] == "records" && parts[2] == "slow":
                    return MockResponse(ending: .hold(seconds: 60))
                case ("DELETE", 2) where parts[0] == "records":
                    let ifMatch = request.headers.first { $0.isNamed("If-Match") }?.value
                    guard ifMatch == "\"v1-\(parts[1])\"" else {
                        return .json(#"{"message": "If-Match needed"}"#, status: 412)
                    }
                    let removed = state.withLock { $0.records.removeValue(forKey: parts[1]) != nil }
                    return removed ? MockResponse(status: 204) : .json(#"{"message": "not found"}"#, status: 404)
                default:
                    return .json(#"{"message": "no route"}"#, status: 404)
                }
            }
        }

        private static func title(_ body: String) -> String {
            guard let data = body.data(using: .utf8),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let title = object["title"] as? String
            else { return "null" }
            return "\"\(title)\""
        }
    }

    /// One target that reads the record its set-up step creates; `version` is the stub's version value, `path`
    /// what follows `/records/${RECORD_ID}`.
    static func manifest(_ store: Store, version: String = "1", path: String = "") -> String {
        """
        {"service": "Store", "baseURL": "\(store.server.baseURL)",
         "targets": [
           {"name": "readRecord", "path": "/records/${RECORD_ID}\(path)",
            "headers": {"X-Session": "${SESSION_TOKEN}"},
            "steps": {
              "before": [{"name": "createRecord", "method": "POST", "path": "/records",
                          "task": {"requestJSONEncodable": {"title": "made by ${RUN_LABEL}"}},
                          "expect": {"status": [201]},
                          "capture": {"RECORD_ID": "$.data.id", "ETAG": "header:ETag",
                                      "SESSION_TOKEN": "$.data.session"}}],
              "after": [{"name": "deleteRecord", "method": "DELETE", "path": "/records/${RECORD_ID}",
                         "headers": {"If-Match": "${ETAG}"}, "expect": {"status": 204}}]},
            "sampleData": {"json": {"id": "r-0", "title": "a title", "version": \(version)}}}
         ]}
        """
    }

    @Test func aSetUpStepCreatesTheRecordTheTargetReadsItAndACleanUpStepDeletesIt() async throws {
        let store = try Store()
        let folder = try ContractFolder(["store.json": Self.manifest(store)])
        let (path, json, html) = (folder.path, folder.file("run.jsonl"), folder.file("run.html"))
        let run = try await offPool {
            try TetherBinary.run(
                ["verify", path, "--no-color", "--verbose", "--json", json, "--html", html],
                environment: ["RUN_LABEL": "tether-ci"])
        }
        #expect(run.exitCode == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("1 passed, 0 failed, 0 errors"), "\(run.stdout)")
        let state = store.state.withLock { $0 }
        #expect(state.log == ["POST /records", "GET /records/r-1", "DELETE /records/r-1"], "\(state.log)")
        #expect(state.records.isEmpty, "the clean-up step left \(state.records)")
        // The verbose console shows the steps around the target, with their statuses; the record's id is no
        // secret, the captured session token is (its name says so).
        let base = store.server.baseURL
        #expect(run.stdout.contains("set-up createRecord: POST \(base)/records: 201  "), "\(run.stdout)")
        #expect(run.stdout.contains("GET \(base)/records/r-1\n"), "\(run.stdout)")
        #expect(run.stdout.contains("clean-up deleteRecord: DELETE \(base)/records/r-1: 204  "), "\(run.stdout)")
        let lines = try String(contentsOfFile: json, encoding: .utf8)
        let result = try #require(lines.split(separator: "\n").first { $0.contains(#""type":"result""#) })
        #expect(result.contains(#""steps":[{"name":"createRecord","phase":"before","request":"POST "#), "\(result)")
        #expect(result.contains(#""name":"deleteRecord","phase":"after""#) && result.contains(#""status":204"#))
        let page = try String(contentsOfFile: html, encoding: .utf8)
        #expect(page.contains("<li class=\"step\"><code>set-up createRecord: POST "), "no steps in the HTML")
        if VerifyReportsTests.chromium != nil {
            let dom = try await VerifyReportsTests.chromiumRun(
                ["--dump-dom", "file://\(html)"], profile: folder.file("profile"))
            #expect(dom.status == 0, "\(dom.stderr)")
            #expect(dom.stdout.contains(#"<ul class="steps">"#) && dom.stdout.contains("clean-up deleteRecord: DELETE"))
        }
        // Steps are not test cases.
        let junit = try #require(run.junit)
        #expect(junit.contains(#"<testsuite name="Store" tests="1" failures="0" errors="0" skipped="0""#), "\(junit)")
        #expect(try JUnitValidator.validate(junit).isValid)
        let everything = run.stdout + run.stderr + junit + lines + page
        #expect(!everything.contains("sess-7f6e5d4c3b2a"), "a captured secret reached an output")
        #expect(!everything.contains("zTetherCapture"), "a placeholder reached an output")
    }

    @Test func theCleanUpStepRunsAfterADrift() async throws {
        let store = try Store()
        let folder = try ContractFolder(["store.json": Self.manifest(store, version: #""1""#)])
        let path = folder.path
        let run = try await offPool {
            try TetherBinary.run(["verify", path, "--no-color"], environment: ["RUN_LABEL": "x"])
        }
        #expect(run.exitCode == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("DRIFT Store.readRecord"), "\(run.stdout)")
        let state = store.state.withLock { $0 }
        #expect(state.log.last == "DELETE /records/r-1" && state.records.isEmpty, "\(state.log) \(state.records)")
    }

    @Test func theCleanUpStepRunsAfterATimeout() async throws {
        let store = try Store()
        let folder = try ContractFolder(["store.json": Self.manifest(store, path: "/slow")])
        let path = folder.path
        let run = try await offPool {
            try TetherBinary.run(["verify", path, "--no-color", "--timeout", "1"], environment: ["RUN_LABEL": "x"])
        }
        #expect(run.exitCode == 4, "nothing was checked: \(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("ERROR Store.readRecord"), "\(run.stdout)")
        // The error names what failed, and the steps around it show (an error shows them without --verbose).
        #expect(run.stdout.contains("clean-up deleteRecord: DELETE "), "\(run.stdout)")
        let state = store.state.withLock { $0 }
        #expect(state.log.last == "DELETE /records/r-1" && state.records.isEmpty, "\(state.log) \(state.records)")
    }

    @Test func theCleanUpStepRunsAtCtrlCBeforeTheReportIsWritten() throws {
        let store = try Store()
        let folder = try ContractFolder(["store.json": Self.manifest(store, path: "/slow")])
        let tether = try RunningTether(
            ["verify", folder.path, "--timeout", "60", "--no-color"], environment: ["RUN_LABEL": "x"])
        #expect(
            eventually(within: 20) { store.state.withLock { $0.log.contains("GET /records/r-1/slow") } },
            "the target never reached the store: \(tether.stdout)\(tether.stderr)")
        kill(tether.process.processIdentifier, SIGINT)
        #expect(tether.waitForExit(within: 20) == 130, "\(tether.stdout)\(tether.stderr)")
        let state = store.state.withLock { $0 }
        #expect(state.log.last == "DELETE /records/r-1" && state.records.isEmpty, "\(state.log) \(state.records)")
        #expect(tether.stdout.contains("interrupted"), "\(tether.stdout)")
        let junit = try #require(tether.junit, "no report was written")
        #expect(junit.contains(#"<testsuite name="Store" tests="1" failures="0" errors="1""#), "\(junit)")
    }

    @Test func aFailingSetUpStepMakesTheTargetAnErrorNamingTheStepNeverADrift() async throws {
        let store = try Store(createStatus: 403)
        let folder = try ContractFolder(["store.json": Self.manifest(store)])
        let (path, json) = (folder.path, folder.file("run.jsonl"))
        let run = try await offPool {
            try TetherBinary.run(["verify", path, "--no-color", "--json", json], environment: ["RUN_LABEL": "x"])
        }
        #expect(run.exitCode == 4, "\(run.stdout)\(run.stderr)")
        #expect(
            run.stdout.contains("ERROR Store.readRecord  0.000s  set-up step createRecord: expected 201, got 403"),
            "\(run.stdout)")
        // The target and its clean-up waited for values that were never captured: neither was sent.
        #expect(store.state.withLock { $0.log } == ["POST /records"])
        #expect(run.stdout.contains("GET \(store.server.baseURL)/records/${RECORD_ID}"), "\(run.stdout)")
        let lines = try String(contentsOfFile: json, encoding: .utf8)
        #expect(!lines.contains("zTetherCapture"), "a placeholder reached an output")
        #expect(
            lines.contains(#""failure":"not sent: it uses ${RECORD_ID} and ${ETAG}, which no earlier step captured""#),
            "\(lines)")
    }

    /// Service-level steps run once per run: one bucket for both targets, removed at the end.
    @Test func serviceStepsRunOncePerRunAndTheirCapturesReachEveryTarget() async throws {
        let buckets = Locked([String]())
        let server = try MockServer { request in
            buckets.withLock { $0.append("\(request.method) \(request.path)") }
            switch (request.method, request.path) {
            case ("POST", "/buckets"): return .json(#"{"id": 42}"#, status: 201)
            case ("GET", "/buckets/42/a"), ("GET", "/buckets/42/b"): return .json(#"{"ok": true}"#)
            case ("DELETE", "/buckets/42"): return MockResponse(status: 204)
            default: return .json(#"{"message": "no route"}"#, status: 404)
            }
        }
        let folder = try ContractFolder([
            "buckets.json": """
            {"service": "Buckets", "baseURL": "\(server.baseURL)",
             "steps": {"before": [{"name": "createBucket", "method": "POST", "path": "/buckets",
                                   "capture": {"BUCKET": "$.id"}}],
                       "after": [{"name": "deleteBucket", "method": "DELETE", "path": "/buckets/${BUCKET}"}]},
             "targets": [
               {"name": "a", "path": "/buckets/${BUCKET}/a", "sampleData": {"json": {"ok": true}}},
               {"name": "b", "path": "/buckets/${BUCKET}/b", "sampleData": {"json": {"ok": true}}}
             ]}
            """
        ])
        let path = folder.path
        let list = try await offPool { try TetherBinary.run(["verify", path, "--list"]) }
        #expect(list.exitCode == 0, "\(list.stdout)\(list.stderr)")
        #expect(list.stdout.contains("  set-up step createBucket  POST \(server.baseURL)/buckets\n"), "\(list.stdout)")
        #expect(list.stdout.contains("GET \(server.baseURL)/buckets/${BUCKET}/a\n"), "\(list.stdout)")
        #expect(buckets.withLock { $0 }.isEmpty, "--list sent something")
        let run = try await offPool { try TetherBinary.run(["verify", path, "--no-color", "--jobs", "4"]) }
        #expect(run.exitCode == 0, "\(run.stdout)\(run.stderr)")
        let log = buckets.withLock { $0 }
        #expect(log.first == "POST /buckets" && log.last == "DELETE /buckets/42", "\(log)")
        #expect(Set(log.dropFirst().dropLast()) == ["GET /buckets/42/a", "GET /buckets/42/b"], "\(log)")
        #expect(
            run.stdout.contains("service steps (once per run):\n  Buckets: set-up createBucket: POST "), "\(run.stdout)"
        )
    }

    /// `--offline` sends no step: a path parameter that a step captures is not judged by its stand-in, nor is a
    /// captured value in a JSON body by its format; that it is sent as a string (in a JSON string) still is.
    @Test func offlineACapturedParameterIsNotJudgedBeforeItIsCaptured() async throws {
        let createRecord =
            #"{"name": "createRecord", "method": "POST", "path": "/records", "expect": {"status": 201}, "capture": {"RECORD_ID": "$.id"}}"#
        let folder = try ContractFolder([
            "contracts/store.json": """
            {"service": "Store", "baseURL": "https://store.example.com",
             "targets": [{"name": "readRecord", "path": "/records/${RECORD_ID}", "sampleData": {"json": {"id": 7}},
                          "steps": {"before": [\(createRecord)]}},
                         {"name": "linkRecord", "method": "POST", "path": "/links",
                          "task": {"requestJSONEncodable": {"record": "${RECORD_ID}"}},
                          "sampleResponse": {"networkResponse": {"statusCode": 204}},
                          "steps": {"before": [\(createRecord)]}},
                         {"name": "countRecord", "method": "POST", "path": "/links",
                          "task": {"requestJSONEncodable": {"record": "2b6e1f0c-5a4d-4c1e-9b7a-3f2d1c0b9a88", "count": "${RECORD_ID}"}},
                          "sampleResponse": {"networkResponse": {"statusCode": 204}},
                          "steps": {"before": [\(createRecord)]}}]}
            """,
            "openapi.yaml": """
            openapi: 3.0.3
            info: {title: Store, version: '1'}
            servers: [{url: 'https://store.example.com'}]
            paths:
              /records/{id}:
                get:
                  parameters: [{name: id, in: path, required: true, schema: {type: integer}}]
                  responses:
                    '200':
                      description: a record
                      content: {application/json: {schema: {type: object, properties: {id: {type: integer}}}}}
              /links:
                post:
                  requestBody:
                    required: true
                    content:
                      application/json:
                        schema:
                          type: object
                          properties:
                            record: {type: string, format: uuid, maxLength: 36}
                            count: {type: integer}
                  responses:
                    '204': {description: linked}
            """,
        ])
        let (contracts, spec) = (folder.file("contracts"), folder.file("openapi.yaml"))
        let run = try await offPool {
            try TetherBinary.run(["verify", contracts, "--spec", spec, "--offline", "--no-color"])
        }
        #expect(run.exitCode == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("PASS  Store.readRecord"), "\(run.stdout)")
        #expect(run.stdout.contains("PASS  Store.linkRecord"), "\(run.stdout)")
        #expect(
            run.stdout.contains("DRIFT Store.countRecord")
                && run.stdout.contains("stale stub: target: the request body at $.count: expected integer"),
            "\(run.stdout)")
    }
}
