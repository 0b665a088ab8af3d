import Foundation
import Testing

@testable import TetherEngine
@testable import TetherKit

/// Documents held in memory: versions, `$ref` to the same file and to relative files, the errors (all collected),
/// cycles and recursive schemas, and the model (servers, parameters merged, bodies, responses, examples, keywords not
/// read).
@Suite struct SpecDocumentTests {
    /// Loads `files[root]`; `reads` counts each file's reads.
    final class Files: @unchecked Sendable {
        let files: [String: String]
        var reads: [String: Int] = [:]
        init(_ files: [String: String]) { self.files = files }
        func load(_ root: String) throws(SpecError) -> SpecDocument {
            try SpecDocument.load(file: root) { path in
                self.reads[path, default: 0] += 1
                guard let text = self.files[path] else { throw CocoaError(.fileReadNoSuchFile) }
                return Data(text.utf8)
            }
        }
    }

    static func load(_ text: String, file: String = "openapi.yaml") throws(SpecError) -> SpecDocument {
        try Files([file: text]).load(file)
    }

    static func problems(_ files: [String: String], root: String = "openapi.yaml") -> [SpecProblem] {
        do {
            _ = try Files(files).load(root)
            return []
        } catch {
            return error.problems
        }
    }

    // MARK: - Versions

    @Test(arguments: [
        ("swagger: '2.0'\npaths: {}", SpecVersion.swagger20, "2.0"),
        ("swagger: 2.0\npaths: {}", .swagger20, "2.0"),
        ("openapi: 3.0.3\npaths: {}", .openAPI30, "3.0.3"),
        ("openapi: 3.0.0\npaths: {}", .openAPI30, "3.0.0"),
        ("openapi: 3.1.0\ninfo: {title: t, version: '1'}", .openAPI31, "3.1.0"),
        ("{\"openapi\": \"3.1.1\", \"paths\": {}}", .openAPI31, "3.1.1"),
    ])
    func versions(_ text: String, _ version: SpecVersion, _ written: String) throws {
        let document = try Self.load(text)
        #expect(document.version == version)
        #expect(document.versionText == written)
    }

    @Test(arguments: [
        (
            "openapi: 3.2.0\npaths: {}",
            "openapi.yaml:1:10: openapi '3.2.0' is not a version tether reads (2.0, 3.0.x, 3.1.x)"
        ),
        ("openapi: 3.1\npaths: {}", "openapi.yaml:1:10: openapi 3.1 is a number, not a version string"),
        ("swagger: '1.2'\npaths: {}", "openapi.yaml:1:10: swagger '1.2' is not a version tether reads"),
        (
            "info: {title: t}\npaths: {}",
            "openapi.yaml:1:1: not an OpenAPI document: no 'openapi' or 'swagger' at its top"
        ),
        ("- openapi: 3.1.0", "openapi.yaml:1:1: not an OpenAPI document: the top is an array"),
        ("openapi: 3.0.x\npaths: {}", "openapi.yaml:1:10: openapi '3.0.x' is not a version"),
    ])
    func unsupportedVersions(_ text: String, _ message: String) {
        let problems = Self.problems(["openapi.yaml": text])
        #expect(problems.count == 1)
        #expect(problems.first?.description.hasPrefix(message) == true, "\(problems)")
    }

    // MARK: - References

    static let separate: [String: String] = [
        "specs/openapi.yaml": """
        openapi: 3.0.3
        paths:
          /users/{id}:
            get:
              responses:
                '200':
                  description: ok
                  content:
                    application/json:
                      schema: {$ref: 'common/schemas.yaml#/User'}
                default:
                  $ref: '../shared/errors.json#/responses/Error'
        """,
        "specs/common/schemas.yaml": """
        User:
          type: object
          properties:
            address: {$ref: '#/Address'}
            team: {$ref: './teams.yaml#/Team'}
        Address:
          type: string
        """,
        "specs/common/teams.yaml": "Team:\n  type: object\n  properties:\n    lead: {$ref: 'schemas.yaml#/User'}\n",
        "shared/errors.json": """
        {"responses": {"Error": {"description": "error",
          "content": {"application/json": {"schema": {"$ref": "#/schemas/Error"}}}}},
         "schemas": {"Error": {"type": "object"}}}
        """,
    ]

