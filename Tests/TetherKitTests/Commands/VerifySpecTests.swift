import Foundation
import Testing

@testable import TetherEngine
@testable import TetherKit

/// `tether verify --spec FILE --offline`: the built binary checks targets against an OpenAPI document with nothing
/// sent (every base URL here is a port nothing listens on, so a request sent would be an error, not a pass).
@Suite(.serialized) struct VerifySpecTests {
    /// A 3.1 document in YAML: a user by name, its repositories (a required query parameter), an issue created
    /// with a body.
    static let spec = """
        openapi: 3.1.0
        info: {title: Shop, version: "1"}
        servers:
          - url: https://api.example.com/v2
        paths:
          /users/{username}:
            get:
              parameters:
                - {name: username, in: path, required: true, schema: {type: string}}
              responses:
                "200":
                  description: a user
                  content:
                    application/json:
                      schema: {$ref: "#/components/schemas/user"}
                "404":
                  description: no such user
          /users/{username}/repositories:
            get:
              parameters:
                - {name: username, in: path, required: true, schema: {type: string}}
                - {name: per_page, in: query, required: true, schema: {type: integer, maximum: 100}}
              responses:
                "200":
                  description: repositories
                  content:
                    application/json:
                      schema:
                        type: array
                        items:
                          type: object
                          properties:
                            name: {type: string}
                            visibility: {enum: [public, private]}
          /issues:
            post:
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      required: [title]
                      properties:
                        title: {type: string}
              responses:
                "201":
                  description: created
        components:
          schemas:
            user:
              type: object
              required: [login, id]
              properties:
                login: {type: string}
                id: {type: integer, format: int64}
                created_at: {type: string, format: date-time}
                email: {type: [string, "null"], format: email}
        """

    /// One target that holds and one per kind of drift. Line numbers of the stubs matter to no assertion.
    static let manifest = """
        {"service": "Shop", "baseURL": "http://127.0.0.1:9/v2",
         "targets": [
           {"name": "user", "path": "/users/octocat",
            "sampleData": {"json": {"login": "octocat", "id": 1, "email": null}}},
           {"name": "renamed", "path": "/users/octocat/repos", "query": {"per_page": "2"},
            "sampleData": {"json": []}},
           {"name": "repositories", "path": "/users/octocat/repositories", "query": {"per_page": "200", "sort": "x"},
            "sampleData": {"json": [{"name": "a", "visibility": "internal", "stars": 3}]}},
           {"name": "typed", "path": "/users/octocat",
            "sampleData": {"json": {"login": 7, "id": 1, "created_at": "yesterday"}},
            "rules": {"ignore": ["$.created_at"]}},
           {"name": "gone", "path": "/users/nobody",
            "sampleResponse": {"networkResponse": {"statusCode": 410}}},
           {"name": "createIssue", "method": "POST", "path": "/issues",
            "task": {"requestJSONEncodable": {"body": "no title"}},
            "sampleResponse": {"networkResponse": {"statusCode": 201}}}
         ]}
        """

    /// A document with an unresolved reference (line 11).
    static let brokenSpec = """
        openapi: 3.0.3
        info: {title: Shop, version: "1"}
        paths:
          /users/{username}:
            get:
              responses:
                "200":
                  description: a user
                  content:
                    application/json:
                      schema: {$ref: "#/components/schemas/person"}
        """

    static func folder() throws -> ContractFolder {
        try ContractFolder(["contracts/shop.json": manifest, "openapi.yaml": spec])
    }

    static func tether(_ arguments: [String]) async throws -> TetherRun {
        try await offPool { try TetherBinary.run(arguments) }
    }

