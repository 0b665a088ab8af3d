import Foundation
import Testing

@testable import TetherCore

/// The README, the manual in `docs/` and the notes beside `bench/` and `Fuzz/`: every relative link leads to a file
/// that exists, and every `#anchor` to a heading of the file it names.
@Suite struct DocumentationTests {
    @Test func everyRelativeLinkOfTheDocumentationResolves() {
        let root = FixturePaths.packageRoot
        let problems = MarkdownLinkCheck.problems(in: MarkdownLinkCheck.documents(under: root), root: root)
        #expect(problems.isEmpty, "\(problems.count) broken links:\n\(problems.joined(separator: "\n"))")
    }

    @Test func theDocumentationIsFound() {
        let root = FixturePaths.packageRoot.resolvingSymlinksInPath().path
        let found = MarkdownLinkCheck.documents(under: FixturePaths.packageRoot).map {
            String($0.path.dropFirst(root.count + 1))
        }
        for document in [
            "README.md", "docs/README.md", "docs/command-line.md", "docs/contracts.md", "docs/reports-and-ci.md",
            "docs/keeping-stubs-in-sync.md", "docs/swift-api.md", "docs/design.md", "bench/README.md",
            "bench/HISTORY.md", "Fuzz/README.md",
        ] {
            #expect(found.contains(document), "\(document) is not among the documents checked: \(found)")
        }
        #expect(!found.contains { $0.contains("/Fixtures/") }, "fixtures are report output, not documentation")
    }

    /// The version a reader depends on (`from: "0.3.0"`) and sees (`User-Agent: tether/0.3.0`) is the one
    /// `tether --version` prints; bench/HISTORY.md keeps the versions of its day.
    @Test func theVersionTheDocumentationNamesIsTethers() throws {
        let root = FixturePaths.packageRoot.resolvingSymlinksInPath().path
        var named: [String] = []
        for document in MarkdownLinkCheck.documents(under: FixturePaths.packageRoot)
        where document.lastPathComponent != "HISTORY.md" {
            let text = try String(contentsOf: document, encoding: .utf8)
            for marker in ["tether/", #"from: ""#] {
                for piece in text.components(separatedBy: marker).dropFirst() {
                    let version = String(piece.prefix { $0.isNumber || $0 == "." })
                    guard version.contains(".") else { continue }
                    named.append("\(document.path.dropFirst(root.count + 1)): \(marker)\(version)")
                    #expect(version == tetherVersion, "\(named.last!) is not \(tetherVersion)")
                }
            }
        }
        #expect(named.count >= 2, "the documentation names no version: \(named)")
    }

    @Test(arguments: [
        ("Contract files", "contract-files"),
        (#"What "holds" means"#, "what-holds-means"),
        ("tether learn: rules from traffic, for review", "tether-learn-rules-from-traffic-for-review"),
        ("Known drift, pending contracts, retries", "known-drift-pending-contracts-retries"),
        ("In CI: check on every run, record on a schedule", "in-ci-check-on-every-run-record-on-a-schedule"),
        ("`tether serve` and `--mock`", "tether-serve-and---mock"),
        ("The [Swift API](docs/swift-api.md)", "the-swift-api"),
        ("snake_case & Ünïcode 2.0", "snake_case--ünïcode-20"),
    ])
    func headingsGetGitHubsAnchors(heading: String, anchor: String) {
        #expect(MarkdownLinkCheck.anchor(ofHeading: heading) == anchor)
    }

    @Test func aRepeatedHeadingGetsANumberedAnchorAndHeadingsInCodeAreNone() {
        let text = """
            # Tether
            ## Usage
            ```yaml
            # .github/workflows/contracts.yml
            ```
            ### Usage ###
            """
        #expect(MarkdownLinkCheck.headingAnchors(in: text) == ["tether", "usage", "usage-1"])
    }

    @Test func brokenLinksAreReportedWithTheirPlace() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("docs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("docs"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let guide = """
            # Guide

            ## Contract files

            Back to the [README](../README.md#install), see [files](#contract-files) and [rules](#rules).
            """
        let readme = """
            # Tether

            ## Install

            Read [the guide](docs/guide.md#contract-files), [its rules](docs/guide.md#rule), [a lost page](docs/lost.md),
            [the site](https://example.com/missing.md), `[not a link](nowhere.md)` and [out](../elsewhere.md).

            ```
            [in code](docs/gone.md)
            ```
            """
        try guide.write(to: folder.appendingPathComponent("docs/guide.md"), atomically: true, encoding: .utf8)
        try readme.write(to: folder.appendingPathComponent("README.md"), atomically: true, encoding: .utf8)

        let documents = MarkdownLinkCheck.documents(under: folder)
        #expect(documents.map(\.lastPathComponent) == ["README.md", "guide.md"])
        #expect(
            MarkdownLinkCheck.problems(in: documents, root: folder) == [
                "README.md:5:61: link 'docs/guide.md#rule' names no heading of docs/guide.md: '#rule' is not among "
                    + "its anchors; fix the anchor or the heading",
                "README.md:5:96: link 'docs/lost.md' names docs/lost.md, which does not exist; fix the path or add "
                    + "the file",
                "README.md:6:82: link '../elsewhere.md' leaves the repository; link to a file inside it",
                "docs/guide.md:5:86: link '#rules' names no heading of docs/guide.md: '#rules' is not among its "
                    + "anchors; fix the anchor or the heading",
            ])
    }
}
