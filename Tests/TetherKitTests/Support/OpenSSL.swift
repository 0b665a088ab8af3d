import Foundation

/// The `openssl` the tests make certificates with: OpenSSL 3 or newer (the `req` and `x509` options the helpers use).
///
/// On macOS `/usr/bin/openssl` is LibreSSL, and Homebrew's `openssl@3` is keg-only (not linked onto PATH): it is
/// looked for first, where `brew --prefix openssl@3` says, then in /opt/homebrew (Apple silicon) and /usr/local
/// (Intel). Then every `openssl` on PATH, in order, and `/usr/bin/openssl` (Debian's is OpenSSL 3). The first that
/// says `OpenSSL 3` or newer wins; none is an error naming what was found.
enum OpenSSL {
    struct Missing: Error, CustomStringConvertible {
        /// Each candidate that exists, with what `openssl version` said.
        var found: [(path: String, version: String)]

        var description: String {
            let seen =
                found.isEmpty
                ? "none on PATH" : found.map { "\($0.path) is \($0.version)" }.joined(separator: "; ")
            return "no OpenSSL 3 for the test certificates (\(seen)): install it (Homebrew: brew install openssl@3; "
                + "Debian: scripts/setup)"
        }
    }

    /// The path of an OpenSSL 3 (or newer), or why there is none.
    static let path: Result<String, Missing> = {
        #if canImport(Darwin)
            let isDarwin = true
        #else
            let isDarwin = false
        #endif
        var brewPrefix: String?
        if isDarwin, let brew = executableOnPath("brew"),
            let run = try? ChildProcess.run(brew, ["--prefix", "openssl@3"], deadline: 60), run.status == 0
        {
            brewPrefix = run.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let found = candidates(
            isDarwin: isDarwin, brewPrefix: brewPrefix, path: ProcessInfo.processInfo.environment["PATH"] ?? "")
        return choose(found.filter { FileManager.default.isExecutableFile(atPath: $0) }) { tool in
            (try? ChildProcess.run(tool, ["version"], deadline: 30)).map {
                $0.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
            }
        }
    }()

    /// Where to look, best first (see the type's comment); duplicates removed.
    static func candidates(isDarwin: Bool, brewPrefix: String?, path: String) -> [String] {
        var all: [String] = []
        if isDarwin {
            all += brewPrefix.map { ["\($0)/bin/openssl"] } ?? []
            all += ["/opt/homebrew/opt/openssl@3/bin/openssl", "/usr/local/opt/openssl@3/bin/openssl"]
        }
        all += path.split(separator: ":").map { "\($0)/openssl" } + ["/usr/bin/openssl"]
        var seen: Set<String> = []
        return all.filter { seen.insert($0).inserted }
    }

    /// The first of `candidates` whose `version` (what `openssl version` prints) is OpenSSL 3 or newer.
    static func choose(_ candidates: [String], version: (String) -> String?) -> Result<String, Missing> {
        var found: [(path: String, version: String)] = []
        for candidate in candidates {
            let text = version(candidate) ?? "(no answer to 'openssl version')"
            if let match = text.firstMatch(of: /^OpenSSL (\d+)\./), let major = Int(match.1), major >= 3 {
                return .success(candidate)
            }
            found.append((candidate, text))
        }
        return .failure(Missing(found: found))
    }
}
