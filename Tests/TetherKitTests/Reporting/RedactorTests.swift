import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

@Suite struct RedactorTests {
    @Test func replacesEveryOccurrenceLongestFirst() {
        let redactor = Redactor(secrets: ["abcdef", "abcdefgh", ""])
        #expect(redactor.redact("x abcdefgh y abcdef z abcdefgh") == "x <redacted> y <redacted> z <redacted>")
        #expect(redactor.redact("no secret here") == "no secret here")
        #expect(redactor.redact("") == "")
    }

    @Test func emptySecretsAreIgnored() {
        let redactor = Redactor(secrets: ["", ""])
        #expect(redactor.isEmpty)
        #expect(redactor.redact("abc") == "abc")
    }

    @Test func markerIsNeverRedactedAgain() {
        let redactor = Redactor(secrets: ["redacted", "topsecret"])
        #expect(redactor.redact("topsecret and redacted") == "<redacted> and <redacted>")
    }

    @Test func givenSecretsAreRedactedWhateverTheirLength() {
        // The raw redactor hides exactly what it is given; the length rule is the run-level initialiser's.
        #expect(Redactor(secrets: ["202"]).redact("HTTP 202") == "HTTP <redacted>")
    }

    /// A secret shorter than `minimumSecretLength` (a credential header's value) is hidden where it stands as a word,
    /// not inside a longer one: `device_id` is no `<redacted>ice_id`. A longer one is hidden wherever it is.
    @Test func aShortSecretIsHiddenAsAWordOnly() {
        let redactor = Redactor(secrets: ["dev", "s3cret99"])
        #expect(
            redactor.redact("$.device_id: expected dev, got Bearer dev; xs3cret99x é dev")
                == "$.device_id: expected <redacted>, got Bearer <redacted>; x<redacted>x é <redacted>")
        #expect(redactor.redactWords("xs3cret99x s3cret99") == "xs3cret99x <redacted>")
    }

    @Test func percentEncodedFormsAreRedactedToo() {
        let secret = "a+b/c=d e"
        let redactor = Redactor(secrets: [secret])
        #expect(redactor.redact("GET /x?k=a%2Bb%2Fc%3Dd%20e") == "GET /x?k=<redacted>")
        #expect(redactor.redact("raw a+b/c=d e") == "raw <redacted>")
    }

    @Test func nonASCIISecretsMatchOnCharacterBoundaries() {
        let redactor = Redactor(secrets: ["pässwört"])
        #expect(redactor.redact("é pässwört ü") == "é <redacted> ü")
    }

    @Test(arguments: [
        ("Authorization", "Bearer abc", ["Bearer abc", "abc"]),
        ("authorization", "token", ["token"]),
        ("PROXY-AUTHORIZATION", "Basic dXNlcjpwYXNz", ["Basic dXNlcjpwYXNz", "dXNlcjpwYXNz"]),
        ("Cookie", "a=1; session=abcdef123", ["a=1; session=abcdef123", "abcdef123"]),
        ("set-cookie", "id=xyz; Path=/", ["id=xyz; Path=/"]),
        ("X-Api-Key", "abcdef123", []),
        ("Authorization", "  ", []),
    ])
    func sensitiveHeaderValues(name: String, value: String, expected: [String]) {
        #expect(Redactor.sensitiveHeaderValues([HTTPHeader(name, value)]) == expected)
    }

    @Test(arguments: [
        ("https://user:pass@host/x", ["user:pass", "pass"]),
        ("http://ghp_token@127.0.0.1:8080/x?a=b@c", ["ghp_token"]),
        ("https://a%40b:p%20w@host", ["a%40b:p%20w", "a@b:p w", "p%20w", "p w"]),
        ("https://user:@host/", ["user:"]),
        ("https://host/path@not-credentials", []),
        ("https://host?q=a@b", []),
        ("https://@host/", []),
        ("not a URL @ all", []),
    ])
    func credentialsOfAURL(url: String, expected: [String]) {
        #expect(HTTPRequest.credentials(in: url) == expected)
    }

    @Test func runRuleHidesCredentialsInARequestURLWhateverTheirLength() {
        let contract = ReportFixtures.contract(
            "S", "t", url: "http://me:pw@127.0.0.1:8080/x", baseURL: "http://me:pw@127.0.0.1:8080")
        #expect(
            Redactor(contracts: [contract]).redact("GET http://me:pw@127.0.0.1:8080/x: refused")
                == "GET http://<redacted>@127.0.0.1:8080/x: refused")
    }

    @Test func runRuleDropsShortGivenSecretsButKeepsSensitiveHeaders() {
        let contract = ReportFixtures.contract(
            "S", "t", headers: [HTTPHeader("Cookie", "42"), HTTPHeader("Accept", "application/json")],
            secrets: ["abc", "longer-secret"])
        let redactor = Redactor(contracts: [contract], runSecrets: ["202", "run-secret-value"])
        #expect(
            redactor.redact("42 abc 202 longer-secret run-secret-value application/json")
                == "<redacted> abc 202 <redacted> <redacted> application/json")
    }

    /// A header every target sends is one secret, not one per target: its forms are computed once per redactor, and a
    /// run makes several redactors (the console, its closing lines, each report). 20,000 targets sharing a token made
    /// 40,000 secrets here, and building the redactors took most of a run's time.
    @Test func eachSecretIsCollectedOnce() {
        let token = "Bearer abcdef123456"
        let contracts = (0..<20_000).map {
            ReportFixtures.contract(
                "S", "t\($0)", headers: [HTTPHeader("Authorization", token)], secrets: ["abcdef123456"])
        }
        let secrets = Redactor.secrets(contracts: contracts, runSecrets: ["abcdef123456", "run-secret"])
        #expect(secrets.count == 3)
        #expect(Array(secrets.prefix(3)) == [token, "abcdef123456", "run-secret"])
        // Compared by bytes: `é` and `e` + U+0301 are equal `String`s, and each is hidden as it is written.
        let composed = ReportFixtures.contract("S", "a", headers: [HTTPHeader("Cookie", "caf\u{E9}")])
        let decomposed = ReportFixtures.contract("S", "b", headers: [HTTPHeader("Cookie", "cafe\u{301}")])
        #expect(Redactor.secrets(contracts: [composed, decomposed], runSecrets: []).count == 2)
        let redactor = Redactor(contracts: [composed, decomposed])
        #expect(redactor.redact("caf\u{E9} cafe\u{301}") == "<redacted> <redacted>")
    }

    /// The forms a secret is hidden in are computed on bytes; they are exactly what Foundation's encoders give (which
    /// keep only the ASCII members of a character set), on random text mixing ASCII, controls, Latin-1, combining
    /// marks, `/` and `=`, and characters outside the BMP.
    @Test func formsAreFoundationsOnRandomText() {
        let pool: [Unicode.Scalar] =
            (0...0x7F).compactMap(Unicode.Scalar.init)
            + ["\u{A0}", "é", "\u{301}", "\u{3000}", "\u{2003}", "€", "\u{FFFD}", "😀", "/", "/", "=", " ", "\t"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            var scalars = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 1...12, using: &generator) {
                scalars.append(pool.randomElement(using: &generator)!)
            }
            let secret = String(scalars)
            var expected = Set(RequestBuilder.encodedForms(of: secret).map { Array($0.utf8) })
            for allowed in [CharacterSet.alphanumerics, .urlQueryAllowed] {
                if let encoded = secret.addingPercentEncoding(withAllowedCharacters: allowed) {
                    expected.insert(Array(encoded.utf8))
                }
            }
            let escaped = Array(JSONValue.string(secret).serialized())
            expected.insert(Array(escaped.dropFirst().dropLast()))
            // Each `/` escaped, scalar by scalar (a JSON encoder's `\/`, also before a combining mark).
            expected.insert(Array(secret.unicodeScalars.map { $0 == "/" ? "\\/" : String($0) }.joined().utf8))
            let base64 = Data(secret.utf8).base64EncodedString()
            expected.insert(Array(base64.utf8))
            expected.insert(Array(base64.trimmingCharacters(in: CharacterSet(charactersIn: "=")).utf8))
            // The first text that differs, if any, and no more: one mismatch says enough.
            guard Set(Redactor.forms(of: secret)) == expected,
                Redactor.trimmingWhitespace(secret) == secret.trimmingCharacters(in: .whitespaces)
            else {
                Issue.record("the forms of \(Array(secret.unicodeScalars)) differ from Foundation's")
                return
            }
        }
    }

    /// Speed is measured in benchmarks, not in timed tests: this one checks a large text comes out right.
    @Test func redactsLargeText() {
        let text = String(repeating: "lorem ipsum dolor sit amet ", count: 40_000) + "s3cr3t-token"  // ~1 MB
        let redactor = Redactor(secrets: ["s3cr3t-token", "ipsum-not-there", "amet-no"])
        let redacted = redactor.redact(text)
        #expect(redacted.hasSuffix("amet <redacted>"))
        #expect(redacted.count == text.count - "s3cr3t-token".count + "<redacted>".count)
    }
}

