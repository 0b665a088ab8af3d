import Foundation
import Testing

@testable import TetherEngine
@testable import TetherKit

/// Real documents: the OpenAPI Initiative's examples (2.0, 3.0 and 3.1, YAML and JSON), Twilio's REST description,
/// and a large document made from it (JSON and YAML, 10 MB or more each) load, and requests you would expect match
/// their operations.
@Suite struct SpecRealDocumentTests {
    /// Every document of `spec/oai` but the parts of `petstore-separate` that its `swagger` file refers to.
    static let examples: [String] = {
        let base = FixturePaths.fixture("spec/oai")
        let files = FileManager.default.enumerator(atPath: base)?.compactMap { $0 as? String } ?? []
        return files.filter { name in
            (name.hasSuffix(".yaml") || name.hasSuffix(".json"))
                && (!name.contains("petstore-separate") || name.hasSuffix("swagger.yaml")
                    || name.hasSuffix("swagger.json"))
        }.sorted()
    }()

    @Test func everyExampleIsThere() {
        #expect(Self.examples.count == 34)
    }

    @Test(arguments: examples) func loads(_ name: String) throws {
        let document = try SpecDocument.load(contentsOf: FixturePaths.fixture("spec/oai/" + name))
        let expected: SpecVersion =
            name.hasPrefix("v2.0") ? .swagger20 : name.hasPrefix("v3.0") ? .openAPI30 : .openAPI31
        #expect(document.version == expected)
        #expect(!document.operations.isEmpty || name.contains("webhook-example"))
        // Every schema of every response resolves.
        for operation in document.operations {
            for media in operation.responses.flatMap(\.content) + (operation.requestBody?.content ?? []) {
                if let schema = media.schema { _ = try document.resolved(schema) }
            }
        }
    }

    static func operationId(_ document: SpecDocument, _ method: String, _ url: String) -> String? {
        guard case .found(let route) = document.match(method: method, url: url) else { return nil }
        return (route.operation.operationId ?? route.operation.name) + " "
            + route.pathParameters.map { "\($0.name)=\($0.value)" }.joined(separator: ",")
    }

    @Test(arguments: [
        ("v3.0/petstore.yaml", "GET", "http://petstore.swagger.io/v1/pets/42", "showPetById petId=42"),
        ("v3.0/petstore.json", "POST", "http://petstore.swagger.io/v1/pets", "createPets "),
        ("v2.0/yaml/petstore.yaml", "GET", "http://petstore.swagger.io/v1/pets?limit=3", "listPets "),
        ("v2.0/json/petstore-expanded.json", "DELETE", "http://petstore.swagger.io/api/pets/7", "deletePet id=7"),
        (
            "v3.0/uspto.yaml", "GET", "https://developer.uspto.gov/ds-api/oa_citations/v1/fields",
            "list-searchable-fields dataset=oa_citations,version=v1"
        ),
        ("v3.0/uspto.json", "GET", "https://developer.uspto.gov/ds-api/", "list-data-sets "),
        ("v2.0/yaml/uber.yaml", "GET", "https://api.uber.com/v1/estimates/price", "GET /estimates/price "),
        (
            "v3.0/link-example.yaml", "POST",
            "https://bitbucket.example/2.0/repositories/alice/tether/pullrequests/12/merge",
            "mergePullRequest username=alice,slug=tether,pid=12"
        ),
        ("v3.0/api-with-examples.yaml", "GET", "http://localhost/v2", "getVersionDetailsv2 "),
        ("v3.0/callback-example.json", "POST", "https://x.example/streams", "POST /streams "),
        ("v3.1/tictactoe.yaml", "PUT", "https://x.example/board/1/3", "put-square row=1,column=3"),
        ("v3.1/non-oauth-scopes.json", "GET", "/users", "GET /users "),
    ])
    func sampleRequestsMatch(_ name: String, _ method: String, _ url: String, _ expected: String) throws {
        let document = try SpecDocument.load(contentsOf: FixturePaths.fixture("spec/oai/" + name))
        #expect(Self.operationId(document, method, url) == expected)
    }

