import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

private func contract(
    _ sampleData: StubBody = .none, status: Int = 200, headers: [HTTPHeader] = [], method: String = "GET",
    valid: [Int]? = nil
) -> Contract {
    Contract(
        service: "S", name: "t", baseURL: "http://127.0.0.1",
        request: HTTPRequest(method: method, url: "http://127.0.0.1/t"),
        sampleData: sampleData, sampleResponse: .network(statusCode: status, headers: headers), validStatusCodes: valid,
        source: "test")
}

private func live(_ status: Int = 200, _ body: String = "", headers: [HTTPHeader] = []) -> HTTPResponse {
    HTTPResponse(statusCode: status, headers: headers, body: Data(body.utf8), url: "http://127.0.0.1/t")
}

@Suite struct ContractCheckTests {
    @Test func statusMustEqualTheStubs() {
        #expect(ContractCheck.findings(contract: contract(status: 401), response: live(401)).filter(\.isDrift).isEmpty)
        #expect(
            ContractCheck.findings(contract: contract(), response: live(404)).filter(\.isDrift) == [
                Finding(
                    .drift, .status, at: .status,
                    "expected 200, got 404: check the request's path and query, or fix the stub's status code",
                    expected: "200", actual: "404")
            ])
    }

    @Test func aDifferentStatusLeavesTheBodyUncomparedWithANote() {
        let findings = ContractCheck.findings(contract: contract(.json(.array([]))), response: live(500, "oops"))
        #expect(
            findings == [
                Finding(
                    .drift, .status, at: .status,
                    "expected 200, got 500: check the request's path and query, or fix the stub's status code",
                    expected: "200", actual: "500"),
                Finding(
                    .note, .notCompared, at: .body,
                    "not compared: the status differs, so the body answers another case than the stub"),
            ])
    }

    @Test func validationTypeFailsStatusesOutsideIt() {
        let findings = ContractCheck.findings(
            contract: contract(status: 404, valid: ValidationCodes.success), response: live(404))
        #expect(
            findings.filter(\.isDrift) == [
                Finding(
                    .drift, .validationType, at: .status,
                    "404 is outside the target's validationType (successCodes, 200-299): fix the request, or widen validationType"
                )
            ])
        let both = ContractCheck.findings(contract: contract(status: 200, valid: [200, 304]), response: live(500))
        #expect(both.filter(\.isDrift).count == 2)
    }

    @Test func stubbedHeadersMustBePresentAndEqual() {
        let headers = [HTTPHeader("Content-Type", "application/json"), HTTPHeader("X-Version", "2")]
        let holds = ContractCheck.findings(
            contract: contract(status: 201, headers: headers),
            response: live(
                201,
                headers: [HTTPHeader("content-type", "Application/JSON; charset=utf-8"), HTTPHeader("x-version", "2")]))
        #expect(holds.filter(\.isDrift).isEmpty)
        let drifts = ContractCheck.findings(
            contract: contract(status: 201, headers: headers),
            response: live(201, headers: [HTTPHeader("Content-Type", "text/html")]))
        #expect(
            drifts.filter(\.isDrift) == [
                Finding(
                    .drift, .header, at: .header("Content-Type"),
                    "expected \"application/json\", got \"text/html\": fix the stub's response headers, or drop the ones the app does not read",
                    expected: "application/json", actual: "text/html"),
                Finding(
                    .drift, .missingHeader, at: .header("X-Version"),
                    "missing (expected \"2\"): fix the stub's response headers, or drop the ones the app does not read",
                    expected: "2", actual: "absent"),
            ])
    }

    @Test func textStubsWantANonEmptyNonJSONBody() {
        let stub = StubBody.text(Data("Half measures are as bad as nothing at all.".utf8))
        #expect(
            ContractCheck.findings(
                contract: contract(stub), response: live(200, "Non-blocking is better than blocking.")
            ).isEmpty)
        #expect(
            ContractCheck.findings(contract: contract(stub), response: live(200, "")) == [
                Finding(
                    .drift, .emptyBody, at: .body,
                    "expected a non-empty body (the stub has text), got an empty body: make sampleData empty, or fix the stub"
                )
            ])
        #expect(
            ContractCheck.findings(contract: contract(stub), response: live(200, #"{"zen": "x"}"#)) == [
                Finding(
                    .drift, .unexpectedJSON, at: .body,
                    #"expected a body that is not JSON (the stub is text), got JSON: {"zen": "x"}: make sampleData JSON, or fix the stub"#
                )
            ])
    }

    @Test func anEmptyStubChecksOnlyTheStatusAndSaysSo() {
        #expect(
            ContractCheck.findings(contract: contract(.none), response: live(200, "[1]")) == [
                Finding(
                    .note, .notCompared, at: .body,
                    "not checked: the stub has no body (sampleData is empty), so only the status was checked")
            ])
    }

    @Test func jsonStubsGoThroughTheStructureDiff() {
        let stub = StubBody.json(.object([JSONMember("name", .string("Repo Name"))]))
        #expect(
            ContractCheck.findings(contract: contract(stub), response: live(200, #"{"name": "tether"}"#)).filter(
                \.isDrift
            ).isEmpty)
        #expect(
            !ContractCheck.findings(contract: contract(stub), response: live(200, "<html>")).filter(\.isDrift).isEmpty)
        #expect(!ContractCheck.findings(contract: contract(stub), response: live(200, "[]")).filter(\.isDrift).isEmpty)
    }

    @Test func headRequestsHaveNoBodyToCompare() {
        let findings = ContractCheck.findings(
            contract: contract(.json(.array([])), method: "HEAD"), response: live(200))
        #expect(findings == [Finding(.note, .notCompared, at: .body, "not compared: a HEAD response has no body")])
    }

    @Test func networkErrorStubsAreSkippedWithTheStubbedError() {
        var skipped = contract()
        skipped.sampleResponse = .networkError(
            code: -1009, description: "The Internet connection appears to be offline.")
        let result = ContractRunner.result(contract: skipped, response: nil, isStrict: false)
        #expect(
            result.outcome
                == .skipped(
                    "the stub is a networkError (code -1009: The Internet connection appears to be offline.): there is no response to check against a service"
                ))
    }
}