    @Test func referencesAcrossFilesAreReadOnceAndResolved() throws {
        let files = Files(Self.separate)
        let document = try files.load("specs/openapi.yaml")
        #expect(
            files.reads == [
                "specs/openapi.yaml": 1, "specs/common/schemas.yaml": 1, "specs/common/teams.yaml": 1,
                "shared/errors.json": 1,
            ])
        #expect(
            document.files == [
                "shared/errors.json", "specs/common/schemas.yaml", "specs/common/teams.yaml", "specs/openapi.yaml",
            ])
        let operation = try #require(document.operations.first)
        let schema = try #require(operation.responses.first?.content.first?.schema)
        let user = try document.resolved(schema)
        #expect(user.place == SpecPlace(file: "specs/common/schemas.yaml", pointer: "#/User", line: 2, column: 3))
        // A reference inside another file is relative to that file.
        let team = try document.resolved(try #require(user["properties"]?["team"]))
        #expect(team.place.description == "specs/common/teams.yaml:2:3")
        let lead = try #require(team["properties"]?["lead"]?["$ref"])
        #expect(try document.resolve("schemas.yaml#/User", at: lead.place).place.file == "specs/common/schemas.yaml")
        // The default response was a $ref into a JSON file; its schema's $ref resolves there.
        let error = try #require(operation.responses.last)
        #expect(error.status == "default")
        #expect(
            error.node.place == SpecPlace(file: "shared/errors.json", pointer: "#/responses/Error", line: 1, column: 25)
        )
        let errorSchema = try #require(error.content.first?.schema)
        #expect(try document.resolved(errorSchema).place.pointer == "#/schemas/Error")
        // The resolver, as the schema check will call it.
        let resolver = document.resolver
        #expect(try resolver("#/Address", user.place).value == .object([JSONMember("type", .string("string"))]))
    }

    @Test func unresolvedReferencesAreAllReportedWithWhereTheyAreUsed() {
        var files = Self.separate
        files["specs/openapi.yaml"] = files["specs/openapi.yaml"]?
            .replacingOccurrences(of: "common/schemas.yaml#/User", with: "common/schemas.yaml#/Usr")
            .replacingOccurrences(of: "../shared/errors.json", with: "../shared/missing.json")
        let problems = Self.problems(files, root: "specs/openapi.yaml")
        #expect(problems.map(\.reason) == [.unresolvedReference, .unresolvedReference])
        #expect(
            problems.map(\.description).sorted() == [
                "specs/openapi.yaml:10:30: unresolved $ref 'common/schemas.yaml#/Usr': specs/common/schemas.yaml (its root) has no member 'Usr' at #/paths/~1users~1{id}/get/responses/200/content/application~1json/schema; did you mean 'User'?",
                "specs/openapi.yaml:12:17: unresolved $ref '../shared/missing.json#/responses/Error': cannot read 'shared/missing.json': no such file at #/paths/~1users~1{id}/get/responses/default; check the path (a $ref's file is relative to the file it is written in)",
            ])
    }

    @Test(arguments: [
        ("$ref: 'https://example.com/schemas.yaml#/User'", "tether reads only local files"),
        ("$ref: '#User'", "the fragment '#User' is not a JSON pointer"),
        (
            "$ref: '#/components/schemas/User/properties/id/type/0'",
            "/components/schemas/User/properties/id/type is a string, not an object or array"
        ),
        ("$ref: '#/components/schemas/List/items/3'", "has no element '3' (it has 1)"),
        ("$ref: '#/components/schemas/Nope'", "has no member 'Nope'"),
    ])
    func unresolvable(_ reference: String, _ message: String) {
        let text = """
            openapi: 3.1.0
            paths:
              /u:
                get:
                  responses:
                    '200':
                      description: ok
                      content: {application/json: {schema: {\(reference)}}}
            components:
              schemas:
                User: {properties: {id: {type: integer}}}
                List: {items: [{type: string}]}
            """
        let problems = Self.problems(["openapi.yaml": text])
        #expect(problems.count == 1)
        #expect(problems.first?.reason == .unresolvedReference)
        #expect(problems.first?.line == 8)
        #expect(problems.first?.message.contains(message) == true, "\(problems)")
    }

    /// A document cannot have a run read (and quote in a report) a file outside its git work tree, or its folder
    /// outside one: a `..` path, an absolute path, a link that leads out.
    /// A document named through `..` (`spec/../spec/openapi.yaml`) reads its own files: the folder a `$ref` may read
    /// is normalized as the files' paths are (an unnormalized folder refused them as outside it).
    @Test func aDocumentNamedThroughDotDotReadsItsOwnFiles() throws {
        let folder = NSTemporaryDirectory() + "tether-spec-dotdot-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/spec", withIntermediateDirectories: true)
        try Data("ok: {description: ok}\n".utf8).write(to: URL(fileURLWithPath: folder + "/spec/common.yaml"))
        let document = """
            openapi: 3.0.3
            info: {title: t, version: "1"}
            paths:
              /a: {get: {responses: {"200": {$ref: "common.yaml#/ok"}}}}
            """
        try Data(document.utf8).write(to: URL(fileURLWithPath: folder + "/spec/openapi.yaml"))
        let spec = try SpecDocument.load(contentsOf: folder + "/spec/../spec/openapi.yaml")
        #expect(spec.operations.map(\.name) == ["GET /a"])
        #expect(spec.operations.first?.responses.map(\.status) == ["200"])
    }

    @Test func aReferenceReadsNoFileOutsideTheDocumentsTree() throws {
        let folder = NSTemporaryDirectory() + "tether-spec-outside-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/spec", withIntermediateDirectories: true)
        try Data("TOKEN_abc123secret\n".utf8).write(to: URL(fileURLWithPath: folder + "/secret.txt"))
        try FileManager.default.createSymbolicLink(
            atPath: folder + "/spec/link.yaml", withDestinationPath: "../secret.txt")
        try Data("type: string\n".utf8).write(to: URL(fileURLWithPath: folder + "/spec/inside.yaml"))
        let document = """
            openapi: 3.0.3
            info: {title: t, version: "1"}
            paths:
              /a:
                get:
                  responses:
                    "200":
                      description: ok
                      content:
                        application/json:
                          schema:
                            properties:
                              up: {$ref: "../secret.txt"}
                              absolute: {$ref: "\(folder)/secret.txt"}
                              link: {$ref: "link.yaml"}
                              inside: {$ref: "inside.yaml"}
            """
        try Data(document.utf8).write(to: URL(fileURLWithPath: folder + "/spec/openapi.yaml"))
        do {
            _ = try SpecDocument.load(contentsOf: folder + "/spec/openapi.yaml")
            Issue.record("loaded")
        } catch {
            let text = error.problems.map(\.description).joined(separator: "\n")
            #expect(error.problems.count == 3, "\(text)")
            #expect(!text.contains("TOKEN_abc123secret"), "\(text)")
            #expect(
                text.contains(
                    "'\(folder)/secret.txt' is outside '\(folder)/spec': a $ref reads files of the document's git work "
                        + "tree (or, outside one, of its folder) only"), "\(text)")
            #expect(text.contains("'\(folder)/spec/link.yaml' is outside '\(folder)/spec' through a link"), "\(text)")
        }
    }

    @Test func pointerEscapingAndPercentEncoding() throws {
        let document = try Self.load(
            """
            openapi: 3.0.3
            paths:
              /users/{id}:
                parameters: [{name: id, in: path, required: true, schema: {type: string}}]
                get: {responses: {'200': {description: ok}}}
              /a:
                get:
                  parameters:
                  - $ref: '#/paths/~1users~1%7Bid%7D/parameters/0'
                  - $ref: '#/components/parameters/a~0b'
                  responses: {'200': {description: ok}}
            components:
              parameters:
                a~b: {name: q, in: query, schema: {type: integer}}
            """)
        let parameters = try #require(document.operations.last?.parameters)
        #expect(parameters.map(\.name) == ["id", "q"])
        #expect(
            parameters.map(\.node.pointer) == ["#/paths/~1users~1{id}/parameters/0", "#/components/parameters/a~0b"])
        #expect(parameters.last?.node.place.line == 14)
    }

    @Test func aCycleOfReferencesIsAnErrorARecursiveSchemaIsNot() throws {
        let cycle = """
            openapi: 3.0.3
            paths:
              /a:
                get:
                  responses:
                    '200': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/A'}}}}
            components:
              schemas:
                A: {$ref: '#/components/schemas/B'}
                B: {$ref: '#/components/schemas/A'}
            """
        let problems = Self.problems(["openapi.yaml": cycle])
        #expect(problems.count == 3)
        #expect(problems.allSatisfy { $0.reason == .referenceCycle })
        #expect(
            problems.first?.description
                == "openapi.yaml:6:78: the $ref '#/components/schemas/A' never reaches a value: #/components/schemas/A"
                + " → #/components/schemas/B → #/components/schemas/A → … at"
                + " #/paths/~1a/get/responses/200/content/application~1json/schema; make one of these references point"
                + " at a schema, parameter or response itself")
        let tree = """
            openapi: 3.1.0
            paths:
              /tree:
                get:
                  responses:
                    '200': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Node'}}}}
            components:
              schemas:
                Node:
                  type: object
                  properties:
                    children: {type: array, items: {$ref: '#/components/schemas/Node'}}
            """
        let document = try Self.load(tree)
        let schema = try #require(document.operations.first?.responses.first?.content.first?.schema)
        var node = try document.resolved(schema)
        for _ in 0..<3 {  // walkable as deep as the check likes
            let items = try #require(node["properties"]?["children"]?["items"])
            node = try document.resolved(items)
            #expect(
                node.place == SpecPlace(file: "openapi.yaml", pointer: "#/components/schemas/Node", line: 10, column: 7)
            )
        }
    }

    @Test func referencesInExamplesAreData() throws {
        let document = try Self.load(
            """
            openapi: 3.0.3
            paths:
              /a:
                get:
                  responses:
                    '200':
                      description: ok
                      content:
                        application/json:
                          schema: {type: object, properties: {example: {$ref: '#/components/schemas/S'}}, default: {$ref: x}}
                          example: {$ref: '#/nowhere'}
                          examples:
                            one: {value: {$ref: '#/nowhere'}}
                            two: {$ref: '#/components/examples/Two'}
            components:
              schemas: {S: {type: string}}
              examples: {Two: {summary: second, value: {id: 2}}}
            """)
        let media = try #require(document.operations.first?.responses.first?.content.first)
        #expect(media.examples.map(\.name) == [nil, "one", "two"])
        #expect(media.examples.last?.value?.value == .object([JSONMember("id", .integer(2))]))
        #expect(media.examples.last?.summary == "second")
        #expect(media.examples.last?.place.pointer == "#/components/examples/Two")
        // A property named `example` is a schema, and its $ref is checked.
        let broken = Self.problems([
            "openapi.yaml": """
            openapi: 3.0.3
            paths: {}
            components: {schemas: {S: {properties: {example: {$ref: '#/components/schemas/Nope'}}}}}
            """
        ])
        #expect(broken.map(\.reason) == [.unresolvedReference])
    }

    @Test func duplicateKeysInJSONAreRefusedAndEveryProblemIsCollected() {
        let problems = Self.problems(
            [
                "openapi.json": """
                {"openapi": "3.0.3", "paths": {"/a": {"get": {"responses": {"200": {"description": "ok",
                  "content": {"application/json": {"schema": {"$ref": "#/components/schemas/X"}}}}}},
                  "post": {"responses": {"ok": {"description": "no"}}}}},
                 "components": {"schemas": {"Y": {"type": "string", "type": "integer"}}}}
                """
            ], root: "openapi.json")
        #expect(problems.map(\.reason) == [.unresolvedReference, .duplicateKey, .invalidValue])
        #expect(
            problems[1].description.hasPrefix("openapi.json:4:53: duplicate key 'type' (first at line 4, column 35)")
                == true)
        #expect(
            problems.last?.description.hasPrefix("openapi.json:3:26: the response status 'ok' is not a code") == true)
    }

    // MARK: - The model

    @Test func parametersAreMergedTheOperationWins() throws {
        let document = try Self.load(
            """
            openapi: 3.0.3
            paths:
              /repos/{owner}/{repo}/issues:
                parameters:
                - {name: owner, in: path, required: true, schema: {type: string}}
                - {$ref: '#/components/parameters/repo'}
                - {name: per_page, in: query, schema: {type: integer}}
                - {name: X-Api-Version, in: header, schema: {type: string}}
                - {name: state, in: header, schema: {type: string}}
                get:
                  parameters:
                  - {name: per_page, in: query, required: true, schema: {type: string}, style: form, explode: false}
                  - {name: x-api-version, in: header, required: true, schema: {type: string}}
                  - {name: state, in: query, schema: {type: string, enum: [open, closed]}}
                  responses: {'200': {description: ok}}
            components:
              parameters:
                repo: {name: repo, in: path, required: true, schema: {type: string}}
            """)
        let parameters = try #require(document.operations.first?.parameters)
        #expect(
            parameters.map { "\($0.location.rawValue):\($0.name)" } == [
                "path:owner", "path:repo", "header:state", "query:per_page", "header:x-api-version", "query:state",
            ])
        let perPage = try #require(parameters.first { $0.name == "per_page" })
        #expect(perPage.isRequired)
        #expect(perPage.schema?.value == .object([JSONMember("type", .string("string"))]))
        #expect(perPage.style == "form" && perPage.explode == false)
        #expect(perPage.node.place.line == 12)
        #expect(parameters[1].node.pointer == "#/components/parameters/repo")
    }

    @Test func swaggerBodiesFormsAndMadeSchemas() throws {
        let document = try Self.load(
            """
            swagger: '2.0'
            host: api.example.com
            basePath: /v1/
            schemes: [https, http]
            consumes: [application/json]
            produces: [application/json, application/xml]
            paths:
              /pets:
                post:
                  parameters:
                  - {name: pet, in: body, required: true, schema: {$ref: '#/definitions/Pet'}}
                  - {name: limit, in: query, required: true, type: integer, format: int32, maximum: 100}
                  - {name: note, in: formData, type: string}
                  responses:
                    200:
                      description: ok
                      schema: {$ref: '#/definitions/Pet'}
                      examples: {application/json: {id: 1}, text/plain: one}
                      headers: {X-Rate: {type: integer, required: true}}
            definitions:
              Pet: {type: object}
            """)
        #expect(document.servers.map(\.url) == ["https://api.example.com/v1", "http://api.example.com/v1"])
        #expect(document.servers.first?.basePath == "/v1")
        let operation = try #require(document.operations.first)
        let body = try #require(operation.requestBody)
        #expect(body.isRequired)
        #expect(body.content.map(\.name) == ["application/json"])
        #expect(body.content.first?.schema?.value == .object([JSONMember("$ref", .string("#/definitions/Pet"))]))
        #expect(operation.parameters.map(\.name) == ["limit", "note"])
        let limit = try #require(operation.parameters.first)
        #expect(limit.isRequired)
        #expect(
            limit.schema?.value
                == .object([
                    JSONMember("type", .string("integer")), JSONMember("format", .string("int32")),
                    JSONMember("maximum", .integer(100)),
                ]))
        #expect(limit.schema?.place.line == 12)
        #expect(operation.parameters.last?.location == .formData)
        let response = try #require(operation.responses.first)
        #expect(response.status == "200")
        #expect(response.content.map(\.name) == ["application/json", "application/xml", "text/plain"])
        #expect(response.content.first?.examples.first?.value?.value == .object([JSONMember("id", .integer(1))]))
        #expect(response.content.last?.examples.first?.value?.value == .string("one"))
        #expect(response.headers.first?.isRequired == true)
        #expect(response.headers.first?.schema?.value == .object([JSONMember("type", .string("integer"))]))
        #expect(response.mediaType(for: "application/xml; charset=utf-8")?.name == "application/xml")
    }

    @Test func responsesByStatusAndTheirContent() throws {
        let document = try Self.load(
            """
            openapi: 3.1.0
            paths:
              /a:
                get:
                  responses:
                    '200':
                      description: ok
                      content:
                        application/json: {schema: {type: object}, example: {a: 1}}
                        text/*: {schema: {type: string}}
                        '*/*': {}
                    2xx: {description: other success}
                    default: {$ref: '#/components/responses/Problem'}
            components:
              responses:
                Problem: {description: problem, content: {application/problem+json: {schema: {type: object}}}}
            """)
        let operation = try #require(document.operations.first)
        #expect(operation.responses.map(\.status) == ["200", "2XX", "default"])
        #expect(operation.response(for: 200)?.status == "200")
        #expect(operation.response(for: 204)?.status == "2XX")
        #expect(operation.response(for: 404)?.status == "default")
        #expect(operation.response(for: 404)?.content.first?.name == "application/problem+json")
        let ok = try #require(operation.responses.first)
        #expect(
            ok.mediaType(for: "application/json")?.examples.first?.value?.value
                == .object([JSONMember("a", .integer(1))]))
        #expect(ok.mediaType(for: "text/plain")?.name == "text/*")
        #expect(ok.mediaType(for: "image/png")?.name == "*/*")
        #expect(ok.mediaType(for: nil)?.name == "application/json")
    }

    @Test func serversAndKeywordsNotRead() throws {
        let document = try Self.load(
            """
            openapi: 3.0.3
            servers:
            - url: https://{region}.example.com:{port}/v{major}/
              variables:
                region: {default: eu, enum: [eu, us]}
                port: {default: '8443'}
                major: {default: '2'}
            - url: /relative
            security: [{token: []}]
            webhooks: {}
            x-internal: true
            paths:
              /a:
                servers: [{url: 'https://path.example.com'}]
                get:
                  security: []
                  callbacks: {}
                  responses:
                    '200':
                      description: ok
                      links: {}
                      content: {application/json: {encoding: {}}}
                post:
                  servers: [{url: '//op.example.com/base'}]
                  responses: {'201': {description: created}}
            """)
        #expect(document.servers.map(\.url) == ["https://eu.example.com:8443/v2/", "/relative"])
        #expect(document.servers.map(\.host) == ["eu.example.com:8443", nil])
        #expect(document.servers.map(\.basePath) == ["/v2", "/relative"])
        #expect(document.servers.first?.template == "https://{region}.example.com:{port}/v{major}/")
        #expect(
            document.operations.map { $0.servers.map(\.url) } == [
                ["https://path.example.com"], ["//op.example.com/base"],
            ])
        #expect(
            document.uncheckedKeywords.map { "\($0.keyword)@\($0.place.line):\($0.place.column) \($0.place.pointer)" }
                == [
                    "security@9:1 #/security", "webhooks@10:1 #/webhooks", "security@16:7 #/paths/~1a/get/security",
                    "callbacks@17:7 #/paths/~1a/get/callbacks", "links@21:11 #/paths/~1a/get/responses/200/links",
                    "encoding@22:40 #/paths/~1a/get/responses/200/content/application~1json/encoding",
                ])
    }

    @Test func invalidValuesWhereTheModelReads() {
        let problems = Self.problems([
            "openapi.yaml": """
            openapi: 3.0.3
            paths:
              users: {get: {responses: {}}}
              /a:
                get:
                  parameters: [{name: q}, {name: b, in: body}]
                  responses: {'600': {description: x}}
            """
        ])
        #expect(
            problems.map(\.description) == [
                "openapi.yaml:3:10: the path 'users' does not begin with '/' at #/paths/users; write it as it follows the server URL: '/users'",
                "openapi.yaml:6:20: a parameter without 'name' and 'in' strings at #/paths/~1a/get/parameters/0; give it both",
                "openapi.yaml:6:45: the parameter 'b' is 'in: body' at #/paths/~1a/get/parameters/1/in; use path, query, header or cookie",
                "openapi.yaml:7:19: the response status '600' is not a code (100-599), a range (2XX) or 'default' at #/paths/~1a/get/responses/600; write the status code as a key, such as '200'",
            ])
    }

    /// The reference walk tells keywords by their length, then the few keywords of that length: it says of every key
    /// what the sets it replaced said, and of keys alike in length or beginning that they are none.
    @Test func theWalkTellsEveryKeywordAsTheKeywordSetsDid() {
        let maps: Set<String> = [
            "properties", "patternProperties", "definitions", "$defs", "dependentSchemas", "schemas", "parameters",
            "responses", "requestBodies", "headers", "securitySchemes", "securityDefinitions", "links", "callbacks",
            "pathItems", "paths", "webhooks", "content", "encoding", "variables", "mapping", "scopes",
        ]
        let literals: Set<String> = ["example", "default", "enum", "const"]
        for key in maps { #expect(SpecLoader.kind(of: key) == .map, "\(key)") }
        for key in literals { #expect(SpecLoader.kind(of: key) == .literal, "\(key)") }
        #expect(SpecLoader.kind(of: "examples") == .examples)
        #expect(SpecLoader.kind(of: "$ref") == .reference)
        for key in ["x-", "x-ref", "x-properties"] { #expect(SpecLoader.kind(of: key) == .literal, "\(key)") }
        for key in [
            "", "x", "X-a", "type", "items", "$id", "Paths", "propertie", "propertiess", "schema", "example ", "enums",
            "allOf", "required", "description", "xx-a", "securityScheme", "patternPropertie", "é",
        ] {
            #expect(SpecLoader.kind(of: key) == .other, "\(key)")
        }
    }

    /// A reference into an object of more than 16 members finds its member through the object's index, made on the
    /// first: every member is found with its own value, place and pointer, and a key the object lacks is unresolved
    /// with a did-you-mean.
    @Test func aReferenceIntoALargeObjectFindsEachMember() throws {
        let names = (0..<40).map { "schema\($0)" }
        let schemas = names.map { "\"\($0)\": {\"title\": \"\($0)\"}" }.joined(separator: ",\n")
        let text = """
            {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {},
             "components": {"schemas": {
            \(schemas)
            }}}
            """
        let spec = try SpecDocument.load(file: "large.json") { _ in Data(text.utf8) }
        for (position, name) in names.enumerated() {
            let found = try spec.resolve("#/components/schemas/\(name)", at: spec.root.place)
            #expect(found.string("title") == name)
            #expect(found.place.line == 3 + position, "\(name)")
            #expect(found.pointer == "#/components/schemas/\(name)")
        }
        #expect(throws: SpecError.self) { try spec.resolve("#/components/schemas/schema41", at: spec.root.place) }
        do {
            _ = try spec.resolve("#/components/schemas/schemaX1", at: spec.root.place)
        } catch {
            #expect(error.problems.first?.hint?.contains("did you mean") == true)
        }
    }

    /// The model of a document of many path items is made in parts on two threads and put together in order: the
    /// operations, the keywords not read and the problems come out in document order, as one thread made them.
    @Test func manyPathItemsAreModelledInDocumentOrder() throws {
        let count = 150
        func item(_ number: Int) -> String {
            let template = number % 37 == 5 ? "nopath\(number)" : "/items\(number)"
            return "\"\(template)\": {\"get\": {\"security\": [], \"responses\": {\"200\": {\"description\": \"ok\"}}},"
                + " \"post\": {\"callbacks\": {}, \"responses\": {\"201\": {\"description\": \"made\"}}}}"
        }
        // One path item a line, from line 3.
        let paths = (0..<count).map(item).joined(separator: ",\n")
        let text =
            "{\"openapi\": \"3.1.0\", \"info\": {\"title\": \"t\", \"version\": \"1\"},\n\"paths\": {\n\(paths)\n}}"
        let broken = (0..<count).filter { $0 % 37 == 5 }
        do {
            _ = try SpecDocument.load(file: "many.json") { _ in Data(text.utf8) }
            Issue.record("paths without '/' were read")
        } catch {
            #expect(error.problems.map(\.line) == broken.map { 3 + $0 })
            #expect(error.problems.allSatisfy { $0.message.contains("does not begin with '/'") })
        }
        let fixed = text.replacingOccurrences(of: "\"nopath", with: "\"/nopath")
        let spec = try SpecDocument.load(file: "many.json") { _ in Data(fixed.utf8) }
        let templates = (0..<count).map { $0 % 37 == 5 ? "/nopath\($0)" : "/items\($0)" }
        #expect(spec.operations.map(\.path) == templates.flatMap { [$0, $0] })
        #expect(spec.operations.map(\.method) == Array(repeating: ["GET", "POST"], count: count).flatMap { $0 })
        #expect(
            spec.uncheckedKeywords.map(\.keyword)
                == Array(repeating: ["security", "callbacks"], count: count).flatMap { $0 })
        #expect(spec.uncheckedKeywords.map(\.place.line) == (0..<count).flatMap { [3 + $0, 3 + $0] })
    }

    /// A document large enough to be loaded on two threads whose responses are in another file: the model, made
    /// first with the root file alone, is made again once the walk has read the other, and holds its responses.
    @Test func manyPathItemsReferringToAnotherFileAreModelledWithIt() throws {
        let paths = (0..<100).map {
            "\"/items\($0)\": {\"get\": {\"responses\": {\"200\": {\"$ref\": \"common.json#/ok\"}}}}"
        }
        let files = [
            "many.json": "{\"openapi\": \"3.1.0\", \"info\": {\"title\": \"t\", \"version\": \"1\"}, \"paths\": {"
                + paths.joined(separator: ",\n") + "}}",
            "common.json": "{\"ok\": {\"description\": \"the shared answer\"}}",
        ]
        let spec = try SpecDocument.load(file: "many.json") { file in
            guard let text = files[file] else { throw CocoaError(.fileNoSuchFile) }
            return Data(text.utf8)
        }
        #expect(spec.operations.count == 100)
        #expect(spec.operations.allSatisfy { $0.responses.map(\.description) == ["the shared answer"] })
        #expect(spec.files == ["common.json", "many.json"])
    }
}
