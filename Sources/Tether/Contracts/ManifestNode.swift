/// A value inside a manifest together with where it is, so every error can name the file and the JSON location.
struct ManifestNode {
    let value: JSONValue
    let file: String
    /// `targets[2].sampleData`; empty at the root.
    let location: String

    /// `userRepositories` is written `.userRepositories` in a location; `a b` is written `["a b"]`. ASCII on purpose:
    /// it runs for every key of every manifest, and Unicode letter tests were a tenth of loading 2,000 targets.
    static func isIdentifier(_ key: String) -> Bool {
        var isFirst = true
        for byte in key.utf8 {
            let isLetter =
                (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") || byte == UInt8(ascii: "_")
            let isDigit = byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
            guard isLetter || (!isFirst && isDigit) else { return false }
            isFirst = false
        }
        return !isFirst
    }

    func error(_ message: String) -> ContractError {
        ContractError(file: file, location: location, message)
    }

    func child(_ key: String, _ value: JSONValue) -> ManifestNode {
        let isIdentifier = ManifestNode.isIdentifier(key)
        let step = isIdentifier ? key : "[\"\(key)\"]"
        let path = location.isEmpty ? step : (isIdentifier ? "\(location).\(step)" : "\(location)\(step)")
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
                let hint =
                    closestMatch(to: member.key, in: allowed).map { " (did you mean '\($0)'?)" }
                    ?? " (expected one of: \(allowed.joined(separator: ", ")))"
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
                let hint = closestMatch(to: name, in: cases).map { " (did you mean '\($0)'?)" } ?? ""
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
