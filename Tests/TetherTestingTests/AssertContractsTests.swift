import Foundation
import TetherTesting
import XCTest

@testable import TetherEngine
@testable import TetherKit

/// The XCTest helper on targets that hold: it must not fail the test, and it returns the report.
final class AssertContractsTests: XCTestCase {
    private struct Always200: HTTPTransport {
        func send(_ requests: [HTTPRequest], options: TransportOptions) -> [Result<HTTPResponse, TransportError>] {
            requests.map { .success(HTTPResponse(statusCode: 200, body: Data("[]".utf8), url: $0.url)) }
        }
    }

    private struct List: TargetType {
        var baseURL: URL { URL(fileURLWithPath: "/") }
        var path: String { "" }
        var method: TetherKit.Method { .get }
        var task: Task { .requestPlain }
        var sampleData: Data { Data("[]".utf8) }
        var headers: [String: String]? { nil }
    }

    func testTargetsThatHoldDoNotFail() async {
        let verifier = ContractVerifier(
            baseURL: URL(string: "http://127.0.0.1:1"),
            verifier: ContractRunner(transport: Always200(), hostname: "test"))
        let report = await assertContracts([List()], verifier: verifier)
        XCTAssertTrue(report.isPassing)
        XCTAssertEqual(report.results.first?.contract.request.url, "http://127.0.0.1:1")
    }
}
