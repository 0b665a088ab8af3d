import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// Every kind of drift says what to do about it, after what it found (and after its repeat count).
@Suite struct FixHintTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var kind: String
        var stub: StubBody
        var status = 200
        var headers: [HTTPHeader] = []
        var valid: [Int]?
        var liveStatus = 200
        var liveHeaders: [HTTPHeader] = []
        var live: String
        var isStrict = false
        /// The one drift's whole message.
        var message: String
        var testDescription: String { kind }
    }

    static func json(_ text: String) -> StubBody {
        (try? JSONValue.parse(Data(text.utf8))).map(StubBody.json) ?? .none
    }

    static let cases: [Case] = [
        Case(
            kind: "status", stub: .none, liveStatus: 404, live: "",
            message: "expected 200, got 404: check the request's path and query, or fix the stub's status code"),
        Case(
            kind: "validationType", stub: .none, status: 500, valid: ValidationCodes.success, liveStatus: 500,
            live: "",
            message:
                "500 is outside the target's validationType (successCodes, 200-299): fix the request, or widen validationType"
        ),
        Case(
            kind: "header missing", stub: .none, headers: [HTTPHeader("X-Version", "2")], live: "",
            message: #"missing (expected "2"): fix the stub's response headers, or drop the ones the app does not read"#
        ),
        Case(
            kind: "header differs", stub: .none, headers: [HTTPHeader("X-Version", "2")],
            liveHeaders: [HTTPHeader("X-Version", "3")], live: "",
            message:
                #"expected "2", got "3": fix the stub's response headers, or drop the ones the app does not read"#),
        Case(
            kind: "type mismatch", stub: json(#"{"a": "x"}"#), live: #"{"a": 1}"#,
            message: "expected string, got number 1: change the property's type, or fix the stub"),
        Case(
            kind: "fraction for integer", stub: json(#"{"a": 1}"#), live: #"{"a": 1.5}"#,
            message: "expected integer, got fractional number 1.5: declare it Double, or fix the stub"),
        Case(
            kind: "fraction for integer, repeated", stub: json(#"[{"a": 1}]"#), live: #"[{"a": 1.5}, {"a": 2.5}]"#,
            message:
                "expected integer, got fractional number 1.5 … and in 1 more element: declare it Double, or fix the stub"
        ),
        Case(
            kind: "unexpected null", stub: json(#"{"a": 1}"#), live: #"{"a": null}"#,
            message: "unexpected null (stub has integer): make the property optional, or fix the stub"),
        Case(
            kind: "missing key", stub: json(#"{"a": 1}"#), live: "{}",
            message: "missing key (stub has integer): make the property optional, or fix the stub"),
        Case(
            kind: "key not in stub, strict", stub: json("{}"), live: #"{"b": 1}"#, isStrict: true,
            message: "key not in stub (number): add it to the stub, or drop --strict"),
        Case(
            kind: "not JSON", stub: json("{}"), live: "<html>",
            message:
                "expected a JSON body, got text: <html>; …: check the request's path (an error page?), or make sampleData text"
        ),
        Case(
            kind: "empty body for JSON", stub: json("{}"), live: "",
            message: "expected a JSON body, got an empty body: make sampleData empty, or fix the stub"),
        Case(
            kind: "empty body for text", stub: .text(Data("hi".utf8)), live: "",
            message:
                "expected a non-empty body (the stub has text), got an empty body: make sampleData empty, or fix the stub"
        ),
        Case(
            kind: "JSON for text", stub: .text(Data("hi".utf8)), live: "[1]",
            message:
                "expected a body that is not JSON (the stub is text), got JSON: [1]: make sampleData JSON, or fix the stub"
        ),
    ]

    @Test(arguments: cases)
    func eachDriftKindEndsWithAFixHint(_ rule: Case) throws {
        let contract = Contract(
            service: "S", name: "t", baseURL: "http://127.0.0.1",
            request: HTTPRequest(method: "GET", url: "http://127.0.0.1/t"), sampleData: rule.stub,
            sampleResponse: .network(statusCode: rule.status, headers: rule.headers), validStatusCodes: rule.valid,
            source: "test")
        let response = HTTPResponse(
            statusCode: rule.liveStatus, headers: rule.liveHeaders, body: Data(rule.live.utf8),
            url: "http://127.0.0.1/t")
        for parser in [nil, try JSONParser()] {
            let drifts = ContractCheck.findings(
                contract: contract, response: response, isStrict: rule.isStrict, parser: parser
            ).filter(\.isDrift)
            if let elided = rule.message.range(of: "…: ") {
                // The parser's own words in between are not this rule's (the JSON reader words them).
                let message = drifts.first?.message ?? ""
                #expect(drifts.count == 1)
                #expect(message.hasPrefix(rule.message[..<elided.lowerBound]), "\(message)")
                #expect(message.hasSuffix(rule.message[elided.upperBound...]), "\(message)")
            } else {
                #expect(drifts.map(\.message) == [rule.message])
            }
        }
    }
}
