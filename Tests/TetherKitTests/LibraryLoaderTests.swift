import CLibraryLoader
import Foundation
import Testing

@testable import TetherKit

/// libxml2, libmicrohttpd and libyaml are opened at their first use (Sources/CLibraryLoader): Tether's calls into
/// them go through the loader's functions of the same names, never to the libraries directly, or the release
/// executable (which does not load them at start-up) could not make them. scripts/build checks the other half: no
/// symbol of the executable binds to them. (Once any test has used a library it stays open; that is what is checked.)
@Suite struct LibraryLoaderTests {
    @Test func readingXMLOpensLibxml2ThroughTheLoader() throws {
        let node = try XMLElementNode.read(Data("<list><item count=\"1\"/></list>".utf8), name: "list.xml")
        #expect(node.elements.map(\.name) == ["item"])
        #expect(tether_library_is_loaded(tether_libxml2) == 1)
    }

    @Test func checkingASchemaOpensLibxml2ThroughTheLoader() throws {
        try XMLSchema(Data(XMLSchemaTests.schema.utf8), name: "list.xsd")
            .validate(Data("<list><item count=\"2\"/></list>".utf8), name: "ok.xml")
        #expect(tether_library_is_loaded(tether_libxml2) == 1)
    }

    @Test func servingAMockOpensLibmicrohttpdThroughTheLoader() async throws {
        let server = try MockServer { _ in .json("{\"served\": true}") }
        defer { server.stop() }
        let answer = try await runCurl(["-s", server.baseURL + "/"])
        #expect(answer.outputText == "{\"served\": true}")
        #expect(tether_library_is_loaded(tether_libmicrohttpd) == 1)
    }

    @Test func readingYAMLOpensLibyamlThroughTheLoader() throws {
        let source = try YAMLReader().read(Data("openapi: 3.0.3\npaths: {}\n".utf8), file: "spec.yaml")
        #expect(source.file == "spec.yaml")
        #expect(tether_library_is_loaded(tether_libyaml) == 1)
    }
}
