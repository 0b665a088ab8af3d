import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// `verify --shard K/N` and `tether merge-reports` through the built binary, against one `tether mock` of the
/// real-world GitHub recordings (so every run's URLs agree): the merged report of N shards holds what the unsharded
/// run's holds, for N = 1…5, with shards that have no targets.
@Suite(.serialized) struct MergeReportsTests {
    static let manifest = FixturePaths.realWorld("github.json")

    /// A suite's content, order-free: its counts, properties, each test case (attributes but `time`, and its
    /// children), and its notes. Only times, the timestamp and the order of cases may differ between a whole run and
    /// the merge of its shards.
    static func content(_ path: String) throws -> [String: String] {
        let document = try JUnitDocument.read(path)
        var suites: [String: String] = [:]
        for suite in document.suites {
            let attributes = ["name", "tests", "failures", "errors", "skipped", "hostname", "package"].map {
                "\($0)=\(suite.element.attribute($0) ?? "")"
            }
            let properties = suite.element.elements.filter { $0.name == "properties" }.flatMap(\.elements).map {
                "\($0.attribute("name") ?? "")=\($0.attribute("value") ?? "")"
            }
            let cases = suite.cases.map(Self.canonical).sorted()
            let notes = suite.element.elements.filter { $0.name == "system-out" }.flatMap {
                $0.text.split(separator: "\n").map(String.init)
            }.sorted()
            suites[suite.name] = (attributes + properties + cases + notes).joined(separator: "\n")
        }
        return suites
    }

    static func canonical(_ element: XMLElementNode) -> String {
        let attributes = element.attributes.filter { $0.name != "time" }.map { "\($0.name)=\($0.value)" }
        let children = element.children.map { child in
            switch child {
            case .element(let inner): canonical(inner)
            case .text(let text): text
            }
        }
        return "<\(element.name) \(attributes.joined(separator: " "))>\(children.joined())</\(element.name)>"
    }

