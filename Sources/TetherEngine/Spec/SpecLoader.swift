#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads a document and every file its references reach, each once, and checks every reference on the way: the
/// loader behind `SpecDocument.load`.
struct SpecLoader {
    let limits: SpecLimits
    let read: (String) throws -> Data
    var sources: [String: SpecSource] = [:]
    var failures: [String: SpecProblem] = [:]
    var problems: [SpecProblem] = []
    /// Which values of each file were walked already (a reference into a walked part is not walked again).
    var walked: [String: [Bool]] = [:]
    /// Parts of files that references reached and that are still to be walked.
    var pending: [(source: SpecSource, index: Int, pointer: String, value: JSONValue)] = []
    var references: SpecReferences?
    /// What a `$ref` may read: files below this folder (absolute), the git work tree that holds the root document,
    /// else the root document's folder; and where the file system resolves it.
    var boundary: (folder: String, resolved: String?)?
    /// Where each reference already followed led, by the file it is written in and its text: a document refers to
    /// the same schema from many places.
    var followed: [String: [String: Result<SpecReferences.Target, SpecProblem>]] = [:]

    init(limits: SpecLimits, read: @escaping (String) throws -> Data) {
        self.limits = limits
        self.read = read
    }

    /// The file's source, read now if it was not yet.
    mutating func source(_ file: String) -> Result<SpecSource, SpecProblem> {
        if let source = sources[file] { return .success(source) }
        if let failure = failures[file] { return .failure(failure) }
        if let boundary {
            if let outside = Self.outside(file, boundary) {
                failures[file] = outside
                return .failure(outside)
            }
        } else {
            let folder = file.absolutePath.pathDeletingLastComponent
            boundary = (folder, folder.resolvedPath)
            var candidate = folder
            while !candidate.isEmpty {
                if (candidate == "/" ? "/.git" : candidate + "/.git").fileKind.exists {
                    boundary = (candidate, candidate.resolvedPath)
                    break
                }
                if candidate == "/" { break }
                candidate = candidate.pathDeletingLastComponent
            }
        }
        guard sources.count < limits.maxFiles else {
            return .failure(
                SpecProblem(
                    .unreadable, file: file,
                    message: "the document reaches more than \(limits.maxFiles) files through $ref",
                    hint: "bundle the document into fewer files"))
        }
        let result: Result<SpecSource, SpecProblem>
        do {
            let bytes = try read(file)
            result = .success(try SpecSource.read(bytes, file: file, limits: limits))
        } catch let error as SpecError {
            result = .failure(
                error.problems.first ?? SpecProblem(.unreadable, file: file, message: "cannot read \(file.specQuoted)"))
        } catch {
            result = .failure(
                SpecProblem(
                    .unreadable, file: file, message: "cannot read \(file.specQuoted): \(fileErrorReason(error))",
                    hint: sources.isEmpty && failures.isEmpty
                        ? "check the document's path (--spec FILE, or the manifest's \"spec\")"
                        : "check the path (a $ref's file is relative to the file it is written in)"))
        }
        switch result {
        case .success(let source): sources[file] = source
        case .failure(let problem): failures[file] = problem
        }
        return result
    }

    /// Why `file` may not be read, or `nil`: a `$ref` reads files below the git work tree of the root document (its
    /// folder when it is in none), so a document (a provider's, a pull request's) cannot have a run read and quote
    /// `../../.git-credentials`, an absolute path or a link that leads out of it.
    static func outside(_ file: String, _ boundary: (folder: String, resolved: String?)) -> SpecProblem? {
        let isInside = file.absolutePath.isInside(boundary.folder)
        // A link inside may lead out: where the file exists, where it resolves counts.
        let leadsOut =
            if let folder = boundary.resolved, let resolved = file.resolvedPath { !resolved.isInside(folder) } else {
                false
            }
        guard !isInside || leadsOut else { return nil }
        return SpecProblem(
            .unreadable, file: file,
            message: "\(file.specQuoted) is outside \(boundary.folder.specQuoted)" + (isInside ? " through a link" : "")
                + ": a $ref reads files of the document's git work tree (or, outside one, of its folder) only",
            hint: "copy the file there, or bundle the document into one file")
    }