    /// Each target's drifts in a run's JSON lines (`--json FILE`), as `PATH CULPRIT` (`$.price stub`), in order.
    static func drifts(inJSONLines file: String) throws -> [String: [String]] {
        var drifts: [String: [String]] = [:]
        for line in try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n") {
            guard let record = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let name = record["target"] as? String, let findings = record["findings"] as? [[String: Any]]
            else { continue }
            drifts[name] = findings.filter { $0["kind"] as? String == "drift" }.map {
                "\($0["path"] as? String ?? "") \($0["culprit"] as? String ?? "none")"
            }
        }
        return drifts
    }

    @Test func offlineEachKindOfDriftIsFoundNamedAndBlamedOnTheStub() async throws {
        let folder = try Self.folder()
        let run = try await Self.tether([
            "verify", folder.file("contracts"), "--spec", folder.file("openapi.yaml"), "--offline", "--no-color",
            "--json", folder.file("run.jsonl"),
        ])
        #expect(run.exitCode == 1, "\(run.stdout)\(run.stderr)")
        let out = run.stdout
        #expect(out.contains("PASS  Shop.user"), "\(out)")
        // The operation missing, with the nearest one.
        #expect(
            out.contains(
                "stale stub: target: the spec has no GET /users/octocat/repos; did you mean GET "
                    + "/users/{username}/repositories?"), "\(out)")
        // An enum value the app does not know, a field the spec never promised, a query value past its maximum,
        // an undeclared query parameter: each with the schema's place.
        #expect(
            out.contains(#"stale stub: $[0].visibility: expected one of ["public","private"], got "internal""#),
            "\(out)")
        #expect(out.contains("stale stub: $[0].stars:"), "\(out)")
        #expect(
            out.contains("stale stub: query per_page: the query parameter 'per_page' is '200', outside its schema"),
            "\(out)")
        #expect(
            out.contains(
                "stale stub: query sort: GET /users/{username}/repositories declares no query parameter 'sort'"),
            "\(out)")
        #expect(out.contains("openapi.yaml:34:40 "), "the enum's line and column in the document: \(out)")
        #expect(out.contains("(the stub: \(folder.file("contracts/shop.json")):8:"), "the stub's value's place: \(out)")
        // A missing operation names the target's declaration in its manifest (line 5, its "name").
        #expect(
            out.contains("did you mean GET /users/{username}/repositories? (the spec: ")
                && out.contains("(the stub: \(folder.file("contracts/shop.json")):5:"), "\(out)")
        // A type drift; the ignored path is not checked against the spec either.
        #expect(out.contains("stale stub: $.login: expected string, got integer 7"), "\(out)")
        #expect(!out.contains("$.created_at"), "\(out)")
        // An undocumented status, and a request body the spec rejects (a drift, not a note).
        #expect(
            out.contains("stale stub: status: the spec documents no 410 response for GET /users/{username}"), "\(out)")
        #expect(
            out.contains(#"stale stub: target: the request body at $.title: missing required member "title""#), "\(out)"
        )
        #expect(out.contains("spec coverage ("), "\(out)")
        #expect(out.contains("3/3 operations, 3/4 responses"), "\(out)")

        // JSON lines carry the culprit and the spec's place for tools.
        let lines = try String(contentsOfFile: folder.file("run.jsonl"), encoding: .utf8).split(separator: "\n")
        let findings = try lines.compactMap { line -> [[String: Any]]? in
            let record = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return record?["findings"] as? [[String: Any]]
        }.flatMap { $0 }
        let drifts = findings.filter { $0["kind"] as? String == "drift" }
        #expect(!drifts.isEmpty)
        #expect(drifts.allSatisfy { $0["culprit"] as? String == "stub" }, "\(drifts)")
        #expect(drifts.allSatisfy { ($0["spec"] as? String)?.contains("openapi.yaml:") == true }, "\(drifts)")
    }

    @Test func theShippedExampleHoldsAgainstItsDocumentAndListsWhatNoTargetCovers() async throws {
        let root = FixturePaths.packageRoot
        let run = try await Self.tether([
            "verify", root.appendingPathComponent("contracts").path, "--spec",
            root.appendingPathComponent("contracts/github.openapi.yaml").path, "--offline", "--list-uncovered",
            "--no-color",
        ])
        #expect(run.exitCode == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("6 passed, 0 failed"), "\(run.stdout)")
        #expect(run.stdout.contains("5/5 operations, 5/14 responses"), "\(run.stdout)")
        #expect(run.stdout.contains("  GET /users/{username} 404"), "\(run.stdout)")
    }

    /// A key the stub has twice, offline: the stub's drift, at the place of the repeat, though both values fit the
    /// schema (JSONDecoder and JSONSerialization would read different ones).
    @Test func offlineAKeyTwiceIsTheStubs() async throws {
        let manifest = """
            {"service": "Shop", "baseURL": "http://127.0.0.1:9/v2",
             "targets": [{"name": "user", "path": "/users/octocat",
                          "sampleData": {"json": {"login": "octocat", "id": 1, "login": "hubot"}}}]}
            """
        let folder = try ContractFolder(["contracts/shop.json": manifest, "openapi.yaml": Self.spec])
        let run = try await Self.tether([
            "verify", folder.file("contracts"), "--spec", folder.file("openapi.yaml"), "--offline", "--no-color",
        ])
        #expect(run.exitCode == 1, "\(run.stdout)\(run.stderr)")
        #expect(
            run.stdout.contains(
                "stale stub: $.login: the stub has this key twice: JSONDecoder reads the first value, "
                    + "JSONSerialization the last; keep one (the check read the first) (the stub: "
                    + "\(folder.file("contracts/shop.json")):3:"), "\(run.stdout)")
    }

    /// `"spec"` in a manifest, relative to it: no `--spec` needed; a document that is not there is the manifest's error.
    @Test func aManifestNamesItsServicesDocument() async throws {
        let withSpec = Self.manifest.replacingOccurrences(
            of: #"{"service": "Shop", "#, with: #"{"service": "Shop", "spec": "../openapi.yaml", "#)
        let folder = try ContractFolder(["contracts/shop.json": withSpec, "openapi.yaml": Self.spec])
        let run = try await Self.tether(["verify", folder.file("contracts"), "--offline", "--no-color"])
        #expect(run.exitCode == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("did you mean GET /users/{username}/repositories?"), "\(run.stdout)")
        #expect(run.stdout.contains("3/3 operations, 3/4 responses"), "\(run.stdout)")

        let missing = try ContractFolder([
            "contracts/shop.json": withSpec.replacingOccurrences(of: "../openapi.yaml", with: "openapi.yml")
        ])
        let broken = try await Self.tether(["verify", missing.file("contracts"), "--offline", "--no-color"])
        #expect(broken.exitCode == 2, "\(broken.stdout)\(broken.stderr)")
        #expect(broken.stderr.contains("shop.json:1:"), "\(broken.stderr)")
        #expect(broken.stderr.contains("spec: 'openapi.yml' does not exist (looked for "), "\(broken.stderr)")

        // A broken document of a manifest's own is named as the manifest's, not as a --spec no one gave.
        try Self.brokenSpec.write(toFile: folder.file("openapi.yaml"), atomically: true, encoding: .utf8)
        let own = try await Self.tether(["verify", folder.file("contracts"), "--offline", "--no-color"])
        #expect(own.exitCode == 2, "\(own.stdout)\(own.stderr)")
        let last = own.stderr.split(separator: "\n").last ?? ""
        #expect(last.hasPrefix("tether: error: Shop's spec "), "\(own.stderr)")
        #expect(last.hasSuffix("openapi.yaml: 1 error; nothing was sent"), "\(own.stderr)")
    }

    /// The OpenAPI Initiative's links example: what Tether does not check (`links`) is said, never passed in silence;
    /// and a Swagger 2.0 document's body parameter and `basePath`.
    @Test func keywordsNotCheckedAreSaidAndSwagger20IsRead() async throws {
        let links = FixturePaths.fixture("spec/oai/v3.0/link-example.yaml")
        let petstore = FixturePaths.fixture("spec/oai/v2.0/yaml/petstore-simple.yaml")
        let folder = try ContractFolder([
            "links.json": """
            {"service": "Links", "baseURL": "http://127.0.0.1:9", "spec": "\(links)",
             "targets": [{"name": "user", "path": "/2.0/users/bob", "sampleData": {"json": {"username": "bob"}}}]}
            """,
            "pets.json": """
            {"service": "Pets", "baseURL": "http://petstore.swagger.io/api", "spec": "\(petstore)",
             "targets": [{"name": "add", "method": "POST", "path": "/pets", "task": {"requestJSONEncodable": {"tag": "t"}},
                          "sampleData": {"json": {"id": 1, "name": "rex"}}}]}
            """,
        ])
        let run = try await Self.tether(["verify", folder.path, "--offline", "--no-color"])
        #expect(run.exitCode == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("1/6 operations, 1/6 responses; not checked: links ×4"), "\(run.stdout)")
        #expect(run.stdout.contains("PASS  Links.user"), "\(run.stdout)")
        #expect(
            run.stdout.contains(#"stale stub: target: the request body at $.name: missing required member "name""#),
            "\(run.stdout)")
    }

    @Test func aBrokenDocumentIsExitTwoWithItsPlaceAndNothingIsChecked() async throws {
        let folder = try ContractFolder([
            "contracts/shop.json": Self.manifest,
            "openapi.yaml": Self.brokenSpec,
        ])
        let run = try await Self.tether([
            "verify", folder.file("contracts"), "--spec", folder.file("openapi.yaml"), "--offline", "--no-color",
        ])
        #expect(run.exitCode == 2, "\(run.stdout)\(run.stderr)")
        // In the compiler's form, as a contract error: editors, Xcode and CI problem matchers read it.
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 2, "\(run.stderr)")
        #expect(lines.first?.hasPrefix(folder.file("openapi.yaml") + ":11:") == true, "\(run.stderr)")
        #expect(
            lines.first?.contains(": error: unresolved $ref '#/components/schemas/person'") == true, "\(run.stderr)")
        #expect(
            lines.last == "tether: error: --spec \(folder.file("openapi.yaml")): 1 error; nothing was sent",
            "\(run.stderr)")
        #expect(!run.stdout.contains("PASS"), "\(run.stdout)")
    }

    @Test func contractErrorsAndABrokenDocumentAreNamedInOneRun() async throws {
        let folder = try ContractFolder([
            "contracts/shop.json": Self.manifest.replacingOccurrences(
                of: #""statusCode": 201"#, with: #""statusCode": 2010"#),
            "openapi.yaml": Self.brokenSpec,
        ])
        let run = try await Self.tether([
            "verify", folder.file("contracts"), "--spec", folder.file("openapi.yaml"), "--offline", "--no-color",
        ])
        #expect(run.exitCode == 2, "\(run.stdout)\(run.stderr)")
        let lines = run.stderr.split(separator: "\n").map(String.init)
        // The contract's error, then the document's, each in the compiler's form, then one message counting both.
        #expect(lines.count == 3, "\(run.stderr)")
        #expect(lines.first?.hasPrefix(folder.file("contracts/shop.json") + ":16:") == true, "\(run.stderr)")
        #expect(lines.first?.contains("error: ") == true && lines.first?.contains("2010") == true, "\(run.stderr)")
        #expect(lines.dropFirst().first?.hasPrefix(folder.file("openapi.yaml") + ":11:") == true, "\(run.stderr)")
        #expect(
            lines.last
                == "tether: error: 1 contract error, --spec \(folder.file("openapi.yaml")): 1 error; nothing was sent",
            "\(run.stderr)")
        #expect(run.stdout.isEmpty, "\(run.stdout)")

        // A sound document beside broken contracts adds nothing to their message.
        try Self.spec.write(toFile: folder.file("openapi.yaml"), atomically: true, encoding: .utf8)
        let sound = try await Self.tether([
            "verify", folder.file("contracts"), "--spec", folder.file("openapi.yaml"), "--offline", "--no-color",
        ])
        #expect(sound.exitCode == 2, "\(sound.stdout)\(sound.stderr)")
        #expect(
            sound.stderr.split(separator: "\n").last == "tether: error: 1 contract error; nothing was sent",
            "\(sound.stderr)")
    }

    @Test func everyBrokenDocumentIsNamedNotOnlyTheFirst() async throws {
        let folder = try ContractFolder([
            "contracts/shop.json": Self.manifest,
            "openapi.yaml": Self.brokenSpec,
            "shop.yaml": "openapi: 3.0.3\npaths: [\n",
        ])
        let run = try await Self.tether([
            "verify", folder.file("contracts"), "--spec", folder.file("openapi.yaml"), "--spec",
            "Shop=" + folder.file("shop.yaml"), "--offline", "--no-color",
        ])
        #expect(run.exitCode == 2, "\(run.stdout)\(run.stderr)")
        let lines = run.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(run.stderr)")
        #expect(lines.first?.hasPrefix(folder.file("openapi.yaml") + ":11:") == true, "\(run.stderr)")
        #expect(lines.dropFirst().first?.hasPrefix(folder.file("shop.yaml") + ":") == true, "\(run.stderr)")
        #expect(
            lines.last
                == "tether: error: --spec \(folder.file("openapi.yaml")): 1 error, --spec \(folder.file("shop.yaml")): 1 error; nothing was sent",
            "\(run.stderr)")
    }

    /// A schema that cannot be compiled stops a run that uses its operation, and only such a run: a provider's large
    /// document is compiled as far as the run's targets reach.
    @Test func anOperationNoTargetMatchesIsNotCompiled() async throws {
        let spec =
            Self.spec.replacingOccurrences(
                of: "  /issues:\n",
                with: """
                      /loops:
                        get:
                          responses:
                            "200":
                              description: a loop
                              content:
                                application/json:
                                  schema: {$ref: "#/components/schemas/loopA"}

                    """ + "  /issues:\n")
                + """

                    loopA: {$ref: "#/components/schemas/loopB"}
                    loopB: {allOf: [{$ref: "#/components/schemas/loopA"}]}
                """
        func manifest(_ targets: String) -> String {
            #"{"service": "Shop", "baseURL": "https://api.example.com/v2", "targets": ["#
                + #"{"name": "user", "path": "/users/octocat", "sampleData": {"json": {"login": "octocat", "id": 1}}}"#
                + targets + "]}"
        }
        let folder = try ContractFolder(["contracts/shop.json": manifest(""), "openapi.yaml": spec])
        let run = try await Self.tether([
            "verify", folder.file("contracts"), "--spec", folder.file("openapi.yaml"), "--offline", "--no-color",
        ])
        #expect(run.exitCode == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("PASS  Shop.user"), "\(run.stdout)")
        #expect(run.stdout.contains("1/4 operations"), "\(run.stdout)")

        try manifest(#", {"name": "loop", "path": "/loops", "sampleData": {"json": {}}}"#)
            .write(toFile: folder.file("contracts/shop.json"), atomically: true, encoding: .utf8)
        let loop = try await Self.tether([
            "verify", folder.file("contracts"), "--spec", folder.file("openapi.yaml"), "--offline", "--no-color",
        ])
        #expect(loop.exitCode == 2, "\(loop.stdout)\(loop.stderr)")
        #expect(loop.stderr.contains(": error: #/components/schemas/"), "\(loop.stderr)")
        #expect(loop.stderr.contains("a cycle of schemas that apply to the same value"), "\(loop.stderr)")
        #expect(!loop.stdout.contains("PASS"), "\(loop.stdout)")
    }

    @Test func optionsThatDoNotFitAreExitTwoSayingWhatToDo() async throws {
        let folder = try Self.folder()
        let offline = try await Self.tether(["verify", folder.file("contracts"), "--offline"])
        #expect(offline.exitCode == 2)
        #expect(offline.stderr.contains("add --spec FILE"), "\(offline.stderr)")
        let service = try await Self.tether([
            "verify", folder.file("contracts"), "--spec", "Shopp=" + folder.file("openapi.yaml"), "--offline",
        ])
        #expect(service.exitCode == 2)
        #expect(
            service.stderr.contains("no selected target is of the service 'Shopp' (services: Shop)"),
            "\(service.stderr)")
        let culprits = try await Self.tether([
            "verify", folder.file("contracts"), "--spec", folder.file("openapi.yaml"), "--offline", "--fail-on",
            "stub,server",
        ])
        #expect(culprits.exitCode == 2)
        #expect(culprits.stderr.contains("'server' is none"), "\(culprits.stderr)")
    }

    /// The triangle, live: a service on 127.0.0.1 and a 3.0 document; each target is one row of the culprit table.
    static let itemsSpec = """
        openapi: 3.0.3
        info: {title: Items, version: "1"}
        paths:
          /items/{id}:
            get:
              parameters:
                - {name: id, in: path, required: true, schema: {type: integer}}
              responses:
                "200":
                  description: an item
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [id, state]
                        properties:
                          id: {type: integer}
                          state: {type: string, enum: [open, closed]}
                          price: {type: number}
                          note: {type: string, nullable: true}
        """

    static func itemsServer() throws -> MockServer {
        try MockServer { request in
            switch request.path {
            case "/items/1": .json(#"{"id": 1, "state": "open", "price": 12.5}"#)
            case "/items/2": .json(#"{"id": 2, "state": "merged", "price": "1.0"}"#)
            case "/items/3": .json(#"{"id": 3, "state": "open", "color": "red"}"#)
            case "/items/4": .json(#"{"id": 4, "state": "open", "note": null}"#)
            default: .json(#"{"message": "not found"}"#, status: 404)
            }
        }
    }

    static func itemsManifest(_ server: MockServer) -> String {
        """
        {"service": "Items", "baseURL": "\(server.baseURL)",
         "targets": [
           {"name": "staleStub", "path": "/items/1", "sampleData": {"json": {"id": 1, "state": "open", "price": "12.50"}}},
           {"name": "serviceBreaks", "path": "/items/2", "sampleData": {"json": {"id": 2, "state": "open", "price": 1.5}}},
           {"name": "specOutOfDate", "path": "/items/3", "sampleData": {"json": {"id": 3, "state": "open", "color": "blue"}}},
           {"name": "lacksTheRule", "path": "/items/4", "sampleData": {"json": {"id": 4, "state": "open", "note": "n"}}},
           {"name": "noSuchOperation", "path": "/things/5", "sampleData": {"json": {"id": 5}}}
         ]}
        """
    }

    @Test func liveEachFindingSaysWhichSideDrifted() async throws {
        let server = try Self.itemsServer()
        let folder = try ContractFolder([
            "contracts/items.json": Self.itemsManifest(server), "openapi.yaml": Self.itemsSpec,
        ])
        let run = try await Self.tether([
            "verify", folder.file("contracts"), "--spec", folder.file("openapi.yaml"), "--no-color", "--json",
            folder.file("run.jsonl"), "--summary", folder.file("summary.md"), "--html", folder.file("report.html"),
        ])
        #expect(run.exitCode == 1, "\(run.stdout)\(run.stderr)")
        let drifts = try Self.drifts(inJSONLines: folder.file("run.jsonl"))
        func culprits(_ target: String) -> [String] { drifts[target] ?? [] }
        // Stub and live differ, the live answer fits: the stub is stale.
        #expect(culprits("staleStub") == ["$.price stub"], "\(run.stdout)")
        // The stub fits, the live answer does not: an enum value the app would crash on, a type.
        #expect(Set(culprits("serviceBreaks")) == ["$.price service", "$.state service"], "\(run.stdout)")
        // Stub and live agree on a field the spec never declared: the spec is out of date.
        #expect(culprits("specOutOfDate") == ["$.color spec"], "\(run.stdout)")
        // A null the spec allows where the stub has a value: the stub lacks the rule.
        #expect(culprits("lacksTheRule") == ["$.note stub"], "\(run.stdout)")
        // No such operation in the spec, and the service answers 404: the stub.
        #expect(
            culprits("noSuchOperation").allSatisfy { $0.hasSuffix(" stub") } && !culprits("noSuchOperation").isEmpty)
        #expect(run.stdout.contains("service breaks its spec: $.state:"), "\(run.stdout)")
        #expect(run.stdout.contains("spec out of date: $.color:"), "\(run.stdout)")
        let summary = try String(contentsOfFile: folder.file("summary.md"), encoding: .utf8)
        #expect(summary.contains("| Target | Outcome | Culprit | First findings |"), "\(summary)")
        #expect(summary.contains("| `Items.specOutOfDate` | DRIFT | spec out of date | "), "\(summary)")
        let junit = try #require(run.junit)
        #expect(junit.contains(#"<property name="tether.specCoverage" value="spec coverage ("#), "\(junit)")
        #expect(junit.contains("service breaks its spec: $.price"), "\(junit)")

        // The HTML report's badges, rendered by Chromium: the service's in its own colour.
        if VerifyReportsTests.chromium != nil {
            let html = folder.file("report.html")
            let dom = try await VerifyReportsTests.chromiumRun(
                ["--dump-dom", "file://\(html)"], profile: folder.file("p1"))
            #expect(dom.status == 0, "\(dom.stderr)")
            #expect(dom.stdout.contains(#"<span class="culprit service">service breaks its spec</span>"#))
            #expect(dom.stdout.contains(#"<span class="culprit spec">spec out of date</span>"#))
            #expect(dom.stdout.contains(#"<p class="meta spec">spec coverage ("#))
            let shot = folder.file("shot.png")
            let render = try await VerifyReportsTests.chromiumRun(
                ["--screenshot=\(shot)", "--window-size=1200,2000", "file://\(html)"], profile: folder.file("p2"))
            #expect(render.status == 0, "\(render.stderr)")
            let python = try #require(executableOnPath("python3"))
            let counted = try await VerifyReportsTests.tool(
                python, ["-c", VerifyReportsTests.pngColorCounter, shot, "8250df"])
            #expect((Int(counted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) > 50, "\(counted)")
        }

        // --fail-on service: the stale stubs and the spec still drift in the report, only the service fails the gate.
        let serviceOnly = try await Self.tether([
            "verify", folder.file("contracts"), "--spec", folder.file("openapi.yaml"), "--fail-on", "service",
            "--filter", "Items.staleStub", "--filter", "Items.specOutOfDate", "--no-color",
        ])
        #expect(serviceOnly.exitCode == 0, "\(serviceOnly.stdout)\(serviceOnly.stderr)")
        #expect(serviceOnly.stdout.contains("DRIFT Items.staleStub"), "\(serviceOnly.stdout)")

        // --fail-fast stops at the first drift that fails the gate: with --fail-on service, not at the stale stub
        // (the first target), but at the service's drift after it; the targets after that are not run.
        let failFast = try await Self.tether([
            "verify", folder.file("contracts"), "--spec", folder.file("openapi.yaml"), "--fail-on", "service",
            "--fail-fast", "--jobs", "1", "--no-color",
        ])
        #expect(failFast.exitCode == 1, "\(failFast.stdout)\(failFast.stderr)")
        #expect(failFast.stdout.contains("DRIFT Items.staleStub"), "\(failFast.stdout)")
        #expect(failFast.stdout.contains("DRIFT Items.serviceBreaks"), "\(failFast.stdout)")
        #expect(
            failFast.stdout.contains(
                "SKIP  Items.specOutOfDate  0.000s  not run: --fail-fast stopped the run at the first drift "
                    + "(Items.serviceBreaks)"), "\(failFast.stdout)")
    }

    /// Response headers against the spec, offline and live: a value outside its header's schema, a required header
    /// missing (a note for a stub, a drift for the service), and `Content-Type`, whose header object OpenAPI ignores.
    static let pagesSpec = """
        openapi: 3.0.3
        info: {title: Pages, version: "1"}
        paths:
          /pages/{n}:
            get:
              parameters:
                - {name: n, in: path, required: true, schema: {type: integer}}
              responses:
                "200":
                  description: a page
                  headers:
                    X-Total-Count: {required: true, schema: {type: integer, minimum: 0}}
                    X-Page-Kind: {schema: {type: string, enum: [first, middle, last]}}
                    Set-Cookie: {schema: {type: string, pattern: "^session=[0-9]+$"}}
                    Content-Type: {required: true, schema: {type: integer}}
                  content:
                    application/json:
                      schema: {type: object}
        """

    static func pagesManifest(_ baseURL: String) -> String {
        """
        {"service": "Pages", "baseURL": "\(baseURL)",
         "targets": [
           {"name": "holds", "path": "/pages/1", "sampleData": {"json": {}},
            "sampleResponse": {"response": {"statusCode": 200, "headers": {"X-Total-Count": "12", "X-Page-Kind": "first"}}}},
           {"name": "stubBreaks", "path": "/pages/1", "sampleData": {"json": {}},
            "sampleResponse": {"response": {"statusCode": 200, "headers": {"X-Total-Count": "12", "X-Page-Kind": "opening",
                                                                "Set-Cookie": "session=s3cr3t-cookie"}}}},
           {"name": "serviceBreaks", "path": "/pages/2", "sampleData": {"json": {}},
            "sampleResponse": {"response": {"statusCode": 200, "headers": {"X-Page-Kind": "middle"}}}},
           {"name": "serviceOmits", "path": "/pages/3", "sampleData": {"json": {}}}
         ]}
        """
    }

    @Test func responseHeadersAreCheckedAgainstTheirSchemas() async throws {
        let offlineFolder = try ContractFolder([
            "contracts/pages.json": Self.pagesManifest("http://127.0.0.1:9"), "openapi.yaml": Self.pagesSpec,
        ])
        let offline = try await Self.tether([
            "verify", offlineFolder.file("contracts"), "--spec", offlineFolder.file("openapi.yaml"), "--offline",
            "--no-color", "--verbose",
        ])
        #expect(offline.exitCode == 1, "\(offline.stdout)\(offline.stderr)")
        let out = offline.stdout
        #expect(out.contains("PASS  Pages.holds"), "\(out)")
        #expect(
            out.contains(
                #"stale stub: header X-Page-Kind: the stub's header 'X-Page-Kind' is 'opening', outside its schema: "#
                    + #"expected one of ["first","middle","last"]"#), "\(out)")
        #expect(out.contains("openapi.yaml:13:56 "), "the enum's place: \(out)")
        // A stub without a required header: a note (the app may not read it), never a drift.
        #expect(
            out.contains(
                "note: stale stub: header X-Total-Count: the 200 response of GET /pages/{n} requires the header "
                    + "'X-Total-Count'; the stub's answer has none"), "\(out)")
        #expect(out.contains("DRIFT Pages.stubBreaks") && !out.contains("DRIFT Pages.serviceBreaks"), "\(out)")
        #expect(!out.contains("Content-Type"), "OpenAPI ignores a Content-Type header object: \(out)")
        #expect(
            out.contains("the stub's header 'Set-Cookie' is outside its schema (a credential: its value is not shown)")
                && !out.contains("s3cr3t"), "\(out)")

        let server = try MockServer { request in
            let json = HTTPHeader("Content-Type", "application/json")
            switch request.path {
            case "/pages/1":
                return MockResponse(
                    headers: [json, HTTPHeader("X-Total-Count", "12"), HTTPHeader("X-Page-Kind", "first")],
                    body: Data("{}".utf8))
            case "/pages/2":
                return MockResponse(
                    headers: [json, HTTPHeader("X-Total-Count", "many"), HTTPHeader("X-Page-Kind", "middle")],
                    body: Data("{}".utf8))
            default:
                return MockResponse(headers: [json, HTTPHeader("X-Page-Kind", "last")], body: Data("{}".utf8))
            }
        }
        let folder = try ContractFolder([
            "contracts/pages.json": Self.pagesManifest(server.baseURL), "openapi.yaml": Self.pagesSpec,
        ])
        let live = try await Self.tether([
            "verify", folder.file("contracts"), "--spec", folder.file("openapi.yaml"), "--no-color", "--json",
            folder.file("run.jsonl"),
        ])
        #expect(live.exitCode == 1, "\(live.stdout)\(live.stderr)")
        let drifts = try Self.drifts(inJSONLines: folder.file("run.jsonl"))
        #expect(drifts["holds"] == [], "\(live.stdout)")
        // The stub's value is not the live one, which fits: a stale stub.
        #expect(drifts["stubBreaks"] == ["header X-Page-Kind stub", "header Set-Cookie stub"], "\(live.stdout)")
        #expect(!live.stdout.contains("s3cr3t"), "\(live.stdout)")
        // The service sends a value outside the schema, or leaves out a header the spec requires.
        #expect(drifts["serviceBreaks"] == ["header X-Total-Count service"], "\(live.stdout)")
        #expect(drifts["serviceOmits"] == ["header X-Total-Count service"], "\(live.stdout)")
        #expect(
            live.stdout.contains(
                "service breaks its spec: header X-Total-Count: the service's header 'X-Total-Count' is 'many', "
                    + "outside its schema"), "\(live.stdout)")
    }
}
