import Foundation
import Testing

@testable import TetherEngine
@testable import TetherKit

/// The places of a compiled schema's parts, found from the parent's value in one step, are the places that following
/// each pointer from the root of its file finds, as the compiler found them before: on every schema of the OpenAPI
/// Initiative's examples (one refers to other files), of Twilio's description, and of a document of edge cases.
@Suite struct SpecSchemaSourceTests {
    /// How a schema's places were found before: every pointer followed from the root of its file.
    struct WalkFromRoot: SchemaSource {
        let document: SpecDocument

        func resolve(_ reference: String, at place: SpecPlace) throws -> SchemaValue {
            let node = try document.resolve(reference, at: place)
            return SchemaValue(node.value, at: node.place)
        }

        func place(ofMember key: String, in parent: SpecPlace) -> SpecPlace {
            placed(parent.pointer + "/" + SpecPlace.escaped(key), in: parent)
        }

        func place(ofElement index: Int, in parent: SpecPlace) -> SpecPlace {
            placed(parent.pointer + "/\(index)", in: parent)
        }

        private func placed(_ pointer: String, in parent: SpecPlace) -> SpecPlace {
            if let node = try? document.resolve(pointer, at: parent), node.pointer == pointer { return node.place }
            return SpecPlace(file: parent.file, pointer: pointer, line: parent.line, column: parent.column)
        }
    }

    /// Every place of every node of every schema of the document's operations, and of its keywords, in order.
    static func places(_ document: SpecDocument, _ source: any SchemaSource) throws -> [String] {
        var compiler = SchemaCompiler(dialect: document.version.dialect, source: source)
        var places: [String] = []
        for operation in document.operations {
            let schemas =
                operation.parameters.map(\.schema)
                + (operation.requestBody?.content ?? []).map(\.schema)
                + operation.responses.flatMap { $0.content.map(\.schema) + $0.headers.map(\.schema) }
            for case let schema? in schemas {
                (source as? SpecSchemaSource)?.remember(schema)  // as SpecCheck does
                for node in try compiler.compile(schema.value, at: schema.place).nodes {
                    places.append("\(node.place) \(node.place.pointer)")
                    for (keyword, place) in node.keywordPlaces.sorted(by: { $0.key < $1.key }) {
                        places.append("  \(keyword): \(place) \(place.pointer)")
                    }
                }
            }
        }
        return places
    }

    static func expectSamePlaces(_ document: SpecDocument) throws {
        let stepped = try places(document, SpecSchemaSource(document: document))
        let walked = try places(document, WalkFromRoot(document: document))
        #expect(stepped.count == walked.count)
        for (one, other) in zip(stepped, walked) where one != other {
            Issue.record("\(one) (stepped) against \(other) (walked from the root)")
            return
        }
    }

    @Test(arguments: SpecRealDocumentTests.examples) func theExamples(_ name: String) throws {
        try Self.expectSamePlaces(try SpecDocument.load(contentsOf: FixturePaths.fixture("spec/oai/" + name)))
    }

    @Test func twilio() throws {
        let document = try SpecDocument.load(contentsOf: FixturePaths.fixture("spec/twilio/twilio_api_v2010.json"))
        let places = try Self.places(document, SpecSchemaSource(document: document))
        #expect(places.count > 10_000)
        try Self.expectSamePlaces(document)
    }

    /// Keys a pointer escapes (`~`, `/`, also before a combining mark) or a walk would percent-decode (`%`), YAML anchors and aliases, references
    /// to references, in arrays and beside other keywords (3.1), a member that is a reference object, and a large
    /// object (more than 16 members, which the source indexes).
    @Test func edgeCases() throws {
        let wide = (0..<20).map { "        p\($0): {type: integer}" }.joined(separator: "\n")
        let yaml = """
            openapi: 3.1.0
            paths:
              /a:
                get:
                  parameters:
                    - {name: q, in: query, schema: {$ref: '#/components/schemas/Alias'}}
                  responses:
                    '200':
                      description: ok
                      content:
                        application/json:
                          schema:
                            type: object
                            properties:
                              a~b: {type: string, minLength: 1}
                              c/d: {type: [string, 'null'], maxLength: 3}
                              "s/\u{301}": {type: string, maxLength: 2}
                              e%20f: {type: integer, minimum: 0}
                              g%: {type: number, maximum: 9}
                              shared: &shared {type: object, required: [x], properties: {x: {type: string}}}
                              again: *shared
                              ref: {$ref: '#/components/schemas/Thing'}
                              refWithSiblings: {$ref: '#/components/schemas/Thing', description: d, minProperties: 1}
                              list: {type: array, prefixItems: [{type: string}, {$ref: '#/components/schemas/Thing'}]}
                              choice: {oneOf: [{type: string}, {allOf: [{$ref: '#/components/schemas/Alias'}]}]}
                              wide: {type: object, properties: {$ref: '#/components/schemas/Wide/properties'}}
            components:
              schemas:
                Thing: {type: object, properties: {id: {type: integer}, self: {$ref: '#/components/schemas/Thing'}}}
                Alias: {$ref: '#/components/schemas/Thing'}
                Wide:
                  type: object
                  properties:
            \(wide)
            """
        try Self.expectSamePlaces(try SpecDocumentTests.load(yaml))
    }
}
