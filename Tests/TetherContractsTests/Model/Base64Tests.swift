import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore

/// `Data(wrappedBase64:)` is the one base64 rule, for manifests' `base64` bodies and HAR files' base64 content alike:
/// white space is skipped, anything else that is not standard base64 is an error, never an empty body.
@Suite struct Base64Tests {
    @Test(
        arguments: [
            ("AAEC/w==", [0, 1, 2, 255]),
            ("AAEC\n/w==", [0, 1, 2, 255]),
            ("  AAEC\r\n\t/w==\n", [0, 1, 2, 255]),
            ("e30=", Array("{}".utf8)),
            ("", []),
            ("\n", []),
        ] as [(String, [UInt8])])
    func whiteSpaceIsSkipped(text: String, bytes: [UInt8]) {
        #expect(Data(wrappedBase64: text) == Data(bytes))
    }

    @Test(arguments: ["!!!!", "AAEC/w=", "AAEC/w", "AAEC-w==", "AAEC_w==", "AAEC/w==x", "AA=C/w==", "e30=,"])
    func anythingElseIsAnError(text: String) {
        #expect(Data(wrappedBase64: text) == nil)
    }
}
