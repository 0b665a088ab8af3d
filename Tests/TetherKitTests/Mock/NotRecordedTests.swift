import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// The mock's "not recorded" answer is an error of the run, never a drift; any other 404 still is a drift.
@Suite struct NotRecordedTests {
    static let contract = Contract(
        service: "Shop", name: "nothere", baseURL: "http://127.0.0.1:1",
        request: HTTPRequest(method: "GET", url: "http://127.0.0.1:1/nothere"),
        sampleData: .json(.object([JSONMember("id", .integer(1))])), source: "shop.json")

    static func answer(_ response: MockResponse, url: String = "http://127.0.0.1:1/nothere") -> HTTPResponse {
        HTTPResponse(
            statusCode: response.status, headers: response.headers, body: response.body, url: url, duration: 0.25)
    }

    @Test func theMocksMissIsAnErrorNamingTheFileAndTheRequest() {
        let miss = NotRecorded.response(for: MockRequest(method: "GET", path: "/nothere"), file: "small.har")
        let result = ContractRunner.result(
            contract: Self.contract, response: .success(Self.answer(miss)), isStrict: false)
        #expect(
            result.outcome
                == .error(
                    "not recorded in small.har: GET /nothere; record it in the HAR file, or check the target's "
                        + "method, path and query"))
        #expect(result.findings.isEmpty)
        #expect(result.liveURL == "http://127.0.0.1:1/nothere")
        #expect(result.duration == 0.25)
    }

    @Test func aServicesOwn404StaysADrift() {
        let notFound = MockResponse.json(#"{"error": "not recorded in small.har: GET /nothere"}"#, status: 404)
        let result = ContractRunner.result(
            contract: Self.contract, response: .success(Self.answer(notFound)), isStrict: false)
        #expect(result.outcome == .drifted)
        #expect(result.findings.first?.kind == .drift)
        #expect(result.findings.first?.path == "status")
        #expect(result.findings.first?.message.hasPrefix("expected 200, got 404") == true)
    }

    @Test(arguments: ["not-recorded", "Not-Recorded", " not-recorded "])
    func theMarkerIsReadWhateverItsCase(value: String) {
        let marked = HTTPResponse(
            statusCode: 404, headers: [HTTPHeader("x-tether-mock", value)], body: Data(), url: "http://127.0.0.1:1/a")
        #expect(NotRecorded.isMarked(marked))
        #expect(!NotRecorded.isMarked(HTTPResponse(statusCode: 404, url: "http://127.0.0.1:1/a")))
        #expect(
            !NotRecorded.isMarked(
                HTTPResponse(
                    statusCode: 404, headers: [HTTPHeader("X-Tether-Mock", "recorded")], url: "http://127.0.0.1:1/a")))
    }

    @Test func aMarkedAnswerWithoutItsBodyStillNamesTheURL() {
        let marked = HTTPResponse(
            statusCode: 404, headers: [HTTPHeader("X-Tether-Mock", "not-recorded")], body: Data("<html>".utf8),
            url: "http://127.0.0.1:1/a?b=1")
        #expect(
            NotRecorded.errorMessage(for: marked)
                == "not recorded in the mock's HAR file: http://127.0.0.1:1/a?b=1; record it in the HAR file, or "
                + "check the target's method, path and query")
    }
}
