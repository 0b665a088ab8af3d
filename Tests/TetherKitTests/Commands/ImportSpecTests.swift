import Foundation
import Testing

@testable import TetherEngine
@testable import TetherKit

/// `tether import --spec`: targets from an OpenAPI document's examples, through the built binary, then `tether verify
/// --spec --offline` on what it wrote.
@Suite struct ImportSpecTests {
    static let spec = """
        openapi: 3.0.3
        info: {title: Shop, version: "1"}
        servers: [{url: "https://api.example.com/v2"}]
        paths:
          /users/{username}:
            get:
              operationId: users/get-by-username
              tags: [users]
              parameters:
                - {name: username, in: path, required: true, schema: {type: string}, example: octocat}
              responses:
                "200":
                  description: a user
                  content:
                    application/json:
                      schema:
                        type: object
                        properties: {login: {type: string}, id: {type: integer}}
                      examples:
                        octocat: {value: {login: octocat, id: 1}}
                "404":
                  description: no such user
                  content:
                    application/json:
                      schema: {type: object, properties: {message: {type: string}}}
                      example: {message: Not Found}
                default:
                  description: an error
          /orders/{id}:
            get:
              tags: [orders]
              parameters:
                - {name: id, in: path, required: true, schema: {type: integer}}
              responses:
                "200":
                  description: an order
                  content:
                    application/json:
                      example: {id: 7}
          /orders:
            post:
              tags: [orders]
              requestBody:
                required: true
                content:
                  application/json:
                    schema: {type: object}
              responses:
                "201": {description: created}
        """

    @Test func examplesBecomeTargetsAndWhatHasNoneIsListed() async throws {
        let folder = try ContractFolder(["openapi.yaml": Self.spec])
        let out = folder.file("contracts")
        let spec = folder.file("openapi.yaml")
        let run = try await offPool {
            try TetherBinary.run(["import", "--spec", spec, "--service", "Shop", "--out", out])
        }
        #expect(run.exitCode == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("2 targets of https://api.example.com/v2"), "\(run.stdout)")
        // Listed, not invented: a default response, an id with no example, a required body with none.
        #expect(run.stdout.contains("GET /users/{username} default: a range or default"), "\(run.stdout)")
        #expect(
            run.stdout.contains("GET /orders/{id}: no example for the required path parameter 'id'"), "\(run.stdout)")
        #expect(run.stdout.contains("POST /orders: no JSON example for its required request body"), "\(run.stdout)")

