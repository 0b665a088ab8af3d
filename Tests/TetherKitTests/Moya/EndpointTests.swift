import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The testing guide's custom endpoint closure: every target answers an immediate 401.
func unauthorizedEndpointClosure(_ target: GitHub) -> Endpoint {
    Endpoint(
        url: URL(target: target).absoluteString,
        sampleResponseClosure: { .networkResponse(401, Data(#"{"message": "Requires authentication"}"#.utf8)) },
        method: target.method, task: target.task, httpHeaderFields: target.headers)
}

/// Targets become contracts through endpoint closures, as `MoyaProvider` turns them into requests.
@Suite struct EndpointTests {
    @Test func urlOfATargetIsBaseURLAppendingPath() {
        #expect(URL(target: GitHub.zen).absoluteString == "https://api.github.com/zen")
        #expect(URL(target: TestTarget(path: "")).absoluteString == "https://api.example.com")
        #expect(
            URL(target: TestTarget(baseURL: literalURL("https://x.test/v3/"), path: "users")).absoluteString
                == "https://x.test/v3/users")
    }

    @Test func theDefaultMappingsURLIsWhatURLTargetGivesBack() {
        // Kept whole: the joined text is the URL's. Left to URL: upper case in the host, a fragment, IPv6, a bad
        // port, a space, a lone %, non-ASCII.
        let kept = [
            "http://127.0.0.1:8080/c/1.json", "https://api.github.com/users/octocat?per_page=2&x=a%2Fb",
            "http://h.test:65535/", "http://h.test:0",
            "https://x.test/a;b=c/@me/!$'()*+,~", "http://h", "https://h.test?q",
        ]
        for text in kept {
            #expect(URL.isKeptWhole(text), "\(text)")
            // What the converter takes for an http or https URL without asking `URL` (`TargetConverter.contract`).
            #expect(HTTPRequest.isHTTPURL(text), "\(text)")
        }
        for text in [
            "HTTP://h.test/", "https://H.test/", "https://h.test/a#f", "http://[::1]/", "http://h:/",
            "http://h:123456/",
            "http://h.test/a b", "http://h.test/%4", "http://h.test/%zz", "https://h.test/é", "ftp://h.test/",
            "https://",
            "http://h.test:80x/", "http://user@h.test/", "http://h.test:65536/", "http://h.test:123456/",
        ] {
            #expect(!URL.isKeptWhole(text), "\(text)")
        }
        // Whatever the text, kept whole or not, the endpoint's URL is `URL(target:)`'s.
        var generator = SystemRandomNumberGenerator()
        let bases = [
            "https://api.example.com", "http://127.0.0.1:9/v3/", "https://x.test/a?b=1", "https://Up.test/x#f",
        ]
        let alphabet = Array("az09-._~!$&'()*+,;=:@/?%#[] éZ")
        for _ in 0..<2_000 {
            let path = String(
                (0..<Int.random(in: 0...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
            let target = TestTarget(baseURL: literalURL(bases.randomElement(using: &generator)!), path: path)
            #expect(
                URL.absoluteString(target: target) == URL(target: target).absoluteString, "\(target.baseURL) \(path)")
            let joined = URL.absoluteString(target: target)
            #expect(!URL.isKeptWhole(joined) || HTTPRequest.isHTTPURL(joined), "\(joined)")
        }
        for text in kept {
            #expect(URL(string: text)?.absoluteString == text, "\(text)")
        }
    }

    @Test func defaultMappingStubsA200WithTheSampleData() throws {
        let endpoint = MoyaProvider.defaultEndpointMapping(for: GitHub.userProfile("octocat"))
        #expect(endpoint.url == "https://api.github.com/users/octocat")
        #expect(endpoint.method == .get)
        guard case .networkResponse(let status, let data) = endpoint.sampleResponseClosure() else {
            Issue.record("expected .networkResponse")
            return
        }
        #expect(status == 200)
        #expect(data == GitHub.userProfile("octocat").sampleData)

        let contract = try contract(GitHub.userProfile("octocat"))
        #expect(contract.service == "GitHub")
        #expect(contract.name == "userProfile")
        #expect(contract.baseURL == "https://api.github.com")
        #expect(contract.sampleResponse == .network(statusCode: 200, headers: []))
        #expect(
            contract.sampleData
                == .json(.object([JSONMember("login", .string("octocat")), JSONMember("id", .integer(100))])))
        #expect(contract.request == HTTPRequest(method: "GET", url: "https://api.github.com/users/octocat"))
    }

    @Test func sampleDataIsJSONWhenItParsesElseTextAndEmptyIsNone() throws {
        #expect(try contract(GitHub.zen).sampleData == .text(Data("Half measures are as bad as nothing at all.".utf8)))
        #expect(
            try contract(GitHub.userRepositories("octocat")).sampleData
                == .json(.array([.object([JSONMember("name", .string("Repo Name"))])])))
        #expect(try contract(TestTarget()).sampleData == .none)
        #expect(try contract(TestTarget(sampleData: Data(" \n".utf8))).sampleData == .none)
        // A JSON stub keeps its bytes, checked once; a response check compiles its shape from them.
        guard case .json(let repositories) = try contract(GitHub.userRepositories("octocat")).sampleData else {
            Issue.record("userRepositories' stub is not JSON")
            return
        }
        #expect(repositories.text == GitHub.userRepositories("octocat").sampleData)
    }

    @Test func theTestingGuidesCustomEndpointClosureStubsA401() throws {
        let converter = TargetConverter(endpointClosure: unauthorizedEndpointClosure)
        let contract = try converter.contract(for: GitHub.userRepositories("octocat")).contract
        #expect(contract.sampleResponse == .network(statusCode: 401, headers: []))
        #expect(contract.sampleData == .json(.object([JSONMember("message", .string("Requires authentication"))])))
        #expect(contract.request.url == "https://api.github.com/users/octocat/repos?sort=pushed")
    }

    @Test func addingHeadersAndReplacingTheTaskKeepTheRest() throws {
        let closure = { (target: GitHub) -> Endpoint in
            MoyaProvider.defaultEndpointMapping(for: target)
                .adding(newHTTPHeaderFields: ["APP_NAME": "MY_AWESOME_APP"])
                .adding(newHTTPHeaderFields: ["APP_NAME": "replaced", "X-Other": "1"])
                .replacing(task: .requestParameters(parameters: ["page": 2], encoding: URLEncoding.queryString))
        }
        let contract = try TargetConverter(endpointClosure: closure).contract(for: GitHub.zen).contract
        #expect(contract.request.headers == [HTTPHeader("APP_NAME", "replaced"), HTTPHeader("X-Other", "1")])
        #expect(contract.request.url == "https://api.github.com/zen?page=2")
        #expect(contract.sampleData == .text(GitHub.zen.sampleData))
    }

    @Test func aResponseStubCarriesItsStatusAndHeaders() throws {
        let closure = { (target: TestTarget) -> Endpoint in
            Endpoint(
                url: URL(target: target).absoluteString,
                sampleResponseClosure: {
                    let response = HTTPURLResponse(
                        url: URL(target: target), statusCode: 201, httpVersion: "HTTP/1.1",
                        headerFields: ["Content-Type": "application/json", "X-Rate": "5"])
                    return response.map { .response($0, Data("{}".utf8)) } ?? .networkResponse(599, Data())
                }, method: target.method, task: target.task, httpHeaderFields: target.headers)
        }
        let contract = try TargetConverter(endpointClosure: closure).contract(for: TestTarget()).contract
        #expect(
            contract.sampleResponse
                == .network(
                    statusCode: 201,
                    headers: [HTTPHeader("Content-Type", "application/json"), HTTPHeader("X-Rate", "5")]))
        #expect(contract.sampleData == .json(.object([])))
    }

    @Test func aNetworkErrorStubBecomesANetworkErrorContract() throws {
        let closure = { (target: TestTarget) -> Endpoint in
            Endpoint(
                url: URL(target: target).absoluteString,
                sampleResponseClosure: { .networkError(NSError(domain: NSURLErrorDomain, code: -1009)) },
                method: target.method, task: target.task, httpHeaderFields: nil)
        }
        let contract = try TargetConverter(endpointClosure: closure).contract(for: TestTarget()).contract
        guard case .networkError(let code, _) = contract.sampleResponse else {
            Issue.record("expected a networkError stub, got \(contract.sampleResponse)")
            return
        }
        #expect(code == -1009)
    }

    @Test func multiTargetMixesServicesAndKeepsTheClosureOfItsType() throws {
        let targets = [MultiTarget(GitHub.zen), MultiTarget(TestTarget(name: "things"))]
        let converter = TargetConverter(endpointClosure: unauthorizedEndpointClosure)
        let contracts = try converter.contracts(for: targets).map { try $0.get().contract }
        #expect(contracts.map(\.service) == ["GitHub", "TestTarget"])
        #expect(contracts.map(\.name) == ["zen", "things"])
        #expect(
            contracts.map(\.sampleResponse) == [
                .network(statusCode: 401, headers: []), .network(statusCode: 200, headers: []),
            ])
    }

    @Test func targetsOfOneCaseAreToldApartByTheirValues() throws {
        let targets: [GitHub] = [.userProfile("a"), .userProfile("b"), .zen]
        let names = try TargetConverter().contracts(for: targets).map { try $0.get().contract.name }
        #expect(names == [#"userProfile("a")"#, #"userProfile("b")"#, "zen"])
    }

    @Test func repeatedTargetsAreNumberedInsideMultiTargetsToo() throws {
        let targets = [MultiTarget(GitHub.zen), MultiTarget(GitHub.zen), MultiTarget(GitHub.userProfile("a"))]
        let contracts = try TargetConverter().contracts(for: targets).map { try $0.get().contract }
        #expect(contracts.map(\.service) == ["GitHub", "GitHub", "GitHub"])
        #expect(contracts.map(\.name) == ["zen", "zen #2", "userProfile"])
    }

    @Test func aBaseURLOverrideKeepsThePathAndTheQuery() throws {
        let converter = TargetConverter(baseURL: literalURL("http://127.0.0.1:8080/mock"))
        let contract = try converter.contract(for: GitHub.userRepositories("octocat")).contract
        #expect(contract.baseURL == "http://127.0.0.1:8080/mock")
        #expect(contract.request.url == "http://127.0.0.1:8080/mock/users/octocat/repos?sort=pushed")

        let slash = try TargetConverter(baseURL: literalURL("http://127.0.0.1:8080/")).contract(for: GitHub.zen)
            .contract
        #expect(slash.request.url == "http://127.0.0.1:8080/zen")

        let elsewhere = { (target: GitHub) -> Endpoint in
            Endpoint(
                url: "https://uploads.github.com/x?y=1", sampleResponseClosure: { .networkResponse(200, Data()) },
                method: .get, task: .requestPlain, httpHeaderFields: nil)
        }
        let redirected = try TargetConverter(endpointClosure: elsewhere, baseURL: literalURL("http://127.0.0.1:9"))
            .contract(for: GitHub.zen).contract
        #expect(redirected.request.url == "http://127.0.0.1:9/x?y=1")
    }

    /// The manifest's rule (`RequestBuilder.joined`): a base URL's query is kept after the path, its fragment dropped,
    /// the task's URL parameters join that query with `&`, with and without a base URL override.
    @Test(arguments: [
        ("https://h.test/anything?key=abc", "/json", "https://h.test/anything/json?key=abc"),
        ("https://h.test/anything#top", "/json", "https://h.test/anything/json"),
        ("https://h.test/anything?key=abc#top", "json", "https://h.test/anything/json?key=abc"),
        ("https://h.test/anything/", "/json", "https://h.test/anything/json"),
        ("https://h.test/anything?key=abc#top", "", "https://h.test/anything?key=abc"),
    ])
    func aBaseURLsQueryIsKeptAndItsFragmentDropped(base: String, path: String, expected: String) throws {
        let target = TestTarget(baseURL: literalURL(base), path: path)
        #expect(URL(target: target).absoluteString == expected)
        #expect(try contract(target).request.url == expected)
        let withParameters = TestTarget(
            baseURL: literalURL(base), path: path,
            task: .requestParameters(parameters: ["p": 1, "q": "a b"], encoding: URLEncoding.queryString))
        let merged = expected + (expected.contains("?") ? "&" : "?") + "p=1&q=a%20b"
        #expect(try contract(withParameters).request.url == merged)
        let composite = TestTarget(
            baseURL: literalURL(base), path: path,
            task: .requestCompositeData(bodyData: Data("x".utf8), urlParameters: ["p": 1, "q": "a b"]))
        #expect(try contract(composite).request.url == merged)
    }

    @Test(arguments: [
        // (target's baseURL, override, expected for path /json with p=1)
        ("https://h.test/anything?key=abc#top", "http://127.0.0.1:8080", "http://127.0.0.1:8080/json?p=1"),
        (
            "https://h.test/anything", "http://127.0.0.1:8080/mock?key=abc#top",
            "http://127.0.0.1:8080/mock/json?key=abc&p=1"
        ),
        ("https://h.test/v1?a=1", "http://127.0.0.1:8080/?b=2", "http://127.0.0.1:8080/json?b=2&p=1"),
    ])
    func anOverrideReplacesTheBaseQueryIncluded(base: String, override: String, expected: String) throws {
        let target = TestTarget(
            baseURL: literalURL(base), path: "/json",
            task: .requestParameters(parameters: ["p": 1], encoding: URLEncoding.default))
        let converted = try TargetConverter(baseURL: literalURL(override)).contract(for: target).contract
        #expect(converted.request.url == expected)
    }

    @Test func anOverrideKeepsWhatAnEndpointClosureAddedToTheQuery() throws {
        let added = { (target: TestTarget) -> Endpoint in
            Endpoint(
                url: URL(target: target).absoluteString + "&extra=1",
                sampleResponseClosure: { .networkResponse(200, Data()) },
                method: .get, task: .requestPlain, httpHeaderFields: nil)
        }
        let target = TestTarget(baseURL: literalURL("https://h.test/v1?key=abc"), path: "/json")
        let converted = try TargetConverter(endpointClosure: added, baseURL: literalURL("http://127.0.0.1:8080"))
            .contract(for: target).contract
        #expect(converted.request.url == "http://127.0.0.1:8080/json?extra=1")
        let similar = TestTarget(baseURL: literalURL("https://h.test/v"), path: "")
        let elsewhere = { (target: TestTarget) -> Endpoint in
            Endpoint(
                url: "https://h.test/v2/x", sampleResponseClosure: { .networkResponse(200, Data()) },
                method: .get, task: .requestPlain, httpHeaderFields: nil)
        }
        // /v2/x is not below /v: the whole path goes below the override.
        let redirected = try TargetConverter(endpointClosure: elsewhere, baseURL: literalURL("http://127.0.0.1:9/m"))
            .contract(for: similar).contract
        #expect(redirected.request.url == "http://127.0.0.1:9/m/v2/x")
    }

    @Test func textSampleDataWhereTheContentTypeSaysJSONIsAnErrorNamingTheTarget() throws {
        let target = TestTarget(
            name: "profile", sampleData: Data("not json".utf8), headers: ["Content-Type": "application/json"])
        #expect {
            try TargetConverter().contract(for: target)
        } throws: { error in
            let message = "\(error)"
            return message.hasPrefix("TestTarget.profile: sampleData is not valid JSON")
                && message.contains("its Content-Type header says 'application/json'")
        }
        let vendor = TestTarget(
            name: "repos", sampleData: Data("[{".utf8), headers: ["content-type": "application/vnd.github+json"])
        #expect(throws: ContractError.self) { try TargetConverter().contract(for: vendor) }
        // Text is fine where nothing claims JSON; Accept is no claim (GitHub's /zen answers text to a JSON Accept).
        let zen = TestTarget(
            sampleData: Data("plain".utf8),
            headers: ["Accept": "application/vnd.github+json", "Content-Type": "text/plain"])
        #expect(try contract(zen).sampleData == .text(Data("plain".utf8)))
    }

    @Test func textSampleDataWhereTheStubbedResponseSaysJSONIsAnError() {
        let closure = { (target: TestTarget) -> Endpoint in
            Endpoint(
                url: URL(target: target).absoluteString,
                sampleResponseClosure: {
                    let response = HTTPURLResponse(
                        url: URL(target: target), statusCode: 200, httpVersion: nil,
                        headerFields: ["Content-Type": "application/json; charset=utf-8"])
                    return response.map { .response($0, Data("<html>".utf8)) } ?? .networkResponse(599, Data())
                }, method: target.method, task: target.task, httpHeaderFields: nil)
        }
        #expect {
            try TargetConverter(endpointClosure: closure).contract(for: TestTarget(name: "page"))
        } throws: { error in
            "\(error)".contains("TestTarget.page: sampleData is not valid JSON")
                && "\(error)".contains("the stubbed response's Content-Type says 'application/json; charset=utf-8'")
        }
    }
}

/// Moya's `ValidationType` becomes `Contract.validStatusCodes`.
@Suite struct ValidationTypeTests {
    @Test(
        arguments: [
            (ValidationType.none, nil),
            (.successCodes, Array(200...299)),
            (.successAndRedirectCodes, Array(200...399)),
            (.customCodes([200, 304]), [200, 304]),
        ] as [(ValidationType, [Int]?)])
    func validationTypeGivesTheValidStatusCodes(validation: ValidationType, codes: [Int]?) throws {
        #expect(try contract(TestTarget(validationType: validation)).validStatusCodes == codes)
    }
}
