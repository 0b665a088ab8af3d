import Foundation
import TetherTesting
import XCTest

@testable import TetherEngine
@testable import TetherKit

/// The XCTest helper on targets that drift: it fails once per drifted target, at the call site, with the findings.
/// The failures are captured (by overriding `recordFailure`) and checked, so this test fails if they are not made.
final class AssertContractsFailureTests: XCTestCase {
    private struct Always404: HTTPTransport {
        func send(_ requests: [HTTPRequest], options: TransportOptions) -> [Result<HTTPResponse, TransportError>] {
            requests.map { .success(HTTPResponse(statusCode: 404, body: Data("{}".utf8), url: $0.url)) }
        }
    }

    private enum Pages: String, CaseIterable, TargetType {
        case home, about

        var baseURL: URL { URL(string: "http://127.0.0.1:1") ?? URL(fileURLWithPath: "/") }
        var path: String { "/" + rawValue }
        var method: TetherKit.Method { .get }
        var task: Task { .requestPlain }
        var headers: [String: String]? { nil }
    }

    private var captured: [(message: String, line: Int)] = []
    private var isCapturing = false

    override func recordFailure(
        withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool
    ) {
        if isCapturing {
            captured.append((description, lineNumber))
        } else {
            super.recordFailure(withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
        }
    }

    func testEachDriftedTargetFailsOnceWithItsFindings() async {
        let verifier = ContractVerifier(verifier: ContractRunner(transport: Always404(), hostname: "test"))
        isCapturing = true
        let line = #line + 1
        await assertContracts(Pages.allCases, verifier: verifier)
        isCapturing = false  // from here on, failures fail the test again
        let messages = captured.map(\.message)
        XCTAssertEqual(messages.count, 2)
        XCTAssertTrue(messages.first?.contains("DRIFT Pages.home") == true, "\(messages)")
        XCTAssertTrue(messages.last?.contains("DRIFT Pages.about") == true, "\(messages)")
        XCTAssertTrue(messages.allSatisfy { $0.contains("status: expected 200, got 404") }, "\(messages)")
        XCTAssertEqual(captured.map(\.line), [line, line])
    }

    func testNoTargetsFailsWithNothingChecked() async {
        isCapturing = true
        await assertContracts(
            [Pages](), verifier: ContractVerifier(verifier: ContractRunner(transport: Always404(), hostname: "test")))
        isCapturing = false
        let messages = captured.map(\.message)
        XCTAssertEqual(messages.count, 1)
        XCTAssertTrue(messages.first?.contains("nothing was checked: no targets were given") == true, "\(messages)")
    }
}
