import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// `tether serve` and `tether mock` for a web page of another origin (CORS): the headers and preflight answers curl
/// sees, and a page in Chromium that reads a stub from another port, and cannot with `--no-cors`.
@Suite struct ServeCrossOriginTests {
    static let origin = "http://localhost:3000"

    /// A profile, a stub that declares the real service's CORS headers, and a `networkError`.
    static let manifest = """
        { "service": "API", "baseURL": "https://api.test/v1",
          "targets": [
            { "name": "profile", "path": "/users/octocat", "sampleData": {"json": {"login": "octocat", "id": 1}},
              "sampleResponse": {"response": {"statusCode": 200, "headers": {"ETag": "\\"v1\\""}}} },
            { "name": "declared", "path": "/declared", "sampleData": {"json": {"ok": true}},
              "sampleResponse": {"response": {"statusCode": 200,
                "headers": {"Access-Control-Allow-Origin": "https://app.example.com", "Vary": "Accept"}}} },
            { "name": "offline", "path": "/offline",
              "sampleResponse": {"networkError": {"code": -1009, "description": "offline"}} }
          ] }
        """

    @Test func aRequestWithAnOriginMayBeReadThereAndItsPreflightIsAnswered() async throws {
        let folder = try ContractFolder(["api.json": Self.manifest])
        let (tether, url) = try ServeTests.start([folder.path])

        let preflight = try await exchange(
            "\(url)/users/octocat", method: "OPTIONS",
            headers: [
                "Origin: \(Self.origin)", "Access-Control-Request-Method: PUT",
                "Access-Control-Request-Headers: authorization, content-type",
            ])
        #expect(preflight.status == 204)
        #expect(preflight.values("Access-Control-Allow-Origin") == [Self.origin])
        #expect(preflight.values("Access-Control-Allow-Methods") == ["PUT"])
        #expect(preflight.values("Access-Control-Allow-Headers") == ["authorization, content-type"])
        #expect(preflight.values("Access-Control-Allow-Credentials") == ["true"])
        #expect(preflight.values("Access-Control-Max-Age") == ["7200"])
        #expect(preflight.body.isEmpty)
        #expect(tether.waitForOutput("OPTIONS /users/octocat  preflight  204  ", within: 10), "\(tether.stdout)")

        let profile = try await exchange("\(url)/users/octocat", headers: ["Origin: \(Self.origin)"])
        #expect(profile.status == 200)
        #expect(profile.body == Data(#"{"login":"octocat","id":1}"#.utf8))
        #expect(profile.values("Access-Control-Allow-Origin") == [Self.origin])
        #expect(profile.values("Access-Control-Allow-Credentials") == ["true"])
        #expect(profile.values("Access-Control-Expose-Headers") == ["ETag, Content-Type"])
        #expect(profile.values("Vary") == ["Origin"])
        #expect(tether.waitForOutput("GET /users/octocat  API.profile  200  ", within: 10), "\(tether.stdout)")

        // The stub's own CORS headers were the real service's: replaced; its Vary kept.
        let declared = try await exchange("\(url)/declared", headers: ["Origin: \(Self.origin)"])
        #expect(declared.values("Access-Control-Allow-Origin") == [Self.origin])
        #expect(declared.values("Vary") == ["Accept", "Origin"])
        #expect(declared.values("Access-Control-Expose-Headers") == ["Vary, Content-Type"])

        // The 404 that names the closest routes is readable too.
        let missing = try await exchange("\(url)/users/octocats", headers: ["Origin: \(Self.origin)"])
        #expect(missing.status == 404)
        #expect(missing.values("Access-Control-Allow-Origin") == [Self.origin])

        // Without an Origin (curl, an app, tether verify) nothing changes: the stub's headers as declared.
        let plain = try await exchange("\(url)/declared")
        #expect(plain.values("Access-Control-Allow-Origin") == ["https://app.example.com"])
        #expect(plain.values("Vary") == ["Accept"])
        #expect(try await exchange("\(url)/users/octocat").headers.allSatisfy { !$0.name.hasPrefix("Access-") })
        // An OPTIONS that is not a preflight goes to the routes: 405, as before.
        #expect(try await exchange("\(url)/users/octocat", method: "OPTIONS").status == 405)
        // A networkError stub still closes the connection.
        let closed = try await runCurl(["-s", "--max-time", "10", "-H", "Origin: \(Self.origin)", "\(url)/offline"])
        #expect(closed.exitCode == 52, "curl: \(closed.exitCode) \(closed.errorText)")
    }

