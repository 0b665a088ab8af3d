#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The files of a document and how a `$ref` is followed through them: the part both the loader (which reads files as
/// references reach them) and the finished document (whose files are all read) share.
struct SpecReferences {
    /// The document's version: in 3.1 a reference object may carry `summary` and `description` beside `$ref`, and a
    /// schema with `$ref` and other keywords is a schema of its own (not followed on).
    let version: SpecVersion
    /// How long a chain of references to references may be before it is taken for a cycle.
    static let maxChain = 64

    /// Where a reference leads: the file, the value's number in it, and its pointer.
    struct Target {
        var source: SpecSource
        var index: Int
        var pointer: String
        var value: JSONValue
    }

    /// The `$ref` string of `value` when it is a reference object that is followed on (a "pure" reference: `$ref`
    /// alone, or in 2.0/3.0 with siblings, which the specification says to ignore; in 3.1 with `summary` and
    /// `description` only), else `nil`.
    func followedReference(_ value: JSONValue) -> String? {
        guard case .object(let members) = value,
            let member = members.first(where: { $0.key == "$ref" }), case .string(let reference) = member.value
        else { return nil }
        if version == .openAPI31 {
            let allowed: Set<String> = ["$ref", "summary", "description"]
            guard members.allSatisfy({ allowed.contains($0.key) }) else { return nil }
        }
        return reference
    }

    /// The file a reference's file part names, relative to the folder of the file it is written in.
    static func file(_ part: String, from file: String) -> String {
        let decoded = part.percentDecoded ?? part
        if decoded.hasPrefix("/") { return decoded.lexicallyNormalized }
        let folder = file.pathDeletingLastComponent
        return (folder.isEmpty ? decoded : folder + "/" + decoded).lexicallyNormalized
    }

    /// Splits a reference into its file part (empty for the same file) and its fragment (percent-decoded, `nil` when
    /// there is no `#`).
    static func split(_ reference: String) -> (file: String, fragment: String?) {
        guard let hash = reference.firstIndex(of: "#") else { return (reference, nil) }
        let fragment = String(reference[reference.index(after: hash)...])
        guard fragment.utf8.contains(UInt8(ascii: "%")) else { return (String(reference[..<hash]), fragment) }
        return (String(reference[..<hash]), fragment.percentDecoded ?? fragment)
    }

    /// Follows one reference written in `source` at `place`, then on through pure references, with `lookup` giving
    /// the source of a file (reading it if it must).
    func resolve(
        _ reference: String, from source: SpecSource, at place: SpecPlace,
        lookup: (String) -> Result<SpecSource, SpecProblem>
    ) -> Result<Target, SpecProblem> {
        var current = reference
        var from = source
        var seen: [(file: String, index: Int)] = []
        var chain: [String] = []
        while true {
            chain.append(current)
            let target: Target
            switch step(current, from: from, at: place, original: reference, lookup: lookup) {
            case .failure(let problem): return .failure(problem)
            case .success(let found): target = found
            }
            guard let next = followedReference(target.value) else { return .success(target) }
            if seen.contains(where: { $0.file == target.source.file && $0.index == target.index })
                || chain.count > Self.maxChain
            {
                return .failure(
                    SpecProblem(
                        .referenceCycle, at: place,
                        message: "the $ref \(reference.specQuoted) never reaches a value: "
                            + chain.joined(separator: " → ") + " → …",
                        hint: "make one of these references point at a schema, parameter or response itself"))
            }
            seen.append((target.source.file, target.index))
            current = next
            from = target.source
        }
    }

