/// A contract file that cannot be used: the run stops before any request is sent (exit code 2).
public struct ContractError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file (or Swift type) at fault.
    public var file: String
    /// The 1-based line in `file` where the problem is, when the file is a manifest or sample file.
    public var line: Int?
    /// The 1-based column (in characters) on `line`.
    public var column: Int?
    /// Where in the file, as a JSON path without the `$`: `targets[2].sampleData`; empty for the whole file.
    public var location: String
    /// What is wrong and what to do, lower case.
    public var message: String

    /// - Parameters: as the properties.
    public init(file: String, line: Int? = nil, column: Int? = nil, location: String = "", _ message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.location = location
        self.message = message
    }

    /// `file:line:column` (or `file` alone): where an editor jumps to.
    public var place: String { Self.place(file, line: line, column: column) }

    /// `file:line:column`, `file:line` or `file`, as much as is known: the one form of a place in every message.
    package static func place(_ file: String, line: Int?, column: Int?) -> String {
        guard let line else { return file }
        return column.map { "\(file):\(line):\($0)" } ?? "\(file):\(line)"
    }

    /// `contracts/api.json:12:7: targets[2].qurey: unknown key (did you mean 'query'?)`.
    public var description: String {
        location.isEmpty ? "\(place): \(message)" : "\(place): \(location): \(message)"
    }

    /// The compiler's form, which Xcode, VS Code's problem matchers and GitHub's annotations read:
    /// `contracts/api.json:12:7: error: targets[2].qurey: unknown key (did you mean 'query'?)`.
    public var diagnostic: String {
        location.isEmpty ? "\(place): error: \(message)" : "\(place): error: \(location): \(message)"
    }
}

/// Every contract error of a run, as a compiler reports every error of a build at once. The one home where they are
/// collected: an identical diagnostic (one place, one message: a `${VAR}` in the service's headers, found again for
/// every target that uses them) is kept once, so that what is printed and what is counted agree.
public struct ContractErrors: Error, Sendable, Equatable, CustomStringConvertible {
    /// In file order, then document order; each diagnostic once.
    public private(set) var errors: [ContractError]

    /// How many errors `description` lists before it counts the rest.
    public static let shownLimit = 50

    /// - Parameter errors: At least one; an error identical to an earlier one is dropped.
    public init(_ errors: [ContractError]) {
        var seen: Set<String> = []
        self.errors = errors.filter { seen.insert($0.diagnostic).inserted }
    }

    /// One diagnostic line per error (at most `shownLimit`, then a count of the rest), without a final newline.
    public var description: String {
        var lines = errors.prefix(Self.shownLimit).map(\.diagnostic)
        if errors.count > Self.shownLimit {
            lines.append("… and \(errors.count - Self.shownLimit) more contract errors")
        }
        return lines.joined(separator: "\n")
    }

    /// `1 contract error` or `3 contract errors`.
    public var countText: String { errors.count == 1 ? "1 contract error" : "\(errors.count) contract errors" }
}

/// The candidate closest to `word` by edit distance, if it is close enough to be what was meant.
public func closestMatch(to word: String, in candidates: [String]) -> String? {
    let scored = candidates.map { ($0, editDistance(word.lowercased(), $0.lowercased())) }
    guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
    return best.1 <= max(2, word.count / 3) ? best.0 : nil
}

/// Levenshtein distance in characters (grapheme clusters).
package func editDistance(_ a: String, _ b: String) -> Int {
    // Compared as bytes when both are plain ASCII, without breaking graphemes (a "did you mean" among 4,000
    // operations' paths compares 12,000 pairs per request).
    if isPlainASCII(a), isPlainASCII(b) { return editDistance(Array(a.utf8), Array(b.utf8)) }
    return editDistance(Array(a), Array(b))
}

/// Whether `text` is one character per byte: ASCII without a carriage return (`"\r\n"` is one character).
package func isPlainASCII(_ text: String) -> Bool { text.utf8.allSatisfy { $0 < 0x80 && $0 != 0x0D } }

private func editDistance<Element: Equatable>(_ a: [Element], _ b: [Element]) -> Int {
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    var current = previous
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        swap(&previous, &current)
    }
    return previous[b.count]
}

/// ` (did you mean 'sampleData'?)` when one of `candidates` is close to `word`, else the empty string.
public func didYouMean(_ word: String, in candidates: [String]) -> String {
    closestMatch(to: word, in: candidates).map { " (did you mean '\($0)'?)" } ?? ""
}
