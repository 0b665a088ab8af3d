import Foundation
import Testing

@testable import TetherEngine
@testable import TetherKit

/// A service that signs in with OAuth2 client credentials (a manifest's `"auth"`), against a token server and an API
/// on 127.0.0.1: the token is fetched once, fetched again once after a 401 (its target is then sent again), never
/// printed; a wrong secret makes every target of the service an error, not a drift.
@Suite(.serialized) struct VerifySignInTests {
    static let clientSecret = "s3cret-client-key"

    /// Each token answers two requests, then 401: the third target needs a new one.
    final class TokenServer {
        let state = Locked((issued: 0, usesLeft: [String: Int](), forms: [String]()))
        let server: MockServer

        init() throws {
            let state = state
            server = try MockServer { request in
                if request.method == "POST" && request.path == "/oauth/token" {
                    let form = String(decoding: request.body, as: UTF8.self)
                    guard form.contains("client_secret=\(VerifySignInTests.clientSecret)") else {
                        return .json(#"{"error": "invalid_client"}"#, status: 401)
                    }
                    let token = state.withLock { state -> String in
                        state.issued += 1
                        state.forms.append(form)
                        let token = "tok-\(state.issued)-9f8e7d6c5b4a"
                        state.usesLeft[token] = 2
                        return token
                    }
                    return .json(#"{"access_token": "\#(token)", "token_type": "Bearer", "expires_in": 60}"#)
                }
                let bearer = request.headers.first { $0.isNamed("Authorization") }?.value ?? ""
                let token = bearer.hasPrefix("Bearer ") ? String(bearer.dropFirst(7)) : ""
                let allowed = state.withLock { state -> Bool in
                    guard let left = state.usesLeft[token], left > 0 else { return false }
                    state.usesLeft[token] = left - 1
                    return true
                }
                guard allowed else { return .json(#"{"message": "Bad credentials"}"#, status: 401) }
                // An echo of the token in a body must be redacted too.
                return .json(#"{"id": 1, "seen": "\#(token)"}"#)
            }
        }
    }

    static func manifest(_ server: MockServer) -> String {
        """
        {"service": "Shop", "baseURL": "\(server.baseURL)",
         "auth": {"oauth2": {"tokenURL": "\(server.baseURL)/oauth/token", "clientID": "tether-ci",
                             "clientSecret": "${SHOP_CLIENT_SECRET}", "scope": "read:items", "audience": "shop-api"}},
         "targets": [
           {"name": "one", "path": "/items/1", "sampleData": {"json": {"id": 1, "seen": "x"}}},
           {"name": "two", "path": "/items/2", "sampleData": {"json": {"id": 1, "seen": "x"}}},
           {"name": "three", "path": "/items/3", "sampleData": {"json": {"id": 1, "seen": "x"}}}
         ]}
        """
    }

    @Test func theTokenIsFetchedOnceRefreshedOnceOn401AndNeverPrinted() async throws {
        let tokens = try TokenServer()
        let folder = try ContractFolder(["shop.json": Self.manifest(tokens.server)])
        let (path, json) = (folder.path, folder.file("run.jsonl"))
        let run = try await offPool {
            try TetherBinary.run(
                ["verify", path, "--jobs", "1", "--no-color", "--verbose", "--json", json],
                environment: ["SHOP_CLIENT_SECRET": Self.clientSecret])
        }
        #expect(run.exitCode == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("3 passed, 0 failed, 0 errors"), "\(run.stdout)")
        let (issued, forms) = tokens.state.withLock { ($0.issued, $0.forms) }
        #expect(issued == 2, "one token for the run, one more after the third target's 401")
        // RFC 6749 §4.4.2, form-encoded, with the scope and the audience.
        #expect(
            forms.first
                == "grant_type=client_credentials&client_id=tether-ci&client_secret=\(Self.clientSecret)"
                + "&scope=read%3Aitems&audience=shop-api", "\(forms)")
        let everything =
            run.stdout + run.stderr + (run.junit ?? "") + (try String(contentsOfFile: json, encoding: .utf8))
        #expect(!everything.contains("tok-"), "a token reached an output")
        #expect(!everything.contains(Self.clientSecret), "the client secret reached an output")
    }

    /// The token becomes known only during the run: the console (which streams from the start) and a recorded
    /// HAR file (whose exchanges are kept as they arrive) still hide it where a body echoes it in a drift.
    @Test func aTokenEchoedInADriftReachesNoOutput() async throws {
        let tokens = try TokenServer()
        let folder = try ContractFolder([
            "shop.json": Self.manifest(tokens.server).replacingOccurrences(of: #""seen": "x""#, with: #""seen": 1"#)
        ])
        let (path, har) = (folder.path, folder.file("run.har"))
        let environment = ["SHOP_CLIENT_SECRET": Self.clientSecret]
        let run = try await offPool {
            try TetherBinary.run(["verify", path, "--jobs", "1", "--no-color", "--verbose"], environment: environment)
        }
        #expect(run.exitCode == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains(#"$.seen: expected integer, got string "<redacted>""#), "\(run.stdout)")
        let record = try await offPool {
            try TetherBinary.run(["record", path, "--jobs", "1", "--out", har], environment: environment)
        }
        let recorded = try String(contentsOfFile: har, encoding: .utf8)
        #expect(recorded.contains(#"\"seen\": \"<redacted>\""#), "\(recorded)")
        let everything = run.stdout + run.stderr + (run.junit ?? "") + record.stdout + record.stderr + recorded
        #expect(!everything.contains("tok-"), "a token reached an output")
    }

    @Test func aWrongSecretMakesEveryTargetAnErrorNotADrift() async throws {
        let tokens = try TokenServer()
        let folder = try ContractFolder(["shop.json": Self.manifest(tokens.server)])
        let path = folder.path
        let run = try await offPool {
            try TetherBinary.run(
                ["verify", path, "--no-color"], environment: ["SHOP_CLIENT_SECRET": "not-the-secret-at-all"])
        }
        #expect(run.exitCode == 4, "nothing was checked: \(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("0 passed, 0 failed, 3 errors"), "\(run.stdout)")
        #expect(
            run.stdout.contains(
                "not checked: sign-in to Shop failed: POST \(tokens.server.baseURL)/oauth/token answered 401: "
                    + #"{"error": "invalid_client"}"#), "\(run.stdout)")
        #expect(!run.stdout.contains("not-the-secret-at-all") && !run.stderr.contains("not-the-secret-at-all"))
        #expect(tokens.state.withLock { $0.issued } == 0)
    }

    /// A sign-in call of the service's own: the token from a JSON path of its answer, or from a response header,
    /// sent in the header and format the manifest says.
    @Test func aLoginCallsTokenIsSentAsTheManifestSays() async throws {
        let logins = Locked([String]())
        let server = try MockServer { request in
            switch (request.method, request.path) {
            case ("POST", "/login"):
                logins.withLock { $0.append(String(decoding: request.body, as: UTF8.self)) }
                guard String(decoding: request.body, as: UTF8.self).contains("pa55-word-x") else {
                    return .json(#"{"message": "wrong password"}"#, status: 403)
                }
                return MockResponse(
                    status: 200,
                    headers: [
                        HTTPHeader("Content-Type", "application/json"), HTTPHeader("X-Session", "hd-7766554433"),
                    ],
                    body: Data(#"{"data": {"token": "lg-1234567890"}}"#.utf8))
            default:
                let header = request.headers.first { $0.isNamed("X-Auth") }?.value
                guard header == "Token lg-1234567890" || header == "Token hd-7766554433" else {
                    return .json(#"{"message": "no"}"#, status: 401)
                }
                return .json(#"{"id": 1}"#)
            }
        }
        func manifest(_ where: String) -> String {
            """
            {"service": "Shop", "baseURL": "\(server.baseURL)",
             "auth": {"login": {"path": "/login", "task": {"requestJSONEncodable": {"user": "ci", "password": "${PW}"}},
                                \(`where`), "header": "X-Auth", "format": "Token {token}"}},
             "targets": [{"name": "one", "path": "/items/1", "sampleData": {"json": {"id": 1}}},
                         {"name": "two", "path": "/items/2", "sampleData": {"json": {"id": 1}}}]}
            """
        }
        for (place, password, exit) in [
            (#""token": "$.data.token""#, "pa55-word-x", Int32(0)), (#""tokenHeader": "X-Session""#, "pa55-word-x", 0),
            (#""token": "$.data.token""#, "wrong-password", 4),
        ] {
            let folder = try ContractFolder(["shop.json": manifest(place)])
            let path = folder.path
            let run = try await offPool {
                try TetherBinary.run(["verify", path, "--no-color"], environment: ["PW": password])
            }
            #expect(run.exitCode == exit, "\(place): \(run.stdout)\(run.stderr)")
            #expect(!run.stdout.contains("lg-1234567890") && !run.stdout.contains("hd-7766554433"))
            #expect(!run.stdout.contains(password), "\(run.stdout)")
            if exit == 4 {
                #expect(
                    run.stdout.contains(
                        "not checked: sign-in to Shop failed: POST \(server.baseURL)/login answered 403: "),
                    "\(run.stdout)")
            }
        }
        // One sign-in per run, with the body the manifest wrote.
        #expect(logins.withLock { $0 }.count == 3)
        #expect(logins.withLock { $0 }.first == #"{"user":"ci","password":"pa55-word-x"}"#)
    }

    @Test func basicCredentialsBecomeTheServicesAuthorizationHeader() async throws {
        let seen = Locked([String]())
        let server = try MockServer { request in
            seen.withLock { $0.append(request.headers.first { $0.isNamed("Authorization") }?.value ?? "") }
            return .json(#"{"id": 1}"#)
        }
        let folder = try ContractFolder([
            "shop.json": """
            {"service": "Shop", "baseURL": "\(server.baseURL)",
             "auth": {"basic": {"user": "ci", "password": "${SHOP_PASSWORD}"}},
             "targets": [{"name": "one", "path": "/items/1", "sampleData": {"json": {"id": 1}}}]}
            """
        ])
        let path = folder.path
        let run = try await offPool {
            try TetherBinary.run(
                ["verify", path, "--no-color", "--verbose"], environment: ["SHOP_PASSWORD": "pa55-word-x"])
        }
        #expect(run.exitCode == 0, "\(run.stdout)\(run.stderr)")
        #expect(seen.withLock { $0 } == ["Basic " + Data("ci:pa55-word-x".utf8).base64EncodedString()])
        #expect(!run.stdout.contains("pa55-word-x") && !(run.junit ?? "").contains("pa55-word-x"))
    }
}
