import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

private struct NewIssue: Encodable {
    var title: String
    var labels: [String]
}

private struct Event: Encodable {
    var createdAt: Date
    var eventName: String
}

/// Every `Task` becomes the request Moya (through Alamofire) would send: method, URL, query, body bytes, Content-Type.
@Suite struct TaskTests {
    @Test func requestPlainSendsNoBodyAndNoContentType() throws {
        let request = try contract(TestTarget(method: .delete, task: .requestPlain)).request
        #expect(request.method == "DELETE")
        #expect(request.url == "https://api.example.com/things")
        #expect(request.body == nil)
        #expect(request.headers.isEmpty)
    }

    @Test func requestDataSendsTheBytesAsTheyAre() throws {
        let bytes = Data([0x00, 0xFF, 0x41])
        let request = try contract(TestTarget(method: .put, task: .requestData(bytes))).request
        #expect(request.method == "PUT")
        #expect(request.body == bytes)
        #expect(request.headers.isEmpty)
    }

    @Test func requestJSONEncodableUsesADefaultJSONEncoder() throws {
        let issue = NewIssue(title: "Found a bug in a/b", labels: ["bug"])
        let request = try contract(TestTarget(method: .post, task: .requestJSONEncodable(issue))).request
        // A default JSONEncoder (slashes escaped), keys sorted so that every run sends the same bytes.
        #expect(bodyText(request.body) == #"{"labels":["bug"],"title":"Found a bug in a\/b"}"#)
        #expect(request.headers == [HTTPHeader("Content-Type", "application/json")])
    }

    @Test func requestCustomJSONEncodableUsesTheGivenEncoder() throws {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        let event = Event(createdAt: Date(timeIntervalSince1970: 0), eventName: "push")
        let request = try contract(
            TestTarget(method: .post, task: .requestCustomJSONEncodable(event, encoder: encoder))
        ).request
        #expect(bodyText(request.body) == #"{"created_at":"1970-01-01T00:00:00Z","event_name":"push"}"#)
        #expect(request.headers == [HTTPHeader("Content-Type", "application/json")])
    }

    @Test func aContentTypeOfTheTargetWins() throws {
        let target = TestTarget(
            method: .post, task: .requestJSONEncodable(["a": 1]), headers: ["content-type": "application/vnd.api+json"])
        let request = try contract(target).request
        #expect(request.headers == [HTTPHeader("content-type", "application/vnd.api+json")])
    }

    static var parameters: [String: Any] {
        [
            "q": "swift lang&more=1", "page": 2, "tags": ["a", "b"], "flag": true, "user": ["name": "n/a?"], "pi": 3.5,
            "none": NSNull(),
        ]
    }
    static let query =
        "flag=1&none=&page=2&pi=3.5&q=swift%20lang%26more%3D1&tags%5B%5D=a&tags%5B%5D=b&user%5Bname%5D=n/a?"

    @Test(arguments: [TetherKit.Method.get, .head, .delete])
    func urlEncodingDefaultPutsParametersInTheQueryForGetHeadDelete(method: TetherKit.Method) throws {
        let request = try contract(
            TestTarget(
                method: method, task: .requestParameters(parameters: Self.parameters, encoding: URLEncoding.default))
        ).request
        #expect(request.url == "https://api.example.com/things?" + Self.query)
        #expect(request.body == nil)
        #expect(request.headers.isEmpty)
    }

    @Test func urlEncodingDefaultPutsParametersInAFormBodyForPost() throws {
        let request = try contract(
            TestTarget(
                method: .post, task: .requestParameters(parameters: Self.parameters, encoding: URLEncoding.default))
        ).request
        #expect(request.url == "https://api.example.com/things")
        #expect(bodyText(request.body) == Self.query)
        #expect(request.headers == [HTTPHeader("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")])
    }

    @Test func urlEncodingQueryStringAndHTTPBodyIgnoreTheMethod() throws {
        let query = try contract(
            TestTarget(
                method: .post,
                task: .requestParameters(parameters: ["b": 2, "a": "x y"], encoding: URLEncoding.queryString))
        ).request
        #expect(query.url == "https://api.example.com/things?a=x%20y&b=2")
        #expect(query.body == nil)
        let body = try contract(
            TestTarget(
                method: .get,
                task: .requestParameters(parameters: ["b": 2, "a": "x y"], encoding: URLEncoding.httpBody))
        ).request
        #expect(body.url == "https://api.example.com/things")
        #expect(bodyText(body.body) == "a=x%20y&b=2")
    }

