import Foundation

/// Where a value of a stub is written, `file:line:column`, for findings that name both sides (a stub against an
/// OpenAPI document): the sample file, or the manifest for an inline stub, read once each with the place of every
/// value (`SpecNode.read`) when a finding first asks.
///
/// Not thread-safe: one per run, used where the results are made.
final class StubPlaces {
    private var files: [String: SpecNode?] = [:]

    /// The place of the value at `location` in `contract`'s stub; the nearest value on its way when the stub has
    /// no value there (a member the stub lacks: its object); `nil` for a stub not read from a file.
    func place(of location: JSONLocation, in contract: Contract) -> String? {
        guard let source = contract.stubSource, var node = root(source.file) else { return nil }
        for step in Self.steps(source.location) {
            guard let next = step.map({ node[$0] }, { node[$0] }) else { return nil }
            node = next
        }
        for component in location.components {
            let next: SpecNode?
            switch component {
            case .key(let key): next = node[key]
            case .index(let index): next = node[index]
            }
            guard let next else { break }
            node = next
        }
        let place = node.place
        return "\(place.file):\(place.line):\(place.column)"
    }

    /// Adds ` (the stub: FILE:LINE:COLUMN)` to each finding: the value's place for a place in a JSON body, the
    /// target's declaration in its manifest for the rest (its path, its status, a parameter, a request body).
    func located(_ findings: [Finding], in contract: Contract) -> [Finding] {
        findings.map { finding in
            let place: String?
            if case .json(let location) = finding.location {
                place = self.place(of: location, in: contract)
            } else {
                place = contract.declaration.map { "\($0.file):\($0.line):\($0.column)" }
            }
            guard let place else { return finding }
            var located = finding
            located.message += " (the stub: \(place))"
            return located
        }
    }

    private func root(_ file: String) -> SpecNode? {
        if let known = files[file] { return known }
        // A manifest or a `*.json` sample is read as JSON, another sample file as YAML (which JSON is).
        let root = FileManager.default.contents(atPath: file).flatMap { try? SpecNode.read($0, file: file) }
        files[file] = root
        return root
    }

    /// `targets[2].sampleData.json` as steps: a key or an index each.
    static func steps(_ location: String) -> [Step] {
        var steps: [Step] = []
        for part in location.split(separator: ".") {
            var rest = Substring(part)
            if let bracket = rest.firstIndex(of: "[") {
                if bracket > rest.startIndex { steps.append(.key(String(rest[..<bracket]))) }
                rest = rest[bracket...]
                while rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
                    if let index = Int(rest[rest.index(after: rest.startIndex)..<close]) { steps.append(.index(index)) }
                    rest = rest[rest.index(after: close)...]
                }
            } else {
                steps.append(.key(String(rest)))
            }
        }
        return steps
    }

    enum Step {
        case key(String)
        case index(Int)

        func map<T>(_ key: (String) -> T, _ index: (Int) -> T) -> T {
            switch self {
            case .key(let name): key(name)
            case .index(let position): index(position)
            }
        }
    }
}
