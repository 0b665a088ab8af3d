/// A contract file that cannot be used: the run stops before any request is sent (exit code 2).
public struct ContractError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file (or Swift type) at fault.
    public var file: String
    /// Where in the file, as a JSON path without the `$`: `targets[2].sampleData`; empty for the whole file.
    public var location: String
    /// What is wrong and what to do, lower case.
    public var message: String

    public init(file: String, location: String = "", _ message: String) {
        self.file = file
        self.location = location
        self.message = message
    }

    public var description: String {
        location.isEmpty ? "\(file): \(message)" : "\(file): \(location): \(message)"
    }
}

/// The candidate closest to `word` by edit distance, if it is close enough to be what was meant.
public func closestMatch(to word: String, in candidates: [String]) -> String? {
    let scored = candidates.map { ($0, editDistance(word.lowercased(), $0.lowercased())) }
    guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
    return best.1 <= max(2, word.count / 3) ? best.0 : nil
}

func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
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
