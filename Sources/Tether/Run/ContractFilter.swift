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
        let qualified = Array("\(contract.service).\(contract.name)")
        let bare = Array(contract.name)
        return patterns.contains { pattern in
            let glob = Array(pattern)
            return Self.glob(glob, matches: qualified) || Self.glob(glob, matches: bare)
        }
    }

    /// Iterative glob matching with one backtrack point (linear for `*` patterns; no recursion).
    static func glob(_ pattern: [Character], matches text: [Character]) -> Bool {
        var p = 0
        var t = 0
        var star = -1
        var resume = 0
        while t < text.count {
            if p < pattern.count && (pattern[p] == "?" || pattern[p] == text[t]) {
                p += 1
                t += 1
            } else if p < pattern.count && pattern[p] == "*" {
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
        while p < pattern.count && pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}
