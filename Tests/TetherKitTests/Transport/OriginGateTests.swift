import Foundation
import Testing

@testable import TetherEngine

/// The `https` origin the transport holds requests back for, found by the URL's bytes first.
@Suite struct OriginGateTests {
    /// What `tlsOrigin` was before it looked at the bytes: the first eight characters, lower-cased.
    private static func byCharacters(_ url: String) -> Substring? {
        let scheme = "https://"
        guard url.utf8.count > scheme.utf8.count, url.prefix(scheme.count).lowercased() == scheme else { return nil }
        let rest = url.dropFirst(scheme.count)
        let end = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        return Substring(url[url.startIndex..<end].lowercased())
    }

    @Test func anOriginIsFoundByItsBytesAsByItsCharacters() {
        let urls = [
            "https://api.example.com/users/1", "HTTPS://API.Example.com:8443?q=1", "Https://h#frag", "https://",
            "https:/", "https:/x/y", "http://127.0.0.1:18431/c/0.json", "HTTP://x", "ftp://x", "", "h", "httpsx://a",
            "https:\\\\x", "htTpS://h\u{E9}te.example/\u{1F680}", "https:/\u{301}/x", "https://\u{301}x",
            "\u{212A}ttps://x", "https\u{301}://x", "ＨＴＴＰＳ://x", "https://a/b?c#d", " https://x",
        ]
        for url in urls {
            #expect(OriginGate.tlsOrigin(url) == Self.byCharacters(url), "\(url)")
        }
        #expect(OriginGate.tlsOrigin("HTTPS://API.Example.com:8443?q=1") == "https://api.example.com:8443")
        #expect(OriginGate.tlsOrigin("http://127.0.0.1:18431/c/0.json") == nil)
    }
}