        let manifest = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: out + "/shop.json")))
        guard case .array(let targets)? = manifest["targets"] else {
            Issue.record("no targets in \(manifest)")
            return
        }
        #expect(
            targets.map { $0["name"] } == [.string("usersGetByUsername"), .string("usersGetByUsername_404")])
        #expect(targets.first?["path"] == .string("/users/octocat"))
        let sample = try JSONValue.parse(
            Data(contentsOf: URL(fileURLWithPath: out + "/samples/shop/usersGetByUsername.json")))
        #expect(sample == .object([JSONMember("login", .string("octocat")), JSONMember("id", .integer(1))]))

        // What it wrote holds against the document it came from.
        let verify = try await offPool {
            try TetherBinary.run(["verify", out, "--spec", spec, "--offline", "--no-color"])
        }
        #expect(verify.exitCode == 0, "\(verify.stdout)\(verify.stderr)")
        #expect(verify.stdout.contains("2 passed, 0 failed"), "\(verify.stdout)")

        // Imported again into the same folder: refused, nothing written, in the words a HAR import uses, after the
        // same notes.
        let written = try Data(contentsOf: URL(fileURLWithPath: out + "/shop.json"))
        let again = try await offPool {
            try TetherBinary.run(["import", "--spec", spec, "--service", "Shop", "--out", out])
        }
        #expect(again.exitCode == 2, "\(again.stdout)\(again.stderr)")
        #expect(
            again.stderr.contains(
                "\(out)/shop.json exists already: nothing was written; remove it, or import into another --out folder"),
            "\(again.stderr)")
        #expect(again.stdout.contains("GET /orders/{id}: no example for the required path parameter 'id'"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: out + "/shop.json")) == written)

        // --tag keeps the operations of a tag: the orders have none to import.
        let tagged = try await offPool {
            try TetherBinary.run([
                "import", "--spec", spec, "--service", "Orders", "--out", out, "--tag", "orders",
            ])
        }
        #expect(tagged.exitCode == 2, "\(tagged.stdout)\(tagged.stderr)")
        #expect(tagged.stderr.contains("nothing imported"), "\(tagged.stderr)")
        // A tag no operation has is named, with the document's own; a bad or credentialed --base-url is refused
        // (a password would be written into the contract file, and is not printed either).
        let odd = folder.file("odd")
        for (extra, expected) in [
            (["--tag", "nosuchtag"], "no operation has the tag 'nosuchtag' (its tags: "),
            (["--base-url", "ftp://x.test"], "--base-url: 'ftp://x.test' is not an http or https URL"),
            (["--base-url", "https://u:BASEPW_777@ok.test"], "--base-url: the base URL has a user or a password"),
        ] {
            let refused = try await offPool {
                try TetherBinary.run(
                    ["import", "--spec", spec, "--service", "Odd", "--out", odd] + extra)
            }
            #expect(refused.exitCode == 2, "\(refused.stdout)\(refused.stderr)")
            #expect(refused.stderr.contains(expected), "\(refused.stderr)")
            #expect(!(refused.stdout + refused.stderr).contains("BASEPW_777"))
            #expect(!FileManager.default.fileExists(atPath: odd))
        }
    }

    /// The OpenAPI Initiative's example with response examples and no servers: `--base-url` gives the manifest one.
    /// A response's example named N takes the parameters' and request body's examples named N (Specmatic's and
    /// Microcks' convention), so a 404 gets a request of its own; a response whose request would be another's is still
    /// imported, with a line that says how to give it its own.
    @Test func aNamedExampleTakesTheParametersExampleOfItsName() throws {
        let document = try SpecDocumentTests.load(
            """
            openapi: 3.0.3
            servers: [{url: "https://api.example.com"}]
            paths:
              /pets/{id}:
                get:
                  operationId: getPet
                  parameters:
                    - name: id
                      in: path
                      required: true
                      schema: {type: integer}
                      examples: {found: {value: 1}, missing: {value: 999}}
                  responses:
                    "200":
                      description: a pet
                      content: {application/json: {examples: {found: {value: {id: 1}}}}}
                    "404":
                      description: none
                      content: {application/json: {examples: {missing: {value: {message: gone}}}}}
              /toys/{id}:
                put:
                  operationId: putToy
                  parameters: [{name: id, in: path, required: true, schema: {type: integer}, example: 3}]
                  requestBody:
                    content:
                      application/json:
                        examples: {fine: {value: {name: ball}}, bad: {value: {name: ""}}}
                  responses:
                    "200":
                      description: ok
                      content: {application/json: {examples: {fine: {value: {id: 3}}}}}
                    "400":
                      description: bad
                      content: {application/json: {examples: {bad: {value: {message: empty name}}}}}
                    "404":
                      description: none
                      content: {application/json: {example: {message: gone}}}
            """)
        let imported = try SpecImport(document: document, service: "Pets")
        guard case .array(let targets)? = imported.manifest.manifest["targets"] else {
            Issue.record("no targets in \(imported.manifest.manifest)")
            return
        }
        let requests = targets.map { target in
            [target["name"], target["path"], target["task"]?["requestJSONEncodable"]?["name"]].map {
                $0.map { String(decoding: $0.serialized(), as: UTF8.self) } ?? "-"
            }.joined(separator: " ")
        }
        #expect(
            requests == [
                #""getPet" "/pets/1" -"#, #""getPet_404" "/pets/999" -"#, #""putToy" "/toys/3" "ball""#,
                #""putToy_400" "/toys/3" """#, #""putToy_404" "/toys/3" "ball""#,
            ], "\(requests)")
        #expect(
            imported.messages == [
                "openapi.yaml:22:7: PUT /toys/{id} 404: imported, but putToy_404 sends the same request as putToy, which "
                    + "a live service answers one way; for a request of its own, give its parameters (or request body) "
                    + "examples of one name, and its response's example that name (under examples)"
            ], "\(imported.messages)")
    }

    @Test func theOAIExampleImportsWithABaseURL() async throws {
        let folder = try ContractFolder([:])
        let spec = FixturePaths.fixture("spec/oai/v3.0/api-with-examples.yaml")
        let (first, second) = (folder.file("a"), folder.file("b"))
        let without = try await offPool {
            try TetherBinary.run(["import", "--spec", spec, "--service", "Versions", "--out", first])
        }
        #expect(without.exitCode == 2)
        #expect(without.stderr.contains("no absolute server URL"), "\(without.stderr)")
        let run = try await offPool {
            try TetherBinary.run([
                "import", "--spec", spec, "--service", "Versions", "--out", second, "--base-url",
                "http://127.0.0.1:9",
            ])
        }
        #expect(run.exitCode == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("4 targets"), "\(run.stdout)")
        let verify = try await offPool {
            try TetherBinary.run(["verify", second, "--spec", spec, "--offline", "--no-color"])
        }
        #expect(verify.exitCode == 0, "\(verify.stdout)\(verify.stderr)")
    }

    /// A document that cannot be read: its problems in the compiler's form, as `verify --spec` prints them; nothing
    /// written.
    @Test func aBrokenDocumentIsExitTwoInTheCompilersForm() async throws {
        let folder = try ContractFolder(["openapi.yaml": "openapi: 3.0.3\npaths:\n  /u:\n    get: {responses: [\n"])
        let spec = folder.file("openapi.yaml")
        let out = folder.file("out")
        let run = try await offPool {
            try TetherBinary.run(["import", "--spec", spec, "--service", "Shop", "--out", out])
        }
        #expect(run.exitCode == 2, "\(run.stdout)\(run.stderr)")
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 2, "\(run.stderr)")
        #expect(lines.first?.hasPrefix(spec + ":5:1: error: not valid YAML: ") == true, "\(run.stderr)")
        #expect(lines.last == "tether: error: --spec \(spec): 1 error; nothing was written", "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