@Suite struct HeaderRuleTests {
    private func response(_ headers: [HTTPHeader]) -> HTTPResponse {
        HTTPResponse(statusCode: 200, headers: headers, url: "http://127.0.0.1/")
    }

    @Test func aRepeatedHeaderHoldsWhenAnyOfItsValuesDoes() {
        let live = response([HTTPHeader("Link", "<a>; rel=\"prev\""), HTTPHeader("link", "<b>; rel=\"next\"")])
        #expect(
            ContractCheck.headerFindings(expected: [HTTPHeader("Link", "<b>; rel=\"next\"")], response: live).isEmpty)
    }

    @Test func credentialValuesAreNeverPutIntoAMessage() {
        let live = response([HTTPHeader("Set-Cookie", "session=SERVERSECRET123")])
        let findings = ContractCheck.headerFindings(expected: [HTTPHeader("Set-Cookie", "session=x")], response: live)
        #expect(
            findings == [
                Finding(
                    .drift, .header, at: .header("Set-Cookie"),
                    "expected <redacted>, got <redacted>: fix the stub's response headers, or drop the ones the app does not read",
                    expected: "<redacted>", actual: "<redacted>")
            ])
        let missing = ContractCheck.headerFindings(
            expected: [HTTPHeader("Authorization", "Bearer t")], response: response([]))
        #expect(
            missing == [
                Finding(
                    .drift, .missingHeader, at: .header("Authorization"),
                    "missing (expected <redacted>): fix the stub's response headers, or drop the ones the app does not read",
                    expected: "<redacted>", actual: "absent")
            ])
    }
}
