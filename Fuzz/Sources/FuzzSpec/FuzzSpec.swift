import Foundation
import FuzzSupport
import TetherKit

// The OpenAPI loader on arbitrary bytes: libyaml and JSONReader, `$ref`s across two files, the model and matching.
// Input: the document, then (after a `=====` line) a second file that the document can reach as `common.yaml` (or
// `common.json`). Each part is read as YAML and as JSON. Besides not crashing or hanging, the loader keeps its promises:
// - every refusal is a `SpecError` with at least one problem, each with a message and (when placed) a line and column
//   of at least 1 in one of the two files;
// - every value read has a place of at least line 1, column 1, within the file's lines;
// - bytes that both readers accept (JSON is YAML) give the same value;
// - every operation of a loaded document whose path and server are plain is found again by a request for its own
//   method and path (its parameters filled in), and every response schema's `$ref` resolves or throws a `SpecError`.

private let files = ["openapi.yaml", "openapi.json", "common.yaml", "common.json"]

/// libFuzzer's entry: one input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let (document, common) = splitParts(fuzzData(bytes, size))
    let limits = SpecLimits(maxDepth: 256, maxAliasValues: 100_000, maxFiles: 8)
    for part in [document, common] {
        let yaml = read(part, "common.yaml", limits)
        let json = read(part, "common.json", limits)
        if let yaml, let json, yaml.value != json.value {
            violated("JSON that libyaml reads gives the same value", "\(yaml.value)\n\(json.value)")
        }
    }
    for root in ["openapi.yaml", "openapi.json"] {
        let loaded: SpecDocument
        do {
            loaded = try SpecDocument.load(file: root, limits: limits) { path in
                switch path {
                case root: return document
                case "common.yaml", "common.json": return common
                default: throw CocoaError(.fileReadNoSuchFile)
                }
            }
        } catch {
            checkProblems(error, lines: lineCount(document) + lineCount(common))
            continue
        }
        check(loaded)
    }
    return 0
}

/// At most how many lines the bytes have for either reader: YAML also breaks lines at a lone CR, at NEL (C2 85) and at
/// LS and PS (E2 80 A8/A9), so every CR, 0x85 and 0xA8/0xA9 byte counts as one (an upper bound).
private func lineCount(_ data: Data) -> Int {
    data.reduce(2) { count, byte in count + ([0x0A, 0x0D, 0x85, 0xA8, 0xA9].contains(byte) ? 1 : 0) }
}

private func checkProblems(_ error: SpecError, lines: Int) {
    if error.problems.isEmpty { violated("a SpecError has a problem") }
    for problem in error.problems {
        if problem.message.isEmpty { violated("a problem has a message", "\(problem)") }
        if !files.contains(problem.file) { violated("a problem names one of the files", "\(problem)") }
        if let line = problem.line, let column = problem.column, line < 1 || column < 1 || line > lines {
            violated("a problem's line and column are in the file", "\(problem)")
        }
    }
}

/// Reads one part; checks the places of all its values.
private func read(_ bytes: Data, _ file: String, _ limits: SpecLimits) -> SpecNode? {
    do {
        let node = try SpecNode.read(bytes, file: file, limits: limits)
        let lines = lineCount(bytes)
        var stack = [node]
        var visited = 0
        while let next = stack.popLast(), visited < 20_000 {
            visited += 1
            let place = next.place
            if place.line < 1 || place.column < 1 || place.line > lines {
                violated("every value has a place in the file", "\(place) \(place.pointer)")
            }
            stack += next.members.map(\.node) + next.elements
        }
        return node
    } catch {
        checkProblems(error, lines: lineCount(bytes))
        return nil
    }
}

private func isPlain(_ text: String) -> Bool {
    text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "/-_.".contains($0)) }
}

private func check(_ document: SpecDocument) {
    for operation in document.operations {
        for media in operation.responses.flatMap(\.content) {
            if let schema = media.schema { _ = try? document.resolved(schema) }
        }
        guard let server = operation.servers.first, isPlain(server.basePath), server.host.map(isPlain) ?? true else {
            continue
        }
        var segments: [String] = []
        var plain = true
        for segment in operation.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            if segment.hasPrefix("{"), segment.hasSuffix("}"), segment.count > 2,
                isPlain(String(segment.dropFirst().dropLast()))
            {
                segments.append("p")
            } else if isPlain(String(segment)), !segment.isEmpty {
                segments.append(String(segment))
            } else {
                plain = false
            }
        }
        guard plain, operation.path.hasPrefix("/") else { continue }
        let url = "http://\(server.host ?? "fuzz.test")\(server.basePath)/" + segments.joined(separator: "/")
        guard case .found(let route) = document.match(method: operation.method, url: url) else {
            violated("an operation is found by its own method and path", "\(operation.name) as \(url)")
        }
        if route.operation.method != operation.method {
            violated("a route has the request's method", "\(operation.name) → \(route.operation.name)")
        }
    }
}