    /// Walks the whole root file, then every part of another file that a reference reaches, resolving each `$ref`
    /// on the way; problems are collected.
    mutating func walkAll(root: SpecSource) {
        pending.append((root, 0, "#", root.root))
        while let next = pending.popLast() {
            var path: [String] = []
            var marks = walked.removeValue(forKey: next.source.file) ?? []
            walk(
                next.value, index: next.index, source: next.source, isMap: false, base: next.pointer, path: &path,
                marks: &marks)
            walked[next.source.file] = marks
        }
    }

    /// What a member's key is to the walk.
    enum Key {
        /// Its object's members are named by the writer (schemas by name, paths, status codes, media types), not
        /// OpenAPI or JSON Schema keywords: a member named `example` or `$ref` there is no keyword.
        case map
        /// Its value is data, not document: a `$ref` inside an example is an example's text (also `x-` extensions).
        case literal
        case examples
        case reference
        case other
    }

    /// By the key's length first, then the few keywords of that length: most keys are none of them, and hashing
    /// each of a million keys was a tenth of the walk.
    static func kind(of key: String) -> Key {
        let utf8 = key.utf8
        if utf8.count >= 2, utf8.first == UInt8(ascii: "x"),
            utf8[utf8.index(after: utf8.startIndex)] == UInt8(ascii: "-")
        {
            return .literal
        }
        switch utf8.count {
        case 4:
            if key == "$ref" { return .reference }
            if key == "enum" { return .literal }
        case 5:
            if key == "const" { return .literal }
            if key == "paths" || key == "$defs" || key == "links" { return .map }
        case 6: if key == "scopes" { return .map }
        case 7:
            if key == "example" || key == "default" { return .literal }
            if key == "schemas" || key == "headers" || key == "content" || key == "mapping" { return .map }
        case 8:
            if key == "examples" { return .examples }
            if key == "webhooks" || key == "encoding" { return .map }
        case 9:
            if key == "responses" || key == "callbacks" || key == "pathItems" || key == "variables" { return .map }
        case 10: if key == "properties" || key == "parameters" { return .map }
        case 11: if key == "definitions" { return .map }
        case 13: if key == "requestBodies" { return .map }
        case 15: if key == "securitySchemes" { return .map }
        case 16: if key == "dependentSchemas" { return .map }
        case 17: if key == "patternProperties" { return .map }
        case 19: if key == "securityDefinitions" { return .map }
        default: break
        }
        return .other
    }

    private mutating func walk(
        _ value: JSONValue, index: Int, source: SpecSource, isMap: Bool, base: String, path: inout [String],
        marks: inout [Bool]
    ) {
        guard Self.mark(index, in: &marks) else { return }
        if let target = source.aliasTarget(of: index) {
            walk(value, index: target, source: source, isMap: isMap, base: base, path: &path, marks: &marks)
            return
        }
        switch value {
        case .object(let members):
            if !source.isYAML { checkDuplicates(members, index: index, source: source, base: base, path: path) }
            var child = source.firstChild(of: index)
            for member in members {
                defer { child = source.value(after: child) }
                let kind = isMap ? Key.other : Self.kind(of: member.key)
                switch kind {
                case .reference:
                    if case .string(let reference) = member.value {
                        follow(reference, source: source, index: child, pointer: { Self.pointer(base, path) })
                        continue
                    }
                case .literal: continue
                case .examples:
                    path.append(member.key)
                    examples(member.value, index: child, source: source, base: base, path: &path)
                    path.removeLast()
                    continue
                case .map, .other: break
                }
                guard member.value.isContainer else { continue }  // a scalar holds no reference
                path.append(member.key)
                walk(
                    member.value, index: child, source: source, isMap: kind == .map, base: base, path: &path,
                    marks: &marks)
                path.removeLast()
            }
        case .array(let elements):
            var child = source.firstChild(of: index)
            for position in elements.indices {
                defer { child = source.value(after: child) }
                guard elements[position].isContainer else { continue }
                path.append(String(position))
                walk(
                    elements[position], index: child, source: source, isMap: false, base: base, path: &path,
                    marks: &marks)
                path.removeLast()
            }
        default:
            break
        }
    }