    /// Follows one reference, without going on.
    private func step(
        _ reference: String, from source: SpecSource, at place: SpecPlace, original: String,
        lookup: (String) -> Result<SpecSource, SpecProblem>
    ) -> Result<Target, SpecProblem> {
        func failure(_ message: String, _ hint: String) -> Result<Target, SpecProblem> {
            let via = reference == original ? "" : " (through \(reference.specQuoted))"
            return .failure(
                SpecProblem(
                    .unresolvedReference, at: place,
                    message: "unresolved $ref \(original.specQuoted)\(via): \(message)", hint: hint))
        }
        let (filePart, fragment) = Self.split(reference)
        if !filePart.isEmpty && (filePart.contains("://") || filePart.hasPrefix("urn:")) {
            return failure(
                "tether reads only local files", "download the document and refer to it by a relative path")
        }
        let targetSource: SpecSource
        if filePart.isEmpty {
            targetSource = source
        } else {
            switch lookup(Self.file(filePart, from: source.file)) {
            case .success(let found): targetSource = found
            case .failure(let problem): return failure(problem.message, problem.hint ?? "check the file's path")
            }
        }
        let pointerText = fragment ?? ""
        guard pointerText.isEmpty || pointerText.hasPrefix("/") else {
            return failure(
                "the fragment '#\(pointerText)' is not a JSON pointer",
                "refer to the value by its JSON pointer ('#/components/schemas/Name'); $anchor and $id names are not"
                    + " read")
        }
        var value = targetSource.root
        var index = 0
        var pointer = "#"
        let tokens =
            pointerText.isEmpty
            ? [] : pointerText.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map(Self.unescape)
        for token in tokens {
            switch value {
            case .object(let members):
                guard let (position, child) = targetSource.member(token, of: index, in: members) else {
                    let nearest = SpecText.nearest(token, among: members.map(\.key))
                    return failure(
                        "\(Self.shown(pointer, in: targetSource)) has no member \(token.specQuoted)",
                        nearest.map { "did you mean \($0.specQuoted)?" } ?? "check the name")
                }
                index = child
                value = members[position].value
            case .array(let elements):
                guard let position = Int(token), String(position) == token, elements.indices.contains(position) else {
                    return failure(
                        "\(Self.shown(pointer, in: targetSource)) has no element \(token.specQuoted)"
                            + " (it has \(elements.count))", "check the index")
                }
                index = targetSource.child(of: index, at: position)
                value = elements[position]
            default:
                return failure(
                    "\(Self.shown(pointer, in: targetSource)) is \(SpecText.a(value.typeName)), not an object or array",
                    "check the path")
            }
            pointer += "/" + SpecNode.escape(token)
        }
        return .success(Target(source: targetSource, index: index, pointer: pointer, value: value))
    }

    private static func shown(_ pointer: String, in source: SpecSource) -> String {
        "\(source.file)\(pointer == "#" ? " (its root)" : pointer)"
    }

    /// A JSON pointer token, unescaped (RFC 6901: `~1` is `/`, then `~0` is `~`).
    static func unescape(_ token: Substring) -> String {
        let tilde = UInt8(ascii: "~")
        guard token.utf8.contains(tilde) else { return String(token) }
        // One pass over the bytes (two `replacingText` passes were a tenth of checking 16,000 operations' stubs).
        var bytes: [UInt8] = []
        bytes.reserveCapacity(token.utf8.count)
        var escaped = false
        for byte in token.utf8 {
            if escaped {
                escaped = false
                switch byte {
                case UInt8(ascii: "1"): bytes.append(UInt8(ascii: "/"))
                case UInt8(ascii: "0"): bytes.append(tilde)
                case tilde:
                    bytes.append(tilde)
                    escaped = true
                default: bytes += [tilde, byte]
                }
            } else if byte == tilde {
                escaped = true
            } else {
                bytes.append(byte)
            }
        }
        if escaped { bytes.append(tilde) }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Small text helpers for messages.
enum SpecText {
    /// `an object`, `a string`: a type name with its article.
    static func a(_ noun: String) -> String {
        (noun.first.map { "aeiou".contains($0) } ?? false ? "an " : "a ") + noun
    }

    /// The candidate closest to `text` by edit distance, when it is close enough to suggest (at most a third of the
    /// longer one's length, and not equal).
    static func nearest(_ text: String, among candidates: [String]) -> String? {
        var best: (String, Int)?
        for candidate in candidates where candidate != text {
            let distance = editDistance(text, candidate)
            let limit = max(1, max(text.count, candidate.count) / 3)
            if distance <= limit, best.map({ distance < $0.1 }) ?? true { best = (candidate, distance) }
        }
        return best?.0
    }

    /// Levenshtein distance, in characters: the manifest's "did you mean" measure (`TetherContracts`' one).
    static func editDistance(_ first: String, _ second: String) -> Int {
        TetherCore.editDistance(first, second)
    }
}