@Suite struct ReportTextTests {
    @Test(arguments: [
        (0.0, "0.000"), (0.1204, "0.120"), (0.0005, "0.001"), (1.9996, "2.000"), (12345.6789, "12345.679"),
        (-1.0, "0.000"), (Double.nan, "0.000"), (Double.infinity, "0.000"), (1e-9, "0.000"), (0.005, "0.005"),
        (0.05, "0.050"), (1, "1.000"), (10, "10.000"), (8_999_999_999_999.5, "8999999999999.500"),
    ])
    func secondsHaveThreeDecimals(value: Double, expected: String) {
        #expect(ReportText.seconds(value) == expected)
    }

    @Test func timestampIsUTCWithoutZone() {
        #expect(ReportText.timestamp(ReportFixtures.startedAt) == "2026-05-04T03:02:01")
        #expect(ReportText.timestamp(Date(timeIntervalSince1970: 0.999)) == "1970-01-01T00:00:00")
    }

    @Test func truncationKeepsWholeCharactersAndFitsTheLimit() {
        let text = String(repeating: "👍🏽", count: 100)  // 8 bytes each
        let cut = ReportText.truncated(text, maxBytes: 64)
        #expect(cut.utf8.count <= 64)
        #expect(cut.hasPrefix("👍🏽"))
        #expect(cut.hasSuffix("… [truncated; 800 bytes in all]"))
        #expect(ReportText.truncated("short", maxBytes: 64) == "short")
    }

