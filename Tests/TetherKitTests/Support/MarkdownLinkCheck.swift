import Foundation

/// Finds the relative links of Markdown files that lead nowhere: a file that does not exist, or a `#anchor` that is
/// no heading of the file it names, by GitHub's rules for heading anchors.
///
/// Links inside fenced code blocks and code spans are not links; `http:`, `https:`, `mailto:` and other URLs with a
/// scheme are not checked (nothing here goes to the network). Anchors are checked in Markdown files only (a source
/// file's `#L12` is GitHub's, not a heading).
enum MarkdownLinkCheck {
    /// The Markdown files of the project under `root`, sorted by path: hidden folders (`.build`, `.git`), test
    /// fixtures (`Fixtures/`, which hold report output, not documentation) and `bench/out/` (generated) are left out.
    static func documents(under root: URL) -> [URL] {
        guard
            let walk = FileManager.default.enumerator(
                at: root, includingPropertiesForKeys: [.isDirectoryKey], options: [.skipsHiddenFiles])
        else { return [] }
        var found: [URL] = []
        for case let url as URL in walk {
            let name = url.lastPathComponent
            let isBenchOutput = name == "out" && url.deletingLastPathComponent().lastPathComponent == "bench"
            if name.hasPrefix(".") || name == "Fixtures" || isBenchOutput {
                walk.skipDescendants()
                continue
            }
            if url.pathExtension == "md" { found.append(url.resolvingSymlinksInPath()) }
        }
        return found.sorted { $0.path < $1.path }
    }

