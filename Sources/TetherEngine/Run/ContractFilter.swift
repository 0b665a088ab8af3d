/// Which targets a run verifies (`--filter`): glob patterns over `Service.target` or the bare target name.
public struct ContractFilter: Sendable, Equatable {
    /// Patterns such as `GitHub.*`, `*Repositories`, `zen`; `*` matches any run of characters, `?` one character.
    public var patterns: [String]

    /// - Parameter patterns: Globs over `Service.target` or `target` (`*`, `?`); none selects everything.
    public init(patterns: [String]) {
        self.patterns = patterns
    }

    /// Whether a contract is selected: every contract when there are no patterns, else one pattern must match.
    public func matches(_ contract: Contract) -> Bool {
        guard !patterns.isEmpty else { return true }
        let qualified = "\(contract.service).\(contract.name)"
        // ASCII without a carriage return (`\r\n` is one `Character`) has one character per byte: matched on its
        // bytes, without building `Character` arrays for every contract (a tenth of loading 2,000 targets).
        if Self.isOneBytePerCharacter(qualified), patterns.allSatisfy(Self.isOneBytePerCharacter) {
            let (text, bare) = (Array(qualified.utf8), Array(contract.name.utf8))
            return patterns.contains { pattern in
                let glob = Array(pattern.utf8)
                return Self.glob(glob, matches: text, any: UInt8(ascii: "*"), one: UInt8(ascii: "?"))
                    || Self.glob(glob, matches: bare, any: UInt8(ascii: "*"), one: UInt8(ascii: "?"))
            }
        }
        let (text, bare) = (Array(qualified), Array(contract.name))
        return patterns.contains { pattern in
            let glob = Array(pattern)
            return Self.glob(glob, matches: text, any: "*", one: "?")
                || Self.glob(glob, matches: bare, any: "*", one: "?")
        }
    }

    private static func isOneBytePerCharacter(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 < 0x80 && $0 != UInt8(ascii: "\r") }
    }

    /// Iterative glob matching with one backtrack point (linear for `*` patterns; no recursion), over characters
    /// or, for ASCII, bytes: `any` is `*`, `one` is `?`.
    static func glob<Unit: Equatable>(_ pattern: [Unit], matches text: [Unit], any: Unit, one: Unit) -> Bool {
        var p = 0
        var t = 0
        var star = -1
        var resume = 0
        while t < text.count {
            if p < pattern.count && (pattern[p] == one || pattern[p] == text[t]) {
                p += 1
                t += 1
            } else if p < pattern.count && pattern[p] == any {
                star = p
                resume = t
                p += 1
            } else if star >= 0 {
                p = star + 1
                resume += 1
                t = resume
            } else {
                return false
            }
        }
        while p < pattern.count && pattern[p] == any { p += 1 }
        return p == pattern.count
    }
}