    @Test func redactionHappensBeforeTruncationSoNoHalfSecretRemains() {
        let secret = "abcdefghijklmnop"
        let text = String(repeating: "x", count: 4080) + secret
        let cleaned = ReportText.clean(text, redactor: Redactor(secrets: [secret]))
        #expect(!cleaned.contains("abcdef"))
    }

    @Test func longTextIsRedactedAcrossTheCut() {
        // The secret starts inside the excerpt and ends past it: it must be redacted, not cut in half.
        let secret = "0123456789abcdefghij"
        let text = String(repeating: "y", count: 4000) + secret + String(repeating: "z", count: 10_000_000)
        let cleaned = ReportText.clean(text, redactor: Redactor(secrets: [secret]))
        #expect(!cleaned.contains("0123456"))
        #expect(cleaned.utf8.count <= ReportText.maxFreeTextBytes)
        #expect(cleaned.hasSuffix("… [truncated; \(text.utf8.count) bytes in all]"))
        // Without secrets too: only the excerpt is escaped.
        let escaped = ReportText.clean(String(repeating: "\u{1B}", count: 5_000_000), redactor: Redactor(secrets: []))
        #expect(escaped.hasPrefix(#"\u{1B}\u{1B}"#))
        #expect(escaped.utf8.count <= ReportText.maxFreeTextBytes)
    }

    @Test func redactedPrefixStopsOnACharacterBoundary() {
        let (prefix, isWhole) = Redactor(secrets: ["zzzzzz"]).redactedPrefix(of: "ééééé", outputLimit: 3)
        #expect(!isWhole)
        #expect(prefix == "éé")
        #expect(Redactor(secrets: ["zzzzzz"]).redactedPrefix(of: "abc", outputLimit: 3) == ("abc", true))
    }

    @Test func escapingIsIdempotentAndKeepsLineBreaks() {
        let once = ReportText.escapingControls("a\u{0}b\tc\nd\r\u{7F}")
        #expect(once == "a\\u{0}b\tc\nd\r\\u{7F}")
        #expect(ReportText.escapingControls(once) == once)
        // A bidirectional override would make the line read otherwise ("Trojan Source"); a mark or joiner stays.
        #expect(
            ReportText.escapingControls("id\u{202E}gnp.exe \u{2066}x\u{2069} \u{2029}\u{200F}\u{2065}\u{202F}")
                == "id\\u{202E}gnp.exe \\u{2066}x\\u{2069} \u{2029}\u{200F}\u{2065}\u{202F}")
    }

    /// The printable-ASCII shortcut gives what the scalar walk gives, on strings mixing plain ASCII, every control,
    /// DEL, C1 controls, non-ASCII text and U+FFFE/U+FFFF.
    @Test func escapingAgreesWithTheScalarWalkOnRandomText() {
        let pool: [Unicode.Scalar] =
            (0...0x7F).compactMap(Unicode.Scalar.init) + (0x80...0xA0).compactMap(Unicode.Scalar.init)
            + ["é", "€", "\u{FFFD}", "\u{FFFE}", "\u{FFFF}", "😀", "\u{2029}", "\u{202A}", "\u{202E}", "\u{202F}"]
            + ["\u{2065}", "\u{2066}", "\u{2069}", "\u{206A}"]
        var generator = SystemRandomNumberGenerator()
        for round in 0..<2_000 {
            let length = Int.random(in: 0...24, using: &generator)
            // Half the strings are printable ASCII only, so the shortcut is taken often.
            let choices = round % 2 == 0 ? Array(pool[0x20..<0x7F]) : pool
            var scalars = String.UnicodeScalarView()
            for _ in 0..<length { scalars.append(choices.randomElement(using: &generator)!) }
            let text = String(scalars)
            var expected = ""
            for scalar in text.unicodeScalars {
                expected +=
                    ReportText.needsEscape(scalar)
                    ? "\\u{\(String(scalar.value, radix: 16, uppercase: true))}" : String(scalar)
            }
            #expect(ReportText.escapingControls(text) == expected, "\(Array(text.unicodeScalars))")
        }
    }
}
