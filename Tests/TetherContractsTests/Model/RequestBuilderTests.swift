import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore

private func object(_ members: (String, JSONValue)...) -> JSONValue { .object(members.map { JSONMember($0.0, $0.1) }) }
private func text(_ data: Data?) -> String? { data.map { String(decoding: $0, as: UTF8.self) } }

/// Every task encoding produces the request Moya (through Alamofire) would send.
@Suite struct RequestBuilderTests {
    @Test(arguments: [
        ("https://api.github.com", "/users/octocat", "https://api.github.com/users/octocat"),
        ("https://api.github.com/", "/users/octocat", "https://api.github.com/users/octocat"),
        ("https://x.test/v1", "users", "https://x.test/v1/users"),
        ("https://x.test", "", "https://x.test"),
        ("https://x.test", "/a b/ü", "https://x.test/a%20b/%C3%BC"),
        ("https://x.test", "/what?", "https://x.test/what%3F"),
    ])
    func urlIsBaseURLAppendingPath(base: String, path: String, expected: String) {
        #expect(
            RequestBuilder.request(method: "get", baseURL: base, path: path, headers: [], task: .plain).url == expected)
    }

    /// Moya's `URL(target:)` then Alamofire's `URLEncoding`, done by Foundation itself: the oracle for the table below.
    static func moyaURL(base: String, path: String, query: String) -> String? {
        guard let baseURL = URL(string: base) else { return nil }
        let url = path.isEmpty ? baseURL : baseURL.appendingPathComponent(path)
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        if !query.isEmpty {
            components.percentEncodedQuery = (components.percentEncodedQuery.map { $0 + "&" } ?? "") + query
        }
        components.fragment = nil  // never on the wire
        return components.string
    }

    /// A base URL's query stays (after the path), its fragment is dropped, parameters join its query with `&`.
    @Test(arguments: [
        ("https://h.test/anything?key=abc", "/json", [], "https://h.test/anything/json?key=abc"),
        ("https://h.test/anything#top", "/json", [], "https://h.test/anything/json"),
        ("https://h.test/anything?key=abc#top", "json", [], "https://h.test/anything/json?key=abc"),
        ("https://h.test/anything/", "/json", [], "https://h.test/anything/json"),
        ("https://h.test/anything/?key=abc", "/json/", [], "https://h.test/anything/json/?key=abc"),
        ("https://h.test/anything?key=abc", "", [], "https://h.test/anything?key=abc"),
        ("https://h.test/anything?key=abc#top", "", [("p", "1")], "https://h.test/anything?key=abc&p=1"),
        ("https://h.test?key=abc", "/zen", [], "https://h.test/zen?key=abc"),
        ("https://h.test/anything?key=abc", "/json", [("p", "1")], "https://h.test/anything/json?key=abc&p=1"),
        (
            "https://h.test/anything#top", "/json", [("p", "1"), ("q", "a b")],
            "https://h.test/anything/json?p=1&q=a%20b"
        ),
        ("https://h.test/a?", "b", [("p", "1")], "https://h.test/a/b?&p=1"),
        ("https://h.test/a?x=%2F&y", "/b c", [("p", "1")], "https://h.test/a/b%20c?x=%2F&y&p=1"),
    ])
    func baseURLQueryIsKeptAndFragmentDropped(base: String, path: String, query: [(String, String)], expected: String) {
        let request = RequestBuilder.request(
            method: "GET", baseURL: base, path: path, query: query, headers: [], task: .plain)
        #expect(request.url == expected)
        let encoded = query.map { "\(RequestBuilder.escape($0.0))=\(RequestBuilder.escape($0.1))" }.joined(
            separator: "&")
        #expect(Self.moyaURL(base: base, path: path, query: encoded) == expected)
        // The task's URL parameters go the same way, after the target's own query.
        let parameters = RequestBuilder.request(
            method: "GET", baseURL: base, path: path, headers: [],
            task: .parameters(.object(query.map { JSONMember($0.0, .string($0.1)) }), encoding: .queryString))
        #expect(parameters.url == expected)
    }

    @Test func urlEncodingSortsKeysAndEscapesLikeAlamofire() {
        let parameters = object(
            ("q", .string("x y&z=1")), ("ids", .array([.integer(1), .integer(2)])), ("flag", .bool(true)),
            ("user", object(("name", .string("n/a?")))), ("pi", .double(3.5)))
        let get = RequestBuilder.request(
            method: "GET", baseURL: "https://x.test", path: "/s", headers: [],
            task: .parameters(parameters, encoding: .url))
        #expect(get.url == "https://x.test/s?flag=1&ids%5B%5D=1&ids%5B%5D=2&pi=3.5&q=x%20y%26z%3D1&user%5Bname%5D=n/a?")
        #expect(get.body == nil)
        #expect(get.headers.isEmpty)
    }

    @Test func urlEncodingIsMethodDependent() {
        let parameters = object(("b", .string("2")), ("a", .string("1")))
        for method in ["GET", "HEAD", "DELETE"] {
            let request = RequestBuilder.request(
                method: method, baseURL: "https://x.test", path: "/", headers: [],
                task: .parameters(parameters, encoding: .url))
            #expect(request.url == "https://x.test/?a=1&b=2")
        }
        let post = RequestBuilder.request(
            method: "post", baseURL: "https://x.test", path: "/", headers: [],
            task: .parameters(parameters, encoding: .url))
        #expect(post.method == "POST")
        #expect(post.url == "https://x.test/")
        #expect(text(post.body) == "a=1&b=2")
        #expect(post.headers == [HTTPHeader("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")])
        let query = RequestBuilder.request(
            method: "POST", baseURL: "https://x.test", path: "/", headers: [],
            task: .parameters(parameters, encoding: .queryString))
        #expect(query.url == "https://x.test/?a=1&b=2")
        #expect(query.body == nil)
        let body = RequestBuilder.request(
            method: "GET", baseURL: "https://x.test", path: "/", headers: [],
            task: .parameters(parameters, encoding: .httpBody))
        #expect(text(body.body) == "a=1&b=2")
    }

    @Test func jsonBodiesKeepOrderAndSetContentTypeUnlessGiven() {
        let value = object(("title", .string("Found a bug")), ("labels", .array([.string("bug")])))
        let request = RequestBuilder.request(
            method: "POST", baseURL: "https://x.test", path: "/i", headers: [HTTPHeader("Accept", "*/*")],
            task: .json(value))
        #expect(text(request.body) == #"{"title":"Found a bug","labels":["bug"]}"#)
        #expect(request.headers == [HTTPHeader("Accept", "*/*"), HTTPHeader("Content-Type", "application/json")])
        let custom = RequestBuilder.request(
            method: "POST", baseURL: "https://x.test", path: "/i",
            headers: [HTTPHeader("content-type", "application/vnd.api+json")], task: .parameters(value, encoding: .json)
        )
        #expect(custom.headers == [HTTPHeader("content-type", "application/vnd.api+json")])
    }

    @Test func compositeTasksSplitBodyAndQuery() {
        let composite = RequestBuilder.request(
            method: "PUT", baseURL: "https://x.test", path: "/c", query: [("v", "1")], headers: [],
            task: .compositeParameters(
                body: object(("a", .integer(1))), bodyEncoding: .json, urlParameters: object(("page", .integer(2)))))
        #expect(composite.url == "https://x.test/c?v=1&page=2")
        #expect(text(composite.body) == #"{"a":1}"#)
        let formBody = RequestBuilder.request(
            method: "GET", baseURL: "https://x.test", path: "/c", headers: [],
            task: .compositeParameters(
                body: object(("a", .integer(1))), bodyEncoding: .url, urlParameters: object(("p", .integer(2)))))
        #expect(formBody.url == "https://x.test/c?p=2")
        #expect(text(formBody.body) == "a=1")
        let data = RequestBuilder.request(
            method: "POST", baseURL: "https://x.test", path: "/d", headers: [],
            task: .compositeData(body: Data([0, 1]), urlParameters: object(("k", .string("v w")))))
        #expect(data.url == "https://x.test/d?k=v%20w")
        #expect(data.body == Data([0, 1]))
        #expect(data.headers.isEmpty)
    }
}

