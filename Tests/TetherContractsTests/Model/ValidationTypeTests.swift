import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore

/// `ValidationType` is the one home of the cases, their manifest names and their status codes: the loader, the
/// converter and the export agree because they all ask it.
@Suite struct ValidationTypeMappingTests {
    @Test(
        arguments: [
            (ValidationType.none, "none", nil),
            (.successCodes, "successCodes", Array(200...299)),
            (.successAndRedirectCodes, "successAndRedirectCodes", Array(200...399)),
            (.customCodes([200, 304]), "customCodes", [200, 304]),
            (.customCodes([]), "customCodes", []),
        ] as [(ValidationType, String, [Int]?)])
    func eachCaseHasOneNameAndOneListOfCodes(validation: ValidationType, name: String, codes: [Int]?) {
        #expect(validation.name == name)
        #expect(ValidationType.names.contains(name))
        #expect(validation.validStatusCodes == codes)
        #expect(validation.statusCodes == codes ?? [])
        #expect(ValidationType(validStatusCodes: codes) == validation)
    }

    @Test(arguments: [
        (Array(200...299), ValidationType.successCodes),
        (Array(200...399), .successAndRedirectCodes),
        (Array(200...298), .customCodes(Array(200...298))),
        ([404], .customCodes([404])),
    ])
    func codesReadBackAsTheCaseTheyAre(codes: [Int], validation: ValidationType) {
        #expect(ValidationType(validStatusCodes: codes) == validation)
    }

    @Test func namesAreListedInTheOrderMessagesUse() {
        #expect(ValidationType.names == ["none", "successCodes", "successAndRedirectCodes", "customCodes"])
        #expect(ValidationCodes.success == ValidationType.successCodes.statusCodes)
        #expect(ValidationCodes.successAndRedirect == ValidationType.successAndRedirectCodes.statusCodes)
    }

    /// Export, then load: every case comes back as the codes it went out with.
    @Test(
        arguments: [
            (ValidationType.none, nil),
            (.successCodes, #""validationType": "successCodes""#),
            (.successAndRedirectCodes, #""validationType": "successAndRedirectCodes""#),
            (.customCodes([200, 304]), #""customCodes": ["#),
        ] as [(ValidationType, String?)])
    func exportAndLoaderAgree(validation: ValidationType, written: String?) throws {
        let contract = Contract(
            service: "API", name: "target", baseURL: "https://api.test",
            request: HTTPRequest(method: "GET", url: "https://api.test/target"), sampleData: .none,
            validStatusCodes: validation.validStatusCodes, source: "ValidationTypeTests")
        let manifest = try ContractManifest(service: "API", contracts: [TargetContract(contract: contract)])
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tether-validation-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = try manifest.write(to: folder)
        let text = try String(contentsOfFile: file, encoding: .utf8)
        if let written {
            #expect(text.contains(written))
        } else {
            #expect(!text.contains("validationType"))
        }
        let loaded = try ManifestLoader(environment: [:]).load(paths: [file])
        #expect(loaded.map(\.validStatusCodes) == [validation.validStatusCodes])
    }
}
