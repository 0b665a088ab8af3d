/// A value inside a manifest together with where it is, so every error can name the file and the JSON location.
struct ManifestNode {
    let value: JSONValue
    let file: String
    /// `targets[2].sampleData`; empty at the root.
    let location: String

    func error(_ message: String) -> ContractError {
        ContractError(file: file, location: location, message)
    }

    func child(_ key: String, _ value: JSONValue) -> ManifestNode {
        var path = location
        JSONPath.appendKey(key, to: &path)
        if location.isEmpty && path.hasPrefix(".") { path.removeFirst() }  // `service`, not `.service`, at the root
        return ManifestNode(value: value, file: file, location: path)
    }

    /// The members of an object, after checking that every key is one of `allowed` (a typo never silently
    /// disables a check) and that none repeats.
    func members(allowed: [String]) throws(ContractError) -> [String: ManifestNode] {
        guard case .object(let members) = value else { throw error("expected an object, got \(value.typeName)") }
        var result: [String: ManifestNode] = [:]
        for member in members {
            let node = child(member.key, member.value)
            guard allowed.contains(member.key) else {
                let suggestion = didYouMean(member.key, in: allowed)
                let hint = suggestion.isEmpty ? " (expected one of: \(allowed.joined(separator: ", ")))" : suggestion
                throw node.error("unknown key\(hint)")
            }
            guard result[member.key] == nil else { throw node.error("key appears twice") }
            result[member.key] = node
        }
        return result
    }

    /// An object whose keys are free (headers, query, parameters), in document order.
    func freeMembers() throws(ContractError) -> [(String, ManifestNode)] {
        guard case .object(let members) = value else { throw error("expected an object, got \(value.typeName)") }
        return members.map { ($0.key, child($0.key, $0.value)) }
    }

    func string() throws(ContractError) -> String {
        guard case .string(let text) = value else { throw error("expected a string, got \(value.typeName)") }
        return text
    }

    func integer(in range: ClosedRange<Int>) throws(ContractError) -> Int {
        guard case .integer(let number) = value else { throw error("expected an integer, got \(value.typeName)") }
        guard range.contains(Int(number)) else {
            throw error("\(number) is out of range \(range.lowerBound)...\(range.upperBound)")
        }
        return Int(number)
    }

    func array() throws(ContractError) -> [ManifestNode] {
        guard case .array(let elements) = value else { throw error("expected an array, got \(value.typeName)") }
        return elements.enumerated().map { ManifestNode(value: $1, file: file, location: "\(location)[\($0)]") }
    }

    /// An object that must have exactly one of `cases` as its key (`{"networkResponse": {...}}`), or a bare string
    /// naming a case that takes no value (`"requestPlain"`).
    func oneOf(_ cases: [String]) throws(ContractError) -> (String, ManifestNode?) {
        if case .string(let name) = value {
            guard cases.contains(name) else {
                let hint = didYouMean(name, in: cases)
                throw error("unknown case '\(name)'\(hint); expected one of: \(cases.joined(separator: ", "))")
            }
            return (name, nil)
        }
        let members = try members(allowed: cases)
        guard members.count == 1, let (name, node) = members.first else {
            throw error("expected exactly one of: \(cases.joined(separator: ", "))")
        }
        return (name, node)
    }
}