    /// `examples`: a list of values (3.1 schemas), or a map whose members are example objects, references to them,
    /// or (2.0) values by media type. Only the references are followed.
    private mutating func examples(
        _ value: JSONValue, index: Int, source: SpecSource, base: String, path: inout [String]
    ) {
        guard case .object(let members) = value else { return }
        var child = source.firstChild(of: index)
        for member in members {
            defer { child = source.value(after: child) }
            guard case .object(let fields) = member.value,
                let (position, field) = source.member("$ref", of: child, in: fields),
                case .string(let text) = fields[position].value
            else { continue }
            path.append(member.key)
            follow(text, source: source, index: field, pointer: { Self.pointer(base, path) })
            path.removeLast()
        }
    }

    private static func pointer(_ base: String, _ path: [String]) -> String {
        path.reduce(base) { $0 + "/" + SpecNode.escape($1) }
    }

    /// Marks value `index` walked; false when it already was.
    private static func mark(_ index: Int, in marks: inout [Bool]) -> Bool {
        if index >= marks.count { marks.append(contentsOf: repeatElement(false, count: index - marks.count + 4096)) }
        if marks[index] { return false }
        marks[index] = true
        return true
    }

    /// Resolves the reference whose string is value `index` of `source`, in the object at `pointer`; queues the part
    /// it reaches for a walk, or records the problem.
    private mutating func follow(_ reference: String, source: SpecSource, index: Int, pointer: () -> String) {
        guard let references else { return }
        var result: Result<SpecReferences.Target, SpecProblem>
        if let known = followed[source.file]?[reference] {
            // Its part was queued when it was first followed.
            guard case .failure = known else { return }
            result = known
        } else {
            // The place is filled in only for a problem: most references resolve, and a pointer costs a string.
            let unplaced = SpecPlace(file: source.file, pointer: "", line: 0, column: 0)
            result = references.resolve(reference, from: source, at: unplaced, lookup: { self.source($0) })
            followed[source.file, default: [:]][reference] = result
        }
        switch result {
        case .success(let target):
            pending.append((target.source, target.index, target.pointer, target.value))
        case .failure(var problem):
            let (line, column) = source.lineAndColumn(of: index)
            problem.file = source.file
            problem.line = line
            problem.column = column
            problem.pointer = pointer()
            problems.append(problem)
        }
    }

    private mutating func checkDuplicates(
        _ members: [JSONMember], index: Int, source: SpecSource, base: String, path: [String]
    ) {
        guard members.count > 1 else { return }
        // Small objects (most of them) are compared pairwise; a set only for large ones.
        var seen = Set<String>()
        for (position, member) in members.enumerated() {
            if members.count <= 12 {
                let length = member.key.utf8.count  // a different length is a different key, without a compare
                guard members[..<position].contains(where: { $0.key.utf8.count == length && $0.key == member.key })
                else { continue }
            } else {
                guard !seen.insert(member.key).inserted else { continue }
            }
            let (line, column) = source.lineAndColumn(of: source.child(of: index, at: position), key: true)
            let first = source.member(member.key, of: index, in: members)?.index ?? index
            let (firstLine, firstColumn) = source.lineAndColumn(of: first, key: true)
            problems.append(
                SpecProblem(
                    .duplicateKey, file: source.file, line: line, column: column, pointer: Self.pointer(base, path),
                    message:
                        "duplicate key \(member.key.specQuoted) (first at line \(firstLine), column \(firstColumn))",
                    hint: "remove or rename one of them"))
        }
    }
}

extension JSONValue {
    /// Whether it is an object or an array (what a walk for references descends into).
    fileprivate var isContainer: Bool {
        switch self {
        case .object, .array: true
        default: false
        }
    }
}
