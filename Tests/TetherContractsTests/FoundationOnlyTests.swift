import Foundation
import Testing

@testable import TetherCore

/// `TetherContracts` (with `TetherCore` below it) is what an iOS test target links: nothing but Swift sources and
/// Foundation may be in its dependency closure. Read from the package as SwiftPM itself describes it (`swift package dump-package`).
@Suite struct FoundationOnlyTests {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    private struct Manifest: Decodable {
        struct Target: Decodable {
            var name: String
            var type: String
            var path: String?
            var dependencies: [[String: [JSONAny]]]
        }
        var targets: [Target]
    }

    /// Any JSON value, for the parts of the manifest this test does not read.
    private struct JSONAny: Decodable {
        var text: String?
        init(from decoder: any Decoder) throws {
            text = try? decoder.singleValueContainer().decode(String.self)
        }
    }

    private func dumpPackage() throws -> Manifest {
        // A scratch path of its own: the test run holds the package's .build. SwiftPM puts its lock files in TMPDIR:
        // there too, so that removing the folder leaves nothing behind.
        let folder = NSTemporaryDirectory() + "tether-dump-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let run = try ChildProcess.run(
            "/usr/bin/env",
            [
                "swift", "package", "--package-path", Self.root.path, "--scratch-path", folder + "/scratch",
                "dump-package",
            ],
            environment: ProcessInfo.processInfo.environment.merging(["TMPDIR": folder]) { _, new in new })
        #expect(run.status == 0, "\(run.stderrText)")
        return try JSONDecoder().decode(Manifest.self, from: run.stdout)
    }

    /// The targets `name` depends on, itself first, as the manifest names them.
    private func closure(of name: String, in byName: [String: Manifest.Target]) throws -> [String] {
        var closure: [String] = []
        var queue = [name]
        while let name = queue.popLast() {
            guard !closure.contains(name) else { continue }
            closure.append(name)
            let target = try #require(byName[name], "no target \(name)")
            for dependency in target.dependencies {
                for (_, values) in dependency { if let first = values.first?.text { queue.append(first) } }
            }
        }
        return closure
    }

    @Test func theClosureHoldsNoCAndNoCxxTarget() throws {
        let manifest = try dumpPackage()
        let byName = Dictionary(manifest.targets.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        // The Moya-shaped types above the model (TetherCore), and nothing else.
        let closure = try closure(of: "TetherContracts", in: byName)
        #expect(closure == ["TetherContracts", "TetherCore"], "TetherContracts depends on \(closure.dropFirst())")
        for name in closure {
            #expect(byName[name]?.type == "regular")
            // And each target holds Swift sources only: no C, C++ or headers a build would compile.
            let folder = Self.root.appendingPathComponent("Sources/" + name)
            let files = FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String] ?? []
            let other = files.filter { file in
                !folder.appendingPathComponent(file).path.fileKind.isFolder
                    && !file.hasSuffix(".swift")
            }
            #expect(other.isEmpty, "\(name): \(other)")
            #expect(files.contains { $0.hasSuffix(".swift") })
        }
        // The engine depends on the model: one model for both.
        #expect(
            byName["TetherEngine"]?.dependencies.contains { $0.values.contains { $0.first?.text == "TetherCore" } }
                == true)
    }

    /// The command line links the model and the engine, not the Moya-shaped types or the Swift API: their
    /// `HTTPURLResponse` would bring FoundationNetworking into every run's start-up.
    @Test func theCommandLineLinksNeitherTheMoyaTypesNorTheSwiftAPI() throws {
        let manifest = try dumpPackage()
        let byName = Dictionary(manifest.targets.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let closure = try closure(of: "TetherCLI", in: byName)
        #expect(closure.contains("TetherEngine") && closure.contains("TetherCore"), "\(closure)")
        #expect(!closure.contains("TetherContracts") && !closure.contains("TetherKit"), "\(closure)")
    }
}
