import Foundation
import Testing

@testable import TetherEngine
@testable import TetherKit

@Suite struct XMLSchemaTests {
    static let schema = """
        <?xml version="1.0" encoding="UTF-8"?>
        <xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
          <xs:element name="list">
            <xs:complexType>
              <xs:sequence>
                <xs:element name="item" minOccurs="0" maxOccurs="unbounded">
                  <xs:complexType>
                    <xs:attribute name="count" type="xs:int" use="required"/>
                  </xs:complexType>
                </xs:element>
              </xs:sequence>
            </xs:complexType>
          </xs:element>
        </xs:schema>
        """

    func compiled(_ text: String = schema, name: String = "list.xsd") throws(XMLSchema.Error) -> XMLSchema {
        try XMLSchema(Data(text.utf8), name: name)
    }

    @Test func aDocumentThatHoldsPasses() throws {
        try compiled().validate(Data("<list><item count=\"1\"/><item count=\"2\"/></list>".utf8), name: "ok.xml")
    }

    @Test func everyBreakIsReportedInLibxml2sWordsAtItsLine() throws {
        let document = "<list>\n  <item count=\"1\"/>\n  <item count=\"many\"/>\n  <item/>\n  <other/>\n</list>\n"
        let error = try #require(throws: XMLSchema.Error.self) {
            try compiled().validate(Data(document.utf8), name: "bad.xml")
        }
        guard case .invalid(let file, let schema, let problems) = error else {
            Issue.record("expected .invalid, got \(error)")
            return
        }
        #expect(file == "bad.xml")
        #expect(schema == "list.xsd")
        #expect(problems.map(\.line) == [3, 4, 5], "\(problems)")
        #expect(problems.first?.message.contains("'many' is not a valid value of the atomic type 'xs:int'") == true)
        #expect(problems.dropFirst().first?.message.contains("The attribute 'count' is required but missing") == true)
        #expect(problems.last?.message.contains("Element 'other': This element is not expected") == true)
        #expect(
            error.description.hasPrefix("bad.xml: does not satisfy the schema list.xsd:\n  bad.xml:3: Element 'item'"))
    }

    @Test func aRootTheSchemaDoesNotDeclareIsRejected() throws {
        let error = try #require(throws: XMLSchema.Error.self) {
            try compiled().validate(Data("<items/>".utf8), name: "other.xml")
        }
        #expect(error.description.contains("No matching global declaration available for the validation root"))
    }

    @Test func aDocumentThatIsNotXMLOrDeclaresEntitiesIsUnreadable() throws {
        let schema = try compiled()
        #expect(throws: XMLSchema.Error.unreadable(file: "e.xml", .empty)) {
            try schema.validate(Data(), name: "e.xml")
        }
        let malformed = try #require(throws: XMLSchema.Error.self) {
            try schema.validate(Data("<list>\n<item count=\"1\">\n</list>".utf8), name: "m.xml")
        }
        guard case .unreadable("m.xml", .malformed(let line, _, let message)) = malformed else {
            Issue.record("expected .unreadable(.malformed), got \(malformed)")
            return
        }
        #expect(line == 3)
        #expect(message.contains("mismatch"), "\(message)")
        #expect(malformed.description.hasPrefix("m.xml:3:"))
        // Refused, not expanded: the entity would make the document valid.
        let entity = "<!DOCTYPE list [<!ENTITY one \"1\">]><list><item count=\"&one;\"/></list>"
        #expect(throws: XMLSchema.Error.unreadable(file: "x.xml", .declaresEntities)) {
            try schema.validate(Data(entity.utf8), name: "x.xml")
        }
    }

    @Test func aSchemaLibxml2CannotCompileSaysWhereAndWhy() throws {
        let broken = try #require(throws: XMLSchema.Error.self) {
            try compiled(
                "<xs:schema xmlns:xs=\"http://www.w3.org/2001/XMLSchema\">\n<xs:element type=\"xs:nothing\"/>\n</xs:schema>",
                name: "broken.xsd")
        }
        guard case .unusableSchema("broken.xsd", let problems) = broken else {
            Issue.record("expected .unusableSchema, got \(broken)")
            return
        }
        #expect(problems.first?.line == 2, "\(problems)")
        #expect(problems.contains { $0.message.contains("'name' is required") }, "\(problems)")
        #expect(broken.description.hasPrefix("broken.xsd: not a usable XML schema:\n  broken.xsd:2: "))
        #expect(throws: XMLSchema.Error.unreadableSchema(file: "e.xsd", .empty)) { try compiled("", name: "e.xsd") }
    }

    @Test func aSchemaThatIncludesAnotherFileDoesNotCompile() throws {
        // The included file exists and is a good schema: only the refusal of every external resource stops it.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tether-xsd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let included = folder.appendingPathComponent("list.xsd")
        try Data(Self.schema.utf8).write(to: included)
        let including = """
            <xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
              <xs:include schemaLocation="\(included.path)"/>
            </xs:schema>
            """
        let error = try #require(throws: XMLSchema.Error.self) {
            try compiled(including, name: folder.appendingPathComponent("main.xsd").path)
        }
        guard case .unusableSchema(_, let problems) = error else {
            Issue.record("expected .unusableSchema, got \(error)")
            return
        }
        #expect(problems.contains { $0.message.contains("list.xsd") }, "\(problems)")
    }
}