    @Test func queryParametersFollowAQueryAlreadyInTheEndpointURL() throws {
        let closure = { (target: TestTarget) -> Endpoint in
            Endpoint(
                url: URL(target: target).absoluteString + "?per_page=2",
                sampleResponseClosure: { .networkResponse(200, Data()) },
                method: target.method, task: target.task, httpHeaderFields: target.headers)
        }
        let target = TestTarget(task: .requestParameters(parameters: ["page": 3], encoding: URLEncoding.queryString))
        let request = try TargetConverter(endpointClosure: closure).contract(for: target).contract.request
        #expect(request.url == "https://api.example.com/things?per_page=2&page=3")
    }

    @Test func jsonEncodingSendsACompactJSONBodyWithSortedKeys() throws {
        let request = try contract(
            TestTarget(
                method: .patch,
                task: .requestParameters(
                    parameters: ["b": [1, 2], "a": ["z": NSNull(), "y": false]], encoding: JSONEncoding.default))
        ).request
        #expect(request.method == "PATCH")
        #expect(bodyText(request.body) == #"{"a":{"y":false,"z":null},"b":[1,2]}"#)
        #expect(request.headers == [HTTPHeader("Content-Type", "application/json")])
    }

    @Test func requestCompositeDataSendsTheBytesAndAQuery() throws {
        let request = try contract(
            TestTarget(
                method: .post,
                task: .requestCompositeData(bodyData: Data("raw".utf8), urlParameters: ["v": "1.0", "a": "b c"]))
        ).request
        #expect(request.url == "https://api.example.com/things?a=b%20c&v=1.0")
        #expect(bodyText(request.body) == "raw")
        #expect(request.headers.isEmpty)
    }

    @Test func requestCompositeParametersSendsABodyAndAQuery() throws {
        let json = try contract(
            TestTarget(
                method: .post,
                task: .requestCompositeParameters(
                    bodyParameters: ["title": "x"], bodyEncoding: JSONEncoding.default, urlParameters: ["draft": true]))
        ).request
        #expect(json.url == "https://api.example.com/things?draft=1")
        #expect(bodyText(json.body) == #"{"title":"x"}"#)
        #expect(json.headers == [HTTPHeader("Content-Type", "application/json")])

        let form = try contract(
            TestTarget(
                method: .post,
                task: .requestCompositeParameters(
                    bodyParameters: ["title": "x y"], bodyEncoding: URLEncoding.httpBody, urlParameters: [:]))
        ).request
        #expect(form.url == "https://api.example.com/things")
        #expect(bodyText(form.body) == "title=x%20y")
        #expect(form.headers == [HTTPHeader("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")])
    }

    @Test func requestCompositeParametersRefusesAQueryBodyEncodingAsMoyaDoes() {
        let target = TestTarget(
            name: "search", method: .post,
            task: .requestCompositeParameters(
                bodyParameters: ["a": 1], bodyEncoding: URLEncoding.default, urlParameters: [:]))
        #expect {
            try TargetConverter().contract(for: target)
        } throws: { error in
            "\(error)".hasPrefix(
                "TestTarget.search: requestCompositeParameters: bodyEncoding must be JSONEncoding or URLEncoding.httpBody"
            )
        }
    }

    @Test func uploadsAndDownloadsAreSkippedWithAReason() throws {
        let destination: DownloadDestination = { url, _ in (url, []) }
        let tasks: [Task] = [
            .uploadFile(literalURL("file:///tmp/a.png")),
            .uploadMultipart([MultipartFormData(provider: .data(Data("x".utf8)), name: "file")]),
            .uploadCompositeMultipart([], urlParameters: ["a": 1]),
            .downloadDestination(destination),
            .downloadParameters(parameters: [:], encoding: URLEncoding.default, destination: destination),
        ]
        for task in tasks {
            let converted = try TargetConverter().contract(for: TestTarget(method: .post, task: task))
            let reason = try #require(converted.skipReason)
            #expect(reason.contains("upload") || reason.contains("download"))
            #expect(converted.contract.request.body == nil)
        }
    }

    @Test func headersAreSortedByNameAndAddedHeadersReplaceTheTargets() throws {
        let target = TestTarget(headers: ["X-B": "2", "accept": "text/plain", "A": "1"])
        let converter = TargetConverter(headers: ["Accept": "application/json", "Authorization": "Bearer t"])
        let request = try converter.contract(for: target).contract.request
        #expect(
            request.headers == [
                HTTPHeader("A", "1"), HTTPHeader("Accept", "application/json"), HTTPHeader("Authorization", "Bearer t"),
                HTTPHeader("X-B", "2"),
            ])
    }
}