    @Test func examplesAreRead() throws {
        let document = try SpecDocument.load(contentsOf: FixturePaths.fixture("spec/oai/v3.0/api-with-examples.yaml"))
        let versions = try #require(document.operations.first?.response(for: 200)?.mediaType(for: "application/json"))
        #expect(versions.examples.map(\.name) == ["foo"])
        #expect(versions.examples.first?.value?["versions"]?[0]?["id"]?.value == .string("v2.0"))
        let swagger = try SpecDocument.load(
            contentsOf: FixturePaths.fixture("spec/oai/v2.0/yaml/api-with-examples.yaml"))
        let example = try #require(swagger.operations.first?.response(for: 200)?.content.first?.examples.first)
        // This example is JSON written as a YAML literal block: a string.
        #expect(example.value?.string?.hasPrefix("{\n    \"versions\": [") == true)
        #expect(example.place.line == 17)
        #expect(example.place.file.hasSuffix("api-with-examples.yaml"))
    }

    @Test func twilio() throws {
        let document = try SpecDocument.load(contentsOf: FixturePaths.fixture("spec/twilio/twilio_api_v2010.json"))
        #expect(document.version == .openAPI30)
        #expect(document.operations.count == 197)
        #expect(
            Self.operationId(document, "GET", "https://api.twilio.com/2010-04-01/Accounts/AC1/Calls/CA2.json")
                == "FetchCall AccountSid=AC1,Sid=CA2")
        #expect(
            Self.operationId(document, "POST", "https://api.twilio.com/2010-04-01/Accounts/AC1/Messages.json")
                == "CreateMessage AccountSid=AC1")
        guard
            case .missing(let miss) = document.match(
                method: "GET", url: "https://api.twilio.com/2010-04-01/Accounts/AC1/Message.json")
        else {
            Issue.record("matched a path the document does not have")
            return
        }
        #expect(miss.suggestion?.name == "GET /2010-04-01/Accounts/{AccountSid}/Messages.json")
    }

    /// The large document, generated once per test run (`Fixtures/spec/large/generate.py`, reproducible), and
    /// removed when the test process exits: 27 MB a run would otherwise pile up in the temporary folder.
    static let large: Result<String, Error> = Result {
        atexit { try? FileManager.default.removeItem(atPath: SpecRealDocumentTests.largeFolder) }
        let run = try ChildProcess.run(
            "/usr/bin/env", ["python3", FixturePaths.fixture("spec/large/generate.py"), largeFolder])
        guard run.status == 0 else { throw CocoaError(.fileWriteUnknown) }
        return largeFolder
    }

    /// This test process's own folder for the large document.
    static var largeFolder: String { NSTemporaryDirectory() + "tether-spec-large-\(getpid())" }

    /// The first reference object in `node`, depth first.
    static func firstReference(in node: SpecNode) -> SpecNode? {
        if node["$ref"] != nil { return node }
        for child in node.members.map(\.node) + node.elements {
            if let found = firstReference(in: child) { return found }
        }
        return nil
    }

    @Test(arguments: ["large.json", "large.yaml"]) func largeDocument(_ name: String) throws {
        let path = (try Self.large.get() as NSString).appendingPathComponent(name)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(size >= 10_000_000)
        let document = try SpecDocument.load(contentsOf: path)
        #expect(document.operations.count == 197 * 8)
        #expect(
            Self.operationId(document, "GET", "https://api.twilio.com/2010-04-01/Accounts/AC1/Calls/CA2.json")
                == "FetchCall AccountSid=AC1,Sid=CA2")
        #expect(
            Self.operationId(document, "DELETE", "https://api.twilio.com/copy7/2010-04-01/Accounts/AC1/Keys/SK9.json")
                == "DeleteKey_copy7 AccountSid=AC1,Sid=SK9")
        let operation = try #require(document.operations.last { $0.response(for: 200)?.content.first?.schema != nil })
        let schema = try #require(operation.response(for: 200)?.content.first?.schema)
        let reference = try #require(Self.firstReference(in: schema))
        let resolved = try document.resolved(reference)
        #expect(resolved.pointer.hasPrefix("#/components/schemas/") && resolved.pointer.hasSuffix("_copy7"))
        #expect(resolved.place.line > 1)
    }
}
