import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// A large manifest is mapped, and its pages handed back to the page cache as the loader and the run read them
/// (`MappedFiles`): what it loads, and the errors it gives, must be exactly what the copied manifest gives.
@Suite(.serialized) struct MappedManifestTests {
    /// A file's bytes are what Foundation reads, whether they are mapped (from the threshold on) or read from the
    /// descriptor already open (below it), for an empty file, a small one, one at the threshold's edges, a folder and
    /// a missing file.
    @Test func aFilesBytesAreFoundationsMappedOrRead() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tether-bytes-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var paths = [folder.path, folder.appendingPathComponent("none").path]
        for (name, count) in [
            ("empty", 0), ("one", 1), ("small", 100), ("edge", 4095), ("page", 4096), ("big", 70_000),
        ] {
            let file = folder.appendingPathComponent(name)
            try Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: file)
            paths.append(file.path)
        }
        for path in paths {
            for threshold in [1, 4096, 1 << 20] {
                let bytes = MappedFiles.contents(atPath: path, mappingFrom: threshold)
                #expect(bytes == FileManager.default.contents(atPath: path), "\(path) from \(threshold)")
            }
        }
    }

    /// A manifest of `count` targets with ~1 KB inline stubs (non-ASCII text among them), about `count` KB in all:
    /// past several of the reader's, the UTF-8 check's and the target builder's release points.
    static func manifest(targets count: Int, brokenLast: Bool = false) -> String {
        var text = #"{"service": "Big", "baseURL": "https://big.test", "targets": ["# + "\n"
        for index in 0..<count {
            let description =
                index % 3 == 0
                ? "null" : #""Dépôt n° \#(index) — ✓ 🚀 "# + String(repeating: "x", count: index % 50) + #"""#
            let last = brokenLast && index == count - 1
            text += (index == 0 ? "" : ",") + #"{"name": "t\#(index)", "path": "/r/\#(index)", "sampleData": {"json": "#
            text += #"{"id": \#(index), "full_name": "octocat/repo-\#(index)", "description": \#(description), "#
            text += #""owner": {"login": "octocat", "id": 583231, "avatar_url": "https://avatars.example/u/583231"}, "#
            text += #""topics": ["swift", "ios"], "score": 1.5, "private": false, "license": null, "#
            text +=
                #""clone_url": "https://github.example/octocat/repo-\#(index).git", "pushed_at": "2024-05-08T12:00:00Z", "#
            text += #""html_url": "https://github.example/octocat/repo-\#(index)", "size": \#(last ? "01" : "100"), "#
            text += #""padding": ""# + String(repeating: "p", count: 600) + #""}}}"# + "\n"
        }
        return text + "]}\n"
    }

    static func loader(mappingFrom threshold: Int) -> ManifestLoader {
        var loader = ManifestLoader(environment: [:])
        loader.mappingThreshold = threshold
        return loader
    }

    @Test func aMappedManifestLoadsTheContractsACopiedOneLoads() throws {
        let folder = try ContractFolder(["big.json": Self.manifest(targets: 24_000)])
        let size = try #require(FileManager.default.attributesOfItem(atPath: folder.file("big.json"))[.size] as? Int)
        #expect(size > 2 * MappedFiles.bytesBetweenReleases)  // the reader releases pages twice or more
        let copied = try Self.loader(mappingFrom: .max).load(paths: [folder.path])
        #expect(MappedFiles.mappedCount == 0)
        do {
            let mapped = try Self.loader(mappingFrom: 0).load(paths: [folder.path])
            #if canImport(Glibc)
                #expect(MappedFiles.mappedCount == 1)  // the stubs are slices of the mapping
            #endif
            #expect(mapped.count == 24_000)
            #expect(mapped == copied)
            // Read again after their pages went back to the page cache: the same text, the same places.
            MappedFiles.releaseReadPages()
            for index in [0, 1, 9_999, 23_999] {
                #expect(mapped[index].sampleData.jsonValue == copied[index].sampleData.jsonValue)
                #expect(mapped[index].stubSource == copied[index].stubSource)
            }
            #expect(mapped[23_999].stubSource?.line == 24_001)
        }
        #expect(MappedFiles.mappedCount == 0)  // unmapped with the last stub
    }

    @Test func aRunOfAMappedManifestGivesTheCopiedOnesResults() throws {
        // Every answer checked after the run has handed the pages back (every 2,048 results, and in the coverage
        // count): the same outcomes and findings. One target in seven drifts (its size a string), one in eleven 404s.
        let folder = try ContractFolder(["big.json": Self.manifest(targets: 9_000)])
        let transport = StubTransport { request in
            let index = Int(request.url.split(separator: "/").last ?? "") ?? 0
            let size = index % 7 == 0 ? #""100""# : "100"
            let body =
                #"{"id": \#(index), "full_name": "octocat/repo-\#(index)", "description": "d", "owner": {"login": "o", "id": 1, "avatar_url": "a"}, "topics": [], "score": 2, "private": true, "license": null, "clone_url": "c", "pushed_at": "p", "html_url": "h", "size": \#(size), "padding": ""}"#
            return .success(
                HTTPResponse(
                    statusCode: index % 11 == 0 ? 404 : 200, headers: [], body: Data(body.utf8), url: request.url))
        }
        func outcomes(mappingFrom threshold: Int) throws -> [String] {
            let contracts = try Self.loader(mappingFrom: threshold).load(paths: [folder.path])
            let report = ContractRunner(transport: transport, hostname: "test").run(contracts)
            return report.results.map { result in
                "\(result.contract.name) \(result.outcome) "
                    + result.findings.map(\.description).joined(separator: "; ")
            } + ["coverage \(BodyCoverage(contracts))"]
        }
        let copied = try outcomes(mappingFrom: .max)
        #expect(copied.count == 9_001)
        #expect(copied.filter { $0.contains("drifted") }.count == 9_000 / 7 + 1 + 9_000 / 11 - 9_000 / 77)
        #expect(try outcomes(mappingFrom: 0) == copied)
        #expect(MappedFiles.mappedCount == 0)
    }

    @Test func aMappedManifestsErrorsAreTheCopiedOnes() throws {
        // A number with a leading zero in the last stub: found after every release point, at the same line and column.
        let folder = try ContractFolder(["big.json": Self.manifest(targets: 12_000, brokenLast: true)])
        func error(mappingFrom threshold: Int) -> String {
            do {
                _ = try Self.loader(mappingFrom: threshold).load(paths: [folder.path])
                return "loaded"
            } catch {
                return error.errors.map { "\($0.file):\($0.line ?? 0):\($0.column ?? 0): \($0.message)" }
                    .joined(separator: "\n")
            }
        }
        let copied = error(mappingFrom: .max)
        #expect(copied.contains("big.json:12001:"))
        #expect(error(mappingFrom: 0) == copied)
        #expect(MappedFiles.mappedCount == 0)
    }

    @Test func releasedPagesReadBackAsTheFile() throws {
        // Every byte value, in an order that differs from page to page (a multiplicative hash of the offset).
        var bytes = Data(count: 3 << 20)
        bytes.withUnsafeMutableBytes { raw in
            for offset in raw.indices { raw[offset] = UInt8(truncatingIfNeeded: (offset &* 2_654_435_761) >> 13) }
        }
        let folder = try ContractFolder([:])
        try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
        let path = folder.file("random.bin")
        try bytes.write(to: URL(fileURLWithPath: path))
        #expect(MappedFiles.contents(atPath: path, mappingFrom: bytes.count + 1) == bytes)
        #expect(MappedFiles.mappedCount == 0)  // under the threshold: read
        do {
            let mapped = try #require(MappedFiles.contents(atPath: path, mappingFrom: 0))
            #if canImport(Glibc)
                #expect(MappedFiles.mappedCount == 1)
            #endif
            #expect(mapped == bytes)
            MappedFiles.releaseReadPages()
            #expect(mapped == bytes)
            #expect(mapped[(1 << 20)..<(2 << 20)] == bytes[(1 << 20)..<(2 << 20)])
        }
        #expect(MappedFiles.mappedCount == 0)
        #expect(MappedFiles.contents(atPath: folder.file("missing.bin"), mappingFrom: 0) == nil)
        #expect(
            MappedFiles.contents(atPath: folder.path, mappingFrom: 0)
                == FileManager.default.contents(atPath: folder.path))
    }
}
