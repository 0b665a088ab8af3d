import Foundation
import Testing

/// Compares `actual` with the golden file `Fixtures/golden/<name>` in the source tree.
///
/// Records the file when it is missing or `RECORD_SNAPSHOTS=1`, and then *fails*, so a recording is never mistaken
/// for a pass; in CI (`CI` set) it never records. On a mismatch it reports the first differing line.
func expectGolden(_ actual: String, named name: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let url = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // TetherKitTests
        .appendingPathComponent("Fixtures/golden/\(name)")
    let environment = ProcessInfo.processInfo.environment
    let existing = try? String(contentsOf: url, encoding: .utf8)
    if existing == nil || environment["RECORD_SNAPSHOTS"] == "1" {
        if environment["CI"] != nil {
            Issue.record(
                "golden file \(url.path) is missing; record it locally (CI never records)",
                sourceLocation: sourceLocation)
            return
        }
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try actual.write(to: url, atomically: true, encoding: .utf8)
            Issue.record(
                "recorded golden file \(url.path); check it, commit it, run again without RECORD_SNAPSHOTS",
                sourceLocation: sourceLocation)
        } catch {
            Issue.record("cannot record golden file \(url.path): \(error)", sourceLocation: sourceLocation)
        }
        return
    }
    guard let expected = existing, expected != actual else { return }
    let expectedLines = expected.split(separator: "\n", omittingEmptySubsequences: false)
    let actualLines = actual.split(separator: "\n", omittingEmptySubsequences: false)
    let index =
        zip(expectedLines, actualLines).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        ?? min(expectedLines.count, actualLines.count)
    let want = index < expectedLines.count ? String(expectedLines[index]) : "<end of file>"
    let got = index < actualLines.count ? String(actualLines[index]) : "<end of file>"
    Issue.record(
        Comment(
            rawValue: "differs from golden file \(name) at line \(index + 1)\n- golden: \(want)\n+ actual: \(got)\n"
                + "(re-record with RECORD_SNAPSHOTS=1 if the change is intended)"),
        sourceLocation: sourceLocation)
}
