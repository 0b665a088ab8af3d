import Foundation
import Testing

/// Which `openssl` the certificate-making helpers take (`OpenSSL`), on a Mac as described by Homebrew and Apple, and
/// here for real.
@Suite struct OpenSSLTests {
    static let libreSSL = "LibreSSL 3.3.6"
    static let openSSL3 = "OpenSSL 3.6.3 9 Jun 2026 (Library: OpenSSL 3.6.3 9 Jun 2026)"

    /// `OpenSSL.choose` over the candidates that exist among `installed` (path → what `openssl version` says).
    private func chosen(isDarwin: Bool, brewPrefix: String?, path: String, installed: [String: String])
        -> Result<String, OpenSSL.Missing>
    {
        let candidates = OpenSSL.candidates(isDarwin: isDarwin, brewPrefix: brewPrefix, path: path)
        return OpenSSL.choose(candidates.filter { installed[$0] != nil }) { installed[$0] }
    }

    /// macOS: /usr/bin/openssl (LibreSSL) comes first on PATH, Homebrew's keg-only openssl@3 is not on it.
    @Test(
        arguments: [
            ("/opt/homebrew/opt/openssl@3", "/opt/homebrew/opt/openssl@3/bin/openssl"),
            ("/usr/local/opt/openssl@3", "/usr/local/opt/openssl@3/bin/openssl"),
            (nil, "/opt/homebrew/opt/openssl@3/bin/openssl"),  // no brew on PATH: its usual place
        ] as [(String?, String)])
    func onAMacHomebrewsOpenSSL3ComesBeforeLibreSSL(brewPrefix: String?, expected: String) {
        let installed = [
            "/usr/bin/openssl": Self.libreSSL, "/opt/homebrew/opt/openssl@3/bin/openssl": Self.openSSL3,
            "/usr/local/opt/openssl@3/bin/openssl": Self.openSSL3,
        ]
        let result = chosen(
            isDarwin: true, brewPrefix: brewPrefix, path: "/usr/bin:/bin:/opt/homebrew/bin", installed: installed)
        #expect((try? result.get()) == expected)
    }

    @Test func anOpenSSL3OnPathComesBeforeLibreSSL() {
        let installed = ["/usr/bin/openssl": Self.libreSSL, "/opt/local/bin/openssl": Self.openSSL3]
        let result = chosen(isDarwin: true, brewPrefix: nil, path: "/usr/bin:/opt/local/bin", installed: installed)
        #expect((try? result.get()) == "/opt/local/bin/openssl")
    }

    @Test func withoutOpenSSL3TheErrorNamesWhatWasFound() {
        let result = chosen(
            isDarwin: true, brewPrefix: nil, path: "/usr/bin:/bin", installed: ["/usr/bin/openssl": Self.libreSSL])
        guard case .failure(let missing) = result else {
            Issue.record("LibreSSL was taken: \(result)")
            return
        }
        #expect(
            missing.description
                == "no OpenSSL 3 for the test certificates (/usr/bin/openssl is LibreSSL 3.3.6): install it "
                + "(Homebrew: brew install openssl@3; Debian: scripts/setup)")
    }

    /// Debian: PATH's openssl, OpenSSL 3.
    @Test func hereItFindsOpenSSL3() throws {
        let path = try OpenSSL.path.get()
        let version = try ChildProcess.run(path, ["version"]).stdoutText
        #expect(version.hasPrefix("OpenSSL 3"), "\(path): \(version)")
    }
}
