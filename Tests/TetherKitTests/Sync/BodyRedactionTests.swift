import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

@Suite struct BodyRedactionTests {
    static let secret = "s3cr/et+value="

    @Test func patternsHideValuesAndKeepTheirTypes() throws {
        let redaction = BodyRedaction(
            secrets: Redactor(secrets: []),
            patterns: [try JSONPathPattern("$.person"), try JSONPathPattern("$.list[*].id")])
        let body = Data(
            #"{"person": {"name": "Ann", "age": 41, "score": 1.5, "admin": true, "tags": ["a"], "none": null}, "list": [{"id": 7, "keep": 1}], "keep": "x"}"#
                .utf8)
        let redacted = try JSONValue.parse(redaction.redact(body: body))
        #expect(
            redacted
                == .object([
                    JSONMember(
                        "person",
                        .object([
                            JSONMember("name", .string("<redacted>")), JSONMember("age", .integer(0)),
                            JSONMember("score", .double(0)), JSONMember("admin", .bool(false)),
                            JSONMember("tags", .array([.string("<redacted>")])), JSONMember("none", .null),
                        ])),
                    JSONMember(
                        "list", .array([.object([JSONMember("id", .integer(0)), JSONMember("keep", .integer(1))])])),
                    JSONMember("keep", .string("x")),
                ]))
        // A fraction stays a fraction on the page, so the structure check still reads a number with a fraction.
        #expect(String(decoding: redaction.redact(body: body), as: UTF8.self).contains(#""score":0.0"#))
    }

    @Test func secretsAreHiddenInsideStringsKeysAndNumbersAndUntouchedBodiesKeepTheirBytes() throws {
        let redaction = BodyRedaction(secrets: Redactor(secrets: [Self.secret, "123456789"]))
        let escaped = Self.secret.replacingOccurrences(of: "/", with: "\\/")
        let body = Data(
            #"{"echo": "Bearer \#(escaped)", "\#(Self.secret)": 1, "account": 123456789, "other": 12}"#.utf8)
        let redacted = try JSONValue.parse(redaction.redact(body: body))
        #expect(redacted["echo"] == .string("Bearer <redacted>"))
        #expect(redacted["<redacted>"] == .integer(1))
        #expect(redacted["account"] == .integer(0))
        #expect(redacted["other"] == .integer(12))
        let plain = Data("{\n  \"a\": 1.50e2\n}".utf8)
        #expect(redaction.redact(body: plain) == plain)
    }

    /// The docs' `Bearer ${GITHUB_TOKEN:-anonymous}` without the variable, and short tokens: inside a longer word they
    /// are no secret, and `update` wrote what this returns into stubs (it dropped `anonymous_access_enabled`).
    @Test func aSecretInsideALongerWordIsLeftSoKeysAndValuesKeepTheirMeaning() throws {
        let redaction = BodyRedaction(secrets: Redactor(secrets: ["anonymous", "dev", "1"]))
        let body = Data(
            #"{"anonymous_access_enabled": false, "device_id": "developer", "label": "v1", "id": 12345, "who": "anonymous", "echo": "Bearer dev", "n": 1, "dev": 2}"#
                .utf8)
        let redacted = try JSONValue.parse(redaction.redact(body: body))
        #expect(
            redacted
                == .object([
                    JSONMember("anonymous_access_enabled", .bool(false)),
                    JSONMember("device_id", .string("developer")), JSONMember("label", .string("v1")),
                    JSONMember("id", .integer(12345)), JSONMember("who", .string("<redacted>")),
                    JSONMember("echo", .string("Bearer <redacted>")), JSONMember("n", .integer(0)),
                    JSONMember("<redacted>", .integer(2)),
                ]))
    }

    @Test func bodiesThatAreNotJSONAreRedactedAsBytesInEveryEncoding() {
        let redaction = BodyRedaction(secrets: Redactor(secrets: [Self.secret]))
        let base64 = Data(Self.secret.utf8).base64EncodedString()
        let percent = Self.secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        var bytes = Data([0x89, 0x50, 0x4E, 0x47, 0x00, 0xFF])
        bytes += Data("raw=\(Self.secret)&b64=\(base64)&pct=\(percent)".utf8) + Data([0xFE])
        let redacted = redaction.redact(body: bytes)
        #expect(redacted.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x00, 0xFF]))
        #expect(redacted.last == 0xFE)
        #expect(redacted.dropFirst(6).dropLast() == Data("raw=<redacted>&b64=<redacted>&pct=<redacted>".utf8))
    }

    @Test func aRecordedRedactedQueryValueOrPathSegmentMatchesAnyValue() {
        let archive = HARArchive(entries: [
            HAREntry(
                method: "GET", url: "https://x/search?q=swift&key=%3Credacted%3E", status: 200, body: Data("a".utf8)),
            HAREntry(method: "GET", url: "https://x/users/%3Credacted%3E/repos", status: 201, body: Data("b".utf8)),
            HAREntry(method: "GET", url: "https://x/search?q=exact&key=k1", status: 202),
        ])
        let replay = HARReplay(archive)
        func status(_ target: String) -> Int {
            let (path, query) = HAREntry.target(of: target)
            return replay.response(for: MockRequest(method: "GET", path: path, query: query)).status
        }
        #expect(status("/search?key=anything&q=swift") == 200)
        #expect(status("/search?q=swift") == 404)  // the parameter must be there
        #expect(status("/search?q=other&key=anything") == 404)  // other values must agree
        #expect(status("/search?q=swift&key=a&extra=1") == 404)
        #expect(status("/users/octocat/repos") == 201)
        #expect(status("/users/octocat/gists") == 404)
        #expect(status("/search?q=exact&key=k1") == 202)  // an exact entry is found first
    }
}
