import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// A response's header lines kept as bytes read back as the headers the transport used to make line by line.
@Suite struct HeaderLinesTests {
    private func lines(_ texts: [String]) -> HeaderLines {
        var lines = HeaderLines()
        for text in texts { Array(text.utf8).withUnsafeBytes { lines.append($0) } }
        return lines
    }

    @Test func linesReadBackAsHeadersInOrder() {
        let kept = lines([
            "Content-Type: application/json", "X-Empty:", "X-Tab:\t\tv", "X-Colons: a: b", "Server:nginx",
            "Set-Cookie: a=1", "set-cookie: b=2", "X-Caf\u{E9}: cr\u{E8}me",
        ])
        #expect(
            kept.headers == [
                HTTPHeader("Content-Type", "application/json"), HTTPHeader("X-Empty", ""), HTTPHeader("X-Tab", "v"),
                HTTPHeader("X-Colons", "a: b"), HTTPHeader("Server", "nginx"), HTTPHeader("Set-Cookie", "a=1"),
                HTTPHeader("set-cookie", "b=2"), HTTPHeader("X-Caf\u{E9}", "cr\u{E8}me"),
            ])
    }

    @Test func aValueIsFoundByNameAsIsNamedCompares() {
        let kept = lines(["Content-Length: 12", "content-type: text/plain", "Set-Cookie: a=1", "SET-COOKIE: b=2"])
        #expect(kept.value(named: "Content-Type") == "text/plain")
        #expect(kept.value(named: "set-cookie") == "a=1")  // the first of several
        #expect(kept.value(named: "Content") == nil)  // a prefix is not the name
        #expect(kept.value(named: "Content-Length-X") == nil)
        #expect(kept.value(named: "X-Tether-Mock") == nil)
        for header in kept.headers {
            #expect(
                kept.value(named: header.name.uppercased()) == kept.headers.first { $0.isNamed(header.name) }?.value)
        }
    }

    /// Names of one length that differ where case folding must not reach (`@` and `` ` ``, `[` and `{`, `-` and
    /// `\r`) or only in case: every lookup agrees with `HTTPHeader.isNamed`.
    @Test func namesOfOneLengthAreFoundOnlyWhenIsNamedSaysSo() {
        let names = [
            "X-Tether-Mock", "x-tether-mock", "X-TETHER-MOCK", "Last-Modified", "Accept-Ranges", "X@Tether-Mock",
            "X`Tether-Mock", "X[Tether-Mock", "X{Tether-Mock", "X-Tether-Moc\u{E9}", "X-Tether_Mock", "X-Tether-Moc1",
        ]
        for (index, name) in names.enumerated() {
            let kept = lines([name + ": \(index)", "Content-Type: text/plain"])
            for asked in names {
                let expected = HTTPHeader(name, "").isNamed(asked) ? "\(index)" : nil
                #expect(kept.value(named: asked) == expected, "\(name) asked as \(asked)")
            }
        }
    }

    @Test func aResponseComparesAndLooksUpAlikeWhicheverWayItKeepsItsHeaders() {
        let kept = lines(["Content-Type: application/json", "X-Tether-Mock: not-recorded"])
        let fromLines = HTTPResponse(
            statusCode: 404, headerLines: kept, body: Data("{}".utf8), url: "http://127.0.0.1:1/x", duration: 0.5,
            httpVersion: "HTTP/1.1", reason: "Not Found")
        let parsed = HTTPResponse(
            statusCode: 404, headers: kept.headers, body: Data("{}".utf8), url: "http://127.0.0.1:1/x", duration: 0.5,
            httpVersion: "HTTP/1.1", reason: "Not Found")
        #expect(fromLines == parsed)
        #expect(fromLines.header("x-tether-mock") == "not-recorded")
        #expect(NotRecorded.isMarked(fromLines))
        var changed = fromLines
        changed.headers.append(HTTPHeader("Retry-After", "3"))
        #expect(changed.header("Retry-After") == "3")
        #expect(changed != fromLines)
    }
}
