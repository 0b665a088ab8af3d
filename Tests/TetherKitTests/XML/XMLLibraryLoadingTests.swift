import CLibXML2Loader
import Foundation
import Testing

@testable import TetherKit

/// libxml2 is opened at the first XML Tether reads (Sources/CLibXML2Loader): Tether's calls into it go through the
/// loader's functions of the same names, never to libxml2 directly, or the release executable (which does not load
/// libxml2 at start-up) could not make them. scripts/build checks the other half: no symbol of the executable binds
/// to libxml2.
@Suite struct XMLLibraryLoadingTests {
    @Test func readingXMLGoesThroughTheLoader() throws {
        let node = try XMLElementNode.read(Data("<list><item count=\"1\"/></list>".utf8), name: "list.xml")
        #expect(node.elements.map(\.name) == ["item"])
        // (Once any test has read XML it stays loaded; that is the state this checks.)
        #expect(tether_libxml2_is_loaded() == 1)
    }

    @Test func checkingASchemaGoesThroughTheLoader() throws {
        try XMLSchema(Data(XMLSchemaTests.schema.utf8), name: "list.xsd")
            .validate(Data("<list><item count=\"2\"/></list>".utf8), name: "ok.xml")
        #expect(tether_libxml2_is_loaded() == 1)
    }
}
