import Foundation
import Testing
import TetherTesting

@testable import TetherEngine
@testable import TetherKit

/// A transport test double: every request gets the status `statuses` gives its path, 200 otherwise.
private struct PathStatusTransport: HTTPTransport {
    var statuses: [String: Int] = [:]
    var failingPaths: Set<String> = []

    func send(_ requests: [HTTPRequest], options: TransportOptions) -> [Result<HTTPResponse, TransportError>] {
        requests.map { request in
            let path = URLComponents(string: request.url)?.path ?? ""
            if failingPaths.contains(path) {
                return .failure(TransportError(message: "Couldn't connect to server", url: request.url, code: 7))
            }
            return .success(
                HTTPResponse(statusCode: statuses[path] ?? 200, body: Data(#"{"id": 1}"#.utf8), url: request.url))
        }
    }
}

private enum Shop: String, CaseIterable, TargetType {
    case cart, orders, profile

    var baseURL: URL { URL(string: "http://127.0.0.1:1") ?? URL(fileURLWithPath: "/") }
    var path: String { "/" + rawValue }
    var method: TetherKit.Method { .get }
    var task: Task { .requestPlain }
    var sampleData: Data { Data(#"{"id": 7}"#.utf8) }
    var headers: [String: String]? { nil }
}

private func verifier(_ transport: PathStatusTransport) -> ContractVerifier {
    ContractVerifier(verifier: ContractRunner(transport: transport, hostname: "test"))
}

private func comments(_ issue: Issue) -> String {
    issue.comments.map(\.rawValue).joined(separator: "\n")
}

@Suite struct ExpectContractsTests {
    @Test func targetsThatHoldRecordNoIssue() async throws {
        let report = try await expectContracts(Shop.allCases, verifier: verifier(PathStatusTransport()))
        #expect(report.isPassing)
    }

    @Test func eachDriftedTargetGivesOneMessageWithItsFindings() async {
        let report = await verifier(PathStatusTransport(statuses: ["/cart": 404, "/profile": 500])).verify(
            Shop.allCases)
        let messages = ContractIssues.messages(for: report)
        #expect(messages.count == 2)
        #expect(messages.first?.hasPrefix("DRIFT Shop.cart") == true)
        #expect(messages.first?.contains("status: expected 200, got 404") == true)
        #expect(messages.last?.hasPrefix("DRIFT Shop.profile") == true)
        #expect(messages.last?.contains("status: expected 200, got 500") == true)
    }

    @Test func aDriftRecordsAnIssueWhoseTextIsTheFindings() async throws {
        try await withKnownIssue {
            try await expectContracts(
                Shop.allCases, verifier: verifier(PathStatusTransport(statuses: ["/orders": 404])))
        } matching: { issue in
            comments(issue).hasPrefix("DRIFT Shop.orders") && comments(issue).contains("status: expected 200, got 404")
        }
    }

    @Test func aTransportErrorRecordsAnIssue() async throws {
        try await withKnownIssue {
            try await expectContracts([Shop.cart], verifier: verifier(PathStatusTransport(failingPaths: ["/cart"])))
        } matching: { issue in
            comments(issue).hasPrefix("ERROR Shop.cart") && comments(issue).contains("Couldn't connect to server")
        }
    }

    @Test func noTargetsRecordsThatNothingWasChecked() async throws {
        try await withKnownIssue {
            try await expectContracts([Shop](), verifier: verifier(PathStatusTransport()))
        } matching: { issue in
            comments(issue) == "nothing was checked: no targets were given"
        }
    }

    @Test func theDecodeCheckRecordsTheCodingPath() async throws {
        struct Profile: Decodable {
            var id: String
        }
        try await withKnownIssue {
            try await expectContract(Shop.profile, decodes: Profile.self, verifier: verifier(PathStatusTransport()))
        } matching: { issue in
            comments(issue).contains("$.id: Profile does not decode (typeMismatch")
        }
    }

    @Test func theJUnitReportIsWrittenWhenAsked() async throws {
        let path = NSTemporaryDirectory() + "tether-testing-" + UUID().uuidString + ".xml"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await expectContracts([Shop.cart], verifier: verifier(PathStatusTransport()), junitPath: path)
        let xml = try String(contentsOfFile: path, encoding: .utf8)
        #expect(xml.contains(#"<testcase classname="Shop" name="cart""#))
    }
}
