#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where a value of a stub is written, `file:line:column`, for findings that name both sides (a stub against an
/// OpenAPI document): the sample file, or the manifest for an inline stub, each read once (with the place of every
/// value) when a finding first asks. The value is found as `tether update` finds what it rewrites: by its location
/// in the file (`targets[2].sampleData.json.items[0].id`, `JSONTextEdit.find`).
///
/// Not thread-safe: one per run, used where the results are made.
final class StubPlaces {
    private var files: [String: JSONDocument?] = [:]

    /// The place of the value at `location` in `contract`'s stub; the nearest value on its way when the stub has
    /// no value there (a member the stub lacks: its object); `nil` for a stub not read from a file.
    func place(of location: JSONLocation, in contract: Contract) -> String? {
        guard let source = contract.stubSource, let document = document(source.file) else { return nil }
        var components = location.components[...]
        while true {
            var path = source.location
            for component in components {
                switch component {
                case .key(let key): JSONPath.appendKey(key, to: &path)
                case .index(let index): path += "[\(index)]"
                }
            }
            if source.location.isEmpty && path.hasPrefix(".") { path.removeFirst() }
            if let (index, _) = JSONTextEdit.find(path, in: document.root) {
                let (line, column) = document.lineAndColumn(ofValue: index)
                return "\(source.file):\(line):\(column)"
            }
            guard !components.isEmpty else { return nil }
            components = components.dropLast()
        }
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

    private func document(_ file: String) -> JSONDocument? {
        if let known = files[file] { return known }
        let document = FileManager.default.contents(atPath: file).flatMap { try? JSONReader().document($0) }
        files[file] = document
        return document
    }
}