@Suite struct PercentEncodingTests {
    /// Our byte-level encoder gives exactly what Foundation gives for the same sets.
    @Test func matchesFoundationForPathAndQuerySets() {
        var query = CharacterSet.urlQueryAllowed
        query.remove(charactersIn: ":#[]@!$&'()*+,;=")
        let ascii = String((1..<128).map { Character(Unicode.Scalar(UInt8($0))) })
        for text in [ascii, "a b/ü?x=1&y=%20", "😀 emoji", "", "plain-text_~.", "line\nbreak\ttab"] {
            #expect(RequestBuilder.escape(text) == text.addingPercentEncoding(withAllowedCharacters: query))
            #expect(
                RequestBuilder.joined(baseURL: "http://h", path: "/" + text)
                    == "http://h" + ("/" + text).addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)!)
        }
    }
}

@Suite struct URLSplitTests {
    /// The byte cut of an ASCII URL and the `Character` cut of any other give what a `Character` search gives: a
    /// `#` or `?` followed by a combining mark is no `#` or `?` character, so it cuts nothing.
    @Test(arguments: [
        ("https://h.test/a?b=1#c", "https://h.test/a", "b=1" as String?),
        ("https://h.test/a#c?d", "https://h.test/a", nil),
        ("https://h.test/a?", "https://h.test/a", ""),
        ("https://h.test/a", "https://h.test/a", nil),
        ("https://h.test/ü?x=é#f", "https://h.test/ü", "x=é"),
        ("https://h.test/a?\u{301}b#c", "https://h.test/a?\u{301}b", nil),
        ("https://h.test/a#\u{301}?b", "https://h.test/a#\u{301}", "b"),
    ])
    func cutsAtFragmentThenQuery(url: String, head: String, query: String?) {
        let split = RequestBuilder.split(url)
        #expect(split.head == head)
        #expect(split.query == query)
    }
}