    /// A `--json` report's content, order-free: each line without `index`, `duration` and `startedAt`.
    static func jsonContent(_ path: String) throws -> [String] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            guard case .object(let members) = try JSONValue.parse(Data(line.utf8)) else { return "" }
            let kept = members.filter { !["index", "duration", "startedAt"].contains($0.key) }
            return String(decoding: JSONValue.object(kept).serialized(), as: UTF8.self)
        }.sorted()
    }

    @Test func theMergeOfNShardsHoldsTheWholeRun() throws {
        let mock = try RunningTether(["mock", FixturePaths.realWorld("github.har")])
        try #require(mock.waitForOutput("\n", within: 10), "tether mock printed nothing within 10 s")
        let match = try #require(mock.stdout.firstMatch(of: /on (http:\/\/127\.0\.0\.1:\d+)/), "\(mock.stdout)")
        let baseURL = String(match.1)
        let folder = NSTemporaryDirectory() + "tether-shards-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }

        for filter in [[], ["--filter", "user*"]] {  // 15 targets; 3 (so that shards 4 and 5 of 5 have none)
            let whole = try TetherBinary.run(
                ["verify", Self.manifest, "--base-url", baseURL, "--junit", folder + "/whole.xml"]
                    + ["--json", folder + "/whole.jsonl"] + filter)
            let wholeContent = try Self.content(folder + "/whole.xml")
            let targets = try JUnitDocument.read(folder + "/whole.xml").suites.flatMap(\.cases).count
            for count in 1...5 {
                var reports: [String] = []
                var jsonReports: [String] = []
                var sizes: [Int] = []
                for index in 1...count {
                    let report = folder + "/shard-\(index)-of-\(count).xml"
                    let shard = try TetherBinary.run(
                        [
                            "verify", Self.manifest, "--base-url", baseURL, "--shard", "\(index)/\(count)", "--junit",
                            report, "--json", report + ".jsonl",
                        ]
                            + filter)
                    jsonReports.append(report + ".jsonl")
                    let cases = try JUnitDocument.read(report).suites.flatMap(\.cases).count
                    sizes.append(cases)
                    #expect(shard.stdout.hasPrefix("shard \(index)/\(count): \(cases) of \(targets) targets"))
                    if cases == 0 { #expect(shard.exitCode == 0, "an empty shard passes: \(shard.stdout)") }
                    reports.append(report)
                }
                #expect(sizes.reduce(0, +) == targets && (sizes.max() ?? 0) - (sizes.min() ?? 0) <= 1)
                let merged = folder + "/merged.xml"
                let merge = try TetherBinary.run(["merge-reports"] + reports + ["-o", merged])
                #expect(merge.exitCode == whole.exitCode, "\(count) shards: \(merge.stdout)\(merge.stderr)")
                #expect(try Self.content(merged) == wholeContent, "\(count) shards \(filter)")
                let mergedJSON = folder + "/merged.jsonl"
                let jsonMerge = try TetherBinary.run(["merge-reports"] + jsonReports + ["-o", mergedJSON])
                #expect(jsonMerge.exitCode == whole.exitCode, "\(jsonMerge.stdout)\(jsonMerge.stderr)")
                #expect(try Self.jsonContent(mergedJSON) == Self.jsonContent(folder + "/whole.jsonl"))
                let validation = try JUnitValidator.validate(
                    String(decoding: FileManager.default.contents(atPath: merged) ?? Data(), as: UTF8.self))
                #expect(validation.isValid, "\(validation)")
            }
        }
        kill(mock.process.processIdentifier, SIGINT)
        #expect(mock.waitForExit(within: 10) == 130)
    }

    @Test func timingsFromAnEarlierReportBalanceByTimeAndOverlapsAreRefused() throws {
        let folder = NSTemporaryDirectory() + "tether-timings-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let timings = folder + "/timings.xml"
        // An earlier report in which userRepositories took 30 s and every other target 0.1 s.
        let whole = try TetherBinary.run(
            ["verify", Self.manifest, "--mock", FixturePaths.realWorld("github.har"), "--junit", timings])
        let xml = try String(contentsOfFile: timings, encoding: .utf8)
        let slow = xml.replacing(
            /name="userRepositories" time="[0-9.]+"/, with: #"name="userRepositories" time="30.000""#
        )
        .replacing(/time="0\.0\d\d"/, with: #"time="0.100""#)
        try Data(slow.utf8).write(to: URL(fileURLWithPath: timings))
        let first = try TetherBinary.run(
            [
                "verify", Self.manifest, "--mock", FixturePaths.realWorld("github.har"), "--shard", "1/2", "--timings",
                timings,
                "--junit", folder + "/a.xml",
            ])
        #expect(first.stdout.hasPrefix("shard 1/2: "), "\(first.stdout)")
        #expect(first.stdout.contains("balanced by time"))
        let second = try TetherBinary.run(
            [
                "verify", Self.manifest, "--mock", FixturePaths.realWorld("github.har"), "--shard", "2/2", "--timings",
                timings,
                "--junit", folder + "/b.xml",
            ])
        let firstCases = try JUnitDocument.read(folder + "/a.xml").suites.flatMap(\.cases)
        let secondCases = try JUnitDocument.read(folder + "/b.xml").suites.flatMap(\.cases)
        // The slow target is alone in its shard; the other shard has the 14 others.
        let sizes = [firstCases.count, secondCases.count].sorted()
        #expect(sizes == [1, 14], "\(first.stdout)\n\(second.stdout)")
        #expect((firstCases + secondCases).count == 15 && whole.exitCode == 1)

        let overlap = try TetherBinary.run([
            "merge-reports", folder + "/a.xml", folder + "/a.xml", "-o", folder + "/m.xml",
        ])
        #expect(overlap.exitCode == 2)
        #expect(overlap.stderr.contains("is also in \(folder)/a.xml: the shards overlap"), "\(overlap.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/m.xml"))

        let mixed = try TetherBinary.run([
            "merge-reports", folder + "/a.xml", FixturePaths.fixture("record/live.json"), "-o", folder + "/m.xml",
        ])
        #expect(mixed.exitCode == 2)
        #expect(mixed.stderr.contains("merge the JUnit files and the --json files separately"), "\(mixed.stderr)")
        let notJUnit = try TetherBinary.run([
            "merge-reports", FixturePaths.realWorld("github.json"), "-o", folder + "/m.xml",
        ])
        #expect(notJUnit.exitCode == 2)
        #expect(
            notJUnit.stderr.contains("github.json:1: not a JSON line (a --json report holds one JSON object per line)"),
            "\(notJUnit.stderr)")

        // A shard's report that is missing, or cut short, names itself, where, and what to do.
        let missing = try TetherBinary.run([
            "merge-reports", folder + "/a.xml", folder + "/none.xml", "-o", folder + "/m.xml",
        ])
        #expect(missing.exitCode == 2)
        #expect(
            missing.stderr.contains("\(folder)/none.xml: no such file: give the report each shard wrote"),
            "\(missing.stderr)")
        let report = try String(contentsOfFile: folder + "/a.xml", encoding: .utf8)
        try String(report.prefix(report.count / 2)).write(
            toFile: folder + "/cut.xml", atomically: true, encoding: .utf8)
        let cut = try TetherBinary.run([
            "merge-reports", folder + "/a.xml", folder + "/cut.xml", "-o", folder + "/m.xml",
        ])
        #expect(cut.exitCode == 2)
        #expect(cut.stderr.contains("\(folder)/cut.xml:"), "\(cut.stderr)")
        #expect(cut.stderr.contains(": not well-formed XML: "), "\(cut.stderr)")
        #expect(cut.stderr.contains("cannot be read: write it again"), "\(cut.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/m.xml"))

        // The merged report never replaces a shard's, nor takes a name that says the other kind.
        let original = try Data(contentsOf: URL(fileURLWithPath: folder + "/a.xml"))
        let ontoInput = try TetherBinary.run(["merge-reports", folder + "/a.xml", "-o", folder + "/./a.xml"])
        #expect(ontoInput.exitCode == 2)
        #expect(ontoInput.stderr.contains("one of the reports to merge: write the merged report elsewhere"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/a.xml")) == original)
        let misnamed = try TetherBinary.run(["merge-reports", folder + "/a.xml", "-o", folder + "/merged.json"])
        #expect(misnamed.exitCode == 2)
        #expect(misnamed.stderr.contains("the reports are JUnit XML, which that name does not say: name it .xml"))
        #expect(!FileManager.default.fileExists(atPath: folder + "/merged.json"))

        let badShard = try TetherBinary.run(["verify", Self.manifest, "--shard", "3/2"])
        #expect(badShard.exitCode == 2)
        #expect(badShard.stderr.contains("--shard: '3/2' is not a shard such as 1/4"))
    }
}