    @Test func withNoCORSThePreflightIsARouteLikeAnyOther() async throws {
        let folder = try ContractFolder(["api.json": Self.manifest])
        let (tether, url) = try ServeTests.start([folder.path, "--no-cors"])
        let preflight = try await exchange(
            "\(url)/users/octocat", method: "OPTIONS",
            headers: ["Origin: \(Self.origin)", "Access-Control-Request-Method: GET"])
        #expect(preflight.status == 405)
        #expect(preflight.values("Access-Control-Allow-Origin").isEmpty)
        #expect(tether.waitForOutput("OPTIONS /users/octocat  -  405  ", within: 10), "\(tether.stdout)")
        let declared = try await exchange("\(url)/declared", headers: ["Origin: \(Self.origin)"])
        #expect(declared.values("Access-Control-Allow-Origin") == ["https://app.example.com"])
    }

    /// A browser's HAR holds the CORS headers its page got: replayed to another page, they are replaced.
    @Test(arguments: [["serve", "--har"], ["mock"]])
    func aRecordingIsServedToAnotherOrigin(command: [String]) async throws {
        let folder = try ContractFolder([
            "a.har": """
            {"log": {"entries": [
              {"request": {"method": "GET", "url": "https://a.test/zen"},
               "response": {"status": 200, "headers": [{"name": "Content-Type", "value": "text/plain"},
                 {"name": "access-control-allow-origin", "value": "https://app.example.com"}],
                            "content": {"text": "recorded"}}}]}}
            """
        ])
        let tether = try RunningTether(command + [folder.file("a.har")])
        try #require(tether.waitForOutput("http://127.0.0.1:", within: 20), "\(tether.stdout) \(tether.stderr)")
        let url = try #require(tether.stdout.firstMatch(of: /http:\/\/127\.0\.0\.1:\d+/).map { String($0.output) })
        let zen = try await exchange("\(url)/zen", headers: ["Origin: \(Self.origin)"])
        #expect(zen.status == 200)
        #expect(zen.body == Data("recorded".utf8))
        #expect(zen.values("Access-Control-Allow-Origin") == [Self.origin])
        let preflight = try await exchange(
            "\(url)/zen", method: "OPTIONS", headers: ["Origin: \(Self.origin)", "Access-Control-Request-Method: GET"])
        #expect(preflight.status == 204)
        #expect(preflight.values("Access-Control-Allow-Origin") == [Self.origin])
        let plain = try await exchange("\(url)/zen")
        #expect(plain.values("Access-Control-Allow-Origin") == ["https://app.example.com"])
    }

    /// A page on one `tether serve` reads a stub from another (another port: another origin) with an `Authorization`
    /// header, which takes a preflight; with `--no-cors`, Chromium hides the answer from it.
    @Test(
        .enabled(if: VerifyReportsTests.chromium != nil, "chromium is not installed (apt-get install chromium)"),
        arguments: [false, true])
    func aPageOfAnotherOriginReadsTheStubInChromium(noCORS: Bool) async throws {
        let folder = try ContractFolder(["api/api.json": Self.manifest])
        let (api, apiURL) = try ServeTests.start([folder.file("api")] + (noCORS ? ["--no-cors"] : []))
        let script = """
            fetch("\(apiURL)/users/octocat", {headers: {"Authorization": "Bearer token"}})
              .then(r => r.json().then(j => r.status + " " + j.login + " " + r.headers.get("ETag")))
              .catch(e => "failed: " + e.name)
              .then(t => { document.getElementById("out").textContent = t; });
            """
        let page = "<!doctype html><html><body><p id=\"out\">waiting</p><script>\(script)</script></body></html>"
        let pageManifest: [String: Any] = [
            "service": "Web", "baseURL": "https://web.test",
            "targets": [
                [
                    "name": "page", "path": "/", "sampleData": ["text": page],
                    "sampleResponse": ["response": ["statusCode": 200, "headers": ["Content-Type": "text/html"]]],
                ]
            ],
        ]
        try FileManager.default.createDirectory(atPath: folder.file("web"), withIntermediateDirectories: true)
        try JSONSerialization.data(withJSONObject: pageManifest).write(
            to: URL(fileURLWithPath: folder.file("web/web.json")))
        let (web, pageURL) = try ServeTests.start([folder.file("web")])

        let dom = try await VerifyReportsTests.chromiumRun(
            ["--virtual-time-budget=10000", "--dump-dom", pageURL + "/"], profile: folder.file("profile"),
            loopback: true)
        #expect(dom.status == 0, "\(dom.stderr)")
        #expect(web.waitForOutput("GET /  Web.page  200  ", within: 10), "\(web.stdout)")
        if noCORS {
            #expect(dom.stdout.contains(#"<p id="out">failed: TypeError</p>"#), "\(dom.stdout)")
            #expect(api.waitForOutput("OPTIONS /users/octocat  -  405  ", within: 10), "\(api.stdout)")
        } else {
            #expect(dom.stdout.contains(#"<p id="out">200 octocat "v1"</p>"#), "\(dom.stdout)")
            #expect(api.waitForOutput("OPTIONS /users/octocat  preflight  204  ", within: 10), "\(api.stdout)")
            #expect(api.waitForOutput("GET /users/octocat  API.profile  200  ", within: 10), "\(api.stdout)")
        }
    }
}
