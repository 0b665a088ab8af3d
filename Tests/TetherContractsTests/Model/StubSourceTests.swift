import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore

/// `StubSource` keeps `location` as what follows `manifestLocation` when it can; every property still reads back
/// exactly as it was given, byte for byte.
@Suite struct StubSourceTests {
    private func source(location: String, manifestLocation: String) -> StubSource {
        StubSource(
            file: "contracts/a.json", location: location, manifest: "contracts/a.json",
            manifestLocation: manifestLocation, line: 3, column: 5)
    }

    @Test(arguments: [
        ("targets[2].sampleData.json", "targets[2].sampleData"),  // an inline stub
        ("", "targets[2].sampleData"),  // a sample file
        ("targets[2].sampleData", "targets[2].sampleData"),
        ("other.json", "targets[2].sampleData"),
        ("targets[1].x", ""),
        ("caf\u{E9}.json", "cafe\u{301}"),  // canonically a prefix, not in bytes
        ("cafe\u{301}.json", "cafe"),  // a prefix in bytes that ends inside a character
    ])
    func everyLocationReadsBackAsGiven(location: String, manifestLocation: String) {
        let stub = source(location: location, manifestLocation: manifestLocation)
        #expect(Array(stub.location.utf8) == Array(location.utf8))
        #expect(Array(stub.manifestLocation.utf8) == Array(manifestLocation.utf8))
        #expect(stub == source(location: location, manifestLocation: manifestLocation))
        #expect(stub != source(location: location + "x", manifestLocation: manifestLocation))
    }

    @Test func settingEitherLocationLeavesTheOtherAsItWas() {
        var stub = source(location: "targets[2].sampleData.json", manifestLocation: "targets[2].sampleData")
        stub.manifestLocation = "targets[7].sampleData"
        #expect(stub.location == "targets[2].sampleData.json")
        #expect(stub.manifestLocation == "targets[7].sampleData")
        stub.location = "targets[7].sampleData.text"
        #expect(stub.location == "targets[7].sampleData.text")
        #expect(stub == source(location: "targets[7].sampleData.text", manifestLocation: "targets[7].sampleData"))
    }
}
