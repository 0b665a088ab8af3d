@testable import TetherEngine
@testable import TetherKit

extension Finding.Location {
    /// A JSON place written as reports print it (`$.items[3].price`, `$["a b"][0]`), for tests that spell expected
    /// findings: `.key` steps of identifier characters, `[n]` indices and `["key"]` members.
    static func jsonPath(_ path: String) -> Finding.Location {
        var components: [JSONLocation.Component] = []
        var rest = Substring(path.dropFirst())  // "$"
        while let first = rest.first {
            if first == "." {
                rest = rest.dropFirst()
                let key = rest.prefix { $0 != "." && $0 != "[" }
                components.append(.key(String(key)))
                rest = rest.dropFirst(key.count)
            } else if rest.hasPrefix("[\"") {
                let body = rest.dropFirst(2)
                let end = body.range(of: "\"]")?.lowerBound ?? body.endIndex
                components.append(.key(String(body[..<end])))
                rest = body[end...].dropFirst(2)
            } else {
                let body = rest.dropFirst()
                let digits = body.prefix { $0 != "]" }
                components.append(.index(Int(digits) ?? 0))
                rest = body.dropFirst(digits.count + 1)
            }
        }
        return .json(JSONLocation(components))
    }
}
