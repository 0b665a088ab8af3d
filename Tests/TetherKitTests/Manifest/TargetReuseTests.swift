import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// `--ref`: a target that several versions of a manifest hold alike is built once (`TargetReuse`). What each version
/// loads must be exactly what it loads on its own: the same contracts, at its own file, lines and elements.
@Suite struct TargetReuseTests {
    /// One version of a manifest of 600 targets (past the loader's split between threads), one per line.
    /// - Parameters:
    ///   - description: The manifest's description, which no contract depends on.
    ///   - blankLines: Lines before the targets (every target's line moves).
    ///   - header: The service's `X-App` header, which every target sends.
    ///   - front: A target before the others (every element and line after it moves).
    ///   - changed: The targets whose stub says `id` is a string.
    ///   - indented: The targets written two columns further right.
    ///   - broken: The targets whose method is a number (a contract error).
    static func manifest(
        description: String = "the shop", blankLines: Int = 0, header: String = "1", front: Bool = false,
        changed: Set<Int> = [],
        indented: Set<Int> = [], broken: Set<Int> = []
    ) -> String {
        var targets: [String] = []
        if front { targets.append(#"{"name": "first", "path": "/first", "sampleData": {"json": {"ok": true}}}"#) }
        for index in 0..<600 {
            let id = changed.contains(index) ? #""\#(index)""# : "\(index)"
            var target = #"{"name": "t\#(index)", "path": "/t/\#(index)", "#
            switch index {
            case 5:  // steps: built at every version
                target += #""steps": {"before": [{"name": "make", "method": "POST", "path": "/make"}]}, "#
                target += #""sampleData": {"json": {"id": \#(id)}}}"#
            case 7:  // a sample file, whose bytes a version may change: built at every version
                target += #""sampleData": {"file": "t7.json"}}"#
            case 9:  // no stub at all
                target += #""method": "DELETE", "sampleResponse": {"networkResponse": {"statusCode": 204}}}"#
            default:
                if broken.contains(index) { target += #""method": 5, "# }
                target += #""headers": {"X-Index": "\#(index)"}, "#
                target += #""sampleData": {"json": {"id": \#(id), "label": "é ✓ \#(index)", "tags": ["a"]}}}"#
            }
            targets.append((indented.contains(index) ? "    " : "  ") + target)
        }
        return """
            {"service": "Shop", "baseURL": "https://shop.test", "description": "\(description)",\(String(repeating: "\n", count: blankLines))
             "headers": {"X-App": "\(header)"},
             "targets": [
            \(targets.joined(separator: ",\n"))
             ]}
            """
    }

    @Test func aVersionLoadsWhatItLoadsAloneAndTakesWhatEarlierVersionsHoldAlike() throws {
        let versions: [(manifest: String, sample: String, reused: Int)] = [
            (Self.manifest(), #"{"id": 7}"#, 0),
            // Another description, two more lines before the targets, one stub changed, the sample file changed: all but t5, t7 and t10.
            (Self.manifest(description: "the shop, version 2", blankLines: 2, changed: [10]), #"{"id": "7"}"#, 597),
            // A target in front (every element moves by one), t20 indented: all but first, t5, t7 and t20; t10 as the
            // version before has it.
            (Self.manifest(front: true, changed: [10], indented: [20]), #"{"id": 7}"#, 597),
            // Another service header: every target sends it, so every target is built.
            (Self.manifest(header: "2", changed: [10]), #"{"id": 7}"#, 0),
            // As the first version again: all but t5 and t7.
            (Self.manifest(), #"{"id": 7}"#, 598),
            // Two broken targets: the version is read again whole, its errors those of a version read alone.
            (Self.manifest(broken: [3, 400]), #"{"id": 7}"#, 596),
            // Not JSON: the error of a version read alone.
            (Self.manifest().replacingOccurrences(of: #""t300", "#, with: #""t300",, "#), #"{"id": 7}"#, 0),
        ]
        var files: [String: String] = [:]
        for (number, version) in versions.enumerated() {
            files["\(number)/contracts/shop.json"] = version.manifest
            files["\(number)/contracts/t7.json"] = version.sample
        }
        let folder = try ContractFolder(files)
        let reuse = TargetReuse()
        var reusedBefore = 0
        for number in versions.indices {
            let root = folder.path + "/\(number)/"
            let aloneOutcome = Result { try ManifestLoader(environment: [:]).load(paths: [root + "contracts"]) }
            var loader = ManifestLoader(environment: [:])
            loader.reuse = TargetReuse.Scope(reuse, root: root)
            // Every other version after the first is read as text ahead of its load (as `--ref` does while the
            // first version is read), and the load starts from that: what it loads must not change.
            let readsAhead = number % 2 == 1
            if readsAhead {
                loader.readAhead(paths: [root + "contracts"])
                #expect(loader.reuse?.readAhead.isEmpty == false, "version \(number)")
            }
            let readOutcome = Result { try loader.load(paths: [root + "contracts"]) }
            #expect(loader.reuse?.readAhead.isEmpty == true, "version \(number): what was read ahead is taken")
            #expect(reuse.reusedCount - reusedBefore == versions[number].reused, "version \(number)")
            reusedBefore = reuse.reusedCount
            guard case .success(let alone) = aloneOutcome, case .success(let read) = readOutcome else {
                // The same errors, at the same places.
                let (alone, read) = ("\(aloneOutcome)", "\(readOutcome)")
                #expect(read == alone)
                #expect(alone.contains(number == 5 ? "targets[400].method" : "not valid JSON"), "\(alone)")
                continue
            }
            #expect(read.count == alone.count)
            for (reused, built) in zip(read, alone) where reused != built {
                Issue.record("version \(number), \(built.name): \(reused) is not \(built)")
            }
            // Where the moved places point: each version's own file, line and element.
            let t100 = try #require(read.first { $0.name == "t100" })
            #expect(t100.source == root + "contracts/shop.json")
            #expect(t100.stubSource?.manifest == root + "contracts/shop.json")
            #expect(t100.stubSource?.location == "targets[\(number == 2 ? 101 : 100)].sampleData.json")
            #expect(t100.declaration?.line == (number == 1 ? 106 : 104) + (number == 2 ? 1 : 0))
        }
    }
}
