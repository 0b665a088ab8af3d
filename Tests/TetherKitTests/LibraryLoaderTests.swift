import CLibraryLoader
import Foundation
import Testing

@testable import TetherEngine
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

    /// A stub that may be read as XML when its answer arrives (markup, not declared XML) has libxml2 opened by the
    /// run's start-up, before any request: a machine without it finds out before anything is sent. In a child
    /// process (this test executable again), where nothing has opened libxml2 yet. Linux only: elsewhere the
    /// libraries are linked as usual, and there is nothing to open.
    @Test(.enabled(if: Self.opensLibrariesAtFirstUse, "libxml2 is linked as usual on this platform"))
    func aRunThatMayReadXMLOpensLibxml2BeforeItSendsAnything() async throws {
        try await ChildProcess.runTest(
            "libxml2IsOpenedByTheStartUp", environment: ["TETHER_LIBRARY_LOADER_CHILD": "1"])
    }

    static var opensLibrariesAtFirstUse: Bool {
        #if os(Linux)
            true
        #else
            false
        #endif
    }

    @Test(
        .enabled(
            if: ProcessInfo.processInfo.environment["TETHER_LIBRARY_LOADER_CHILD"] == "1",
            "runs in the child of aRunThatMayReadXMLOpensLibxml2BeforeItSendsAnything"))
    func libxml2IsOpenedByTheStartUp() throws {
        let folder = try ContractFolder([
            "json.json":
                #"{"service": "J", "baseURL": "http://127.0.0.1:9", "targets": [{"name": "a", "path": "/a", "sampleData": {"json": {"id": 1}}}, {"name": "b", "path": "/b", "sampleData": {"text": "plain"}}]}"#,
            "markup/api.json":
                #"{"service": "M", "baseURL": "http://127.0.0.1:9", "targets": [{"name": "feed", "path": "/feed", "sampleData": {"text": "  <feed><entry/></feed>"}}]}"#,
        ])
        #expect(tether_library_is_loaded(tether_libxml2) == 0)
        _ = try RunInputs(paths: [folder.file("json.json")]).selectedContracts(write: { _ in })
        #expect(tether_library_is_loaded(tether_libxml2) == 0, "no stub of these can be read as XML")
        _ = try RunInputs(paths: [folder.file("markup")]).selectedContracts(write: { _ in }, sends: false)
        #expect(tether_library_is_loaded(tether_libxml2) == 0, "--list sends nothing, so reads no answer")
        _ = try RunInputs(paths: [folder.file("markup")]).selectedContracts(write: { _ in })
        #expect(tether_library_is_loaded(tether_libxml2) == 1)
    }

    @Test func readingYAMLOpensLibyamlThroughTheLoader() throws {
        let source = try YAMLReader().read(Data("openapi: 3.0.3\npaths: {}\n".utf8), file: "spec.yaml")
        #expect(source.file == "spec.yaml")
        #expect(tether_library_is_loaded(tether_libyaml) == 1)
    }
}