    /// One message per broken link in `documents`, each `path:line:column: …` with the path relative to `root`.
    static func problems(in documents: [URL], root: URL) -> [String] {
        let rootPath = root.resolvingSymlinksInPath().path
        var anchorsByPath: [String: Set<String>] = [:]
        func anchors(of path: String) -> Set<String>? {
            if let known = anchorsByPath[path] { return known }
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
            let found = Set(headingAnchors(in: text))
            anchorsByPath[path] = found
            return found
        }
        func relative(_ path: String) -> String {
            path.hasPrefix(rootPath + "/") ? String(path.dropFirst(rootPath.count + 1)) : path
        }
        var problems: [String] = []
        for document in documents {
            let documentPath = document.resolvingSymlinksInPath().path
            guard let text = try? String(contentsOfFile: documentPath, encoding: .utf8) else {
                problems.append("\(relative(documentPath)): cannot be read as UTF-8 text")
                continue
            }
            for link in links(in: text) {
                let place = "\(relative(documentPath)):\(link.line):\(link.column)"
                if hasScheme(link.target) { continue }
                let (pathPart, anchor) = split(link.target)
                let targetPath: String
                if pathPart.isEmpty {
                    targetPath = documentPath
                } else {
                    let decoded = pathPart.removingPercentEncoding ?? pathPart
                    let base =
                        decoded.hasPrefix("/") ? URL(fileURLWithPath: rootPath) : document.deletingLastPathComponent()
                    targetPath = base.appendingPathComponent(decoded).standardizedFileURL.path
                }
                if targetPath != rootPath && !targetPath.hasPrefix(rootPath + "/") {
                    problems.append("\(place): link '\(link.target)' leaves the repository; link to a file inside it")
                    continue
                }
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: targetPath, isDirectory: &isDirectory) else {
                    problems.append(
                        "\(place): link '\(link.target)' names \(relative(targetPath)), which does not exist; "
                            + "fix the path or add the file")
                    continue
                }
                guard let anchor, !isDirectory.boolValue, targetPath.hasSuffix(".md") else { continue }
                let known = anchors(of: targetPath) ?? []
                if !known.contains(anchor) {
                    let near = known.sorted().filter { $0.hasPrefix(String(anchor.prefix(4))) }.prefix(3)
                    let hint = near.isEmpty ? "" : " (did you mean \(near.map { "'#\($0)'" }.joined(separator: ", "))?)"
                    problems.append(
                        "\(place): link '\(link.target)' names no heading of \(relative(targetPath)): "
                            + "'#\(anchor)' is not among its anchors\(hint); fix the anchor or the heading")
                }
            }
        }
        return problems
    }

    /// The anchor GitHub gives a heading: lower-cased, each space a `-`, every character but letters, digits, `-`
    /// and `_` dropped (`## What "holds" means` → `what-holds-means`). Link and code markup count as their text.
    static func anchor(ofHeading heading: String) -> String {
        var slug = ""
        for scalar in plainText(heading).lowercased().unicodeScalars {
            switch scalar {
            case " ": slug.append("-")
            case "-", "_": slug.unicodeScalars.append(scalar)
            default:
                switch scalar.properties.generalCategory {
                case .lowercaseLetter, .uppercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                    .decimalNumber, .letterNumber, .otherNumber, .nonspacingMark, .spacingMark, .enclosingMark:
                    slug.unicodeScalars.append(scalar)
                default: break
                }
            }
        }
        return slug
    }

    /// The anchors of every heading of a Markdown text, outside code blocks; a repeated anchor gets `-1`, `-2`, …
    static func headingAnchors(in text: String) -> [String] {
        var seen: [String: Int] = [:]
        var anchors: [String] = []
        for line in proseLines(of: text) {
            guard let heading = headingText(line.text) else { continue }
            let base = anchor(ofHeading: heading)
            let count = seen[base, default: 0]
            seen[base] = count + 1
            anchors.append(count == 0 ? base : "\(base)-\(count)")
        }
        return anchors
    }

    /// A link's target (what is between the parentheses) and where it starts, 1-based.
    struct Link: Equatable {
        var target: String
        var line: Int
        var column: Int
    }

    /// Every inline link (`[text](target)`, images too) and reference definition (`[name]: target`) outside code.
    static func links(in text: String) -> [Link] {
        var links: [Link] = []
        for line in proseLines(of: text) {
            let characters = Array(withoutCodeSpans(line.text))
            if let definition = referenceDefinition(characters) {
                links.append(Link(target: definition.target, line: line.number, column: definition.column))
                continue
            }
            var index = 0
            var sawOpeningBracket = false
            while index < characters.count {
                if characters[index] == "[" { sawOpeningBracket = true }
                if characters[index] == "]", index + 1 < characters.count, characters[index + 1] == "(",
                    sawOpeningBracket
                {
                    var end = index + 2
                    var target = ""
                    while end < characters.count, characters[end] != ")", characters[end] != " " {
                        target.append(characters[end])
                        end += 1
                    }
                    if target.hasPrefix("<"), target.hasSuffix(">") { target = String(target.dropFirst().dropLast()) }
                    if !target.isEmpty { links.append(Link(target: target, line: line.number, column: index + 3)) }
                    index = end
                    continue
                }
                index += 1
            }
        }
        return links
    }

    // MARK: - Reading Markdown

    /// The lines of a text that are not inside a fenced code block (and are not its fences), numbered from 1.
    private static func proseLines(of text: String) -> [(number: Int, text: String)] {
        var prose: [(number: Int, text: String)] = []
        var fence: (character: Character, count: Int)?
        for (offset, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if let open = fence {
                let run = trimmed.prefix { $0 == open.character }.count
                if run >= open.count, trimmed.dropFirst(run).allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\r" }) {
                    fence = nil
                }
                continue
            }
            if let first = trimmed.first, first == "`" || first == "~" {
                let run = trimmed.prefix { $0 == first }.count
                if run >= 3 {
                    fence = (first, run)
                    continue
                }
            }
            prose.append((offset + 1, String(line)))
        }
        return prose
    }

    /// The text of an ATX heading (`## Title`, up to three spaces before it), or nil.
    private static func headingText(_ line: String) -> String? {
        let indent = line.prefix { $0 == " " }.count
        guard indent <= 3 else { return nil }
        let rest = line.dropFirst(indent)
        let level = rest.prefix { $0 == "#" }.count
        guard (1...6).contains(level) else { return nil }
        let body = rest.dropFirst(level)
        guard body.isEmpty || body.first == " " || body.first == "\t" else { return nil }
        var text = body.trimmingCharacters(in: .whitespacesAndNewlines)
        // A closing run of #s (`## Title ##`) is not part of the heading.
        if let last = text.lastIndex(where: { $0 != "#" }), text[last] == " " {
            text = String(text[...last]).trimmingCharacters(in: .whitespaces)
        } else if text.allSatisfy({ $0 == "#" }) {
            text = ""
        }
        return text
    }

    /// A heading's text as GitHub renders it, before the anchor is made: `[text](url)` is `text`, backticks go.
    private static func plainText(_ heading: String) -> String {
        var result = ""
        var characters = Substring(heading)
        while let first = characters.first {
            if first == "[", let close = characters.firstIndex(of: "]"),
                characters.index(after: close) < characters.endIndex,
                characters[characters.index(after: close)] == "(",
                let end = characters[close...].firstIndex(of: ")")
            {
                result += characters[characters.index(after: characters.startIndex)..<close]
                characters = characters[characters.index(after: end)...]
                continue
            }
            if first != "`" { result.append(first) }
            characters = characters.dropFirst()
        }
        return result
    }

    /// The line with every code span's content blanked (same length, so columns stay), its backticks kept.
    private static func withoutCodeSpans(_ line: String) -> String {
        var characters = Array(line)
        var index = 0
        while index < characters.count {
            guard characters[index] == "`" else {
                index += 1
                continue
            }
            let run = characters[index...].prefix { $0 == "`" }.count
            var search = index + run
            var closed: Int?
            while search < characters.count {
                if characters[search] == "`" {
                    let closing = characters[search...].prefix { $0 == "`" }.count
                    if closing == run {
                        closed = search
                        break
                    }
                    search += closing
                } else {
                    search += 1
                }
            }
            guard let close = closed else { break }  // an unclosed run is text, and so is the rest of the line
            for blank in (index + run)..<close { characters[blank] = " " }
            index = close + run
        }
        return String(characters)
    }

    /// `[name]: target` at the start of a line (up to three spaces before it).
    private static func referenceDefinition(_ characters: [Character]) -> (target: String, column: Int)? {
        var index = 0
        while index < characters.count, index < 3, characters[index] == " " { index += 1 }
        guard index < characters.count, characters[index] == "[",
            let close = characters[index...].firstIndex(of: "]"),
            close + 1 < characters.count, characters[close + 1] == ":"
        else { return nil }
        var start = close + 2
        while start < characters.count, characters[start] == " " { start += 1 }
        let target = String(characters[start...].prefix { $0 != " " })
        return target.isEmpty ? nil : (target, start + 1)
    }

    /// Whether a link target is a URL with a scheme (`https:`, `mailto:`), not a path.
    private static func hasScheme(_ target: String) -> Bool {
        guard let colon = target.firstIndex(of: ":"), let first = target.first, first.isLetter else { return false }
        return target[..<colon].allSatisfy { $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." }
    }

    /// `path#anchor` as its two parts; the anchor is nil when there is no `#`.
    private static func split(_ target: String) -> (path: String, anchor: String?) {
        guard let hash = target.firstIndex(of: "#") else { return (target, nil) }
        return (String(target[..<hash]), String(target[target.index(after: hash)...]))
    }
}
