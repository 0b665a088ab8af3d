import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// What one run of the built `tether` binary did.
struct TetherRun {
    var exitCode: Int32
    var stdout: String
    var stderr: String
    /// The JUnit report it wrote, if any.
    var junit: String?
    var junitPath: String
}

/// Runs the `tether` executable that `swift build` put beside the test bundle, the way a user or CI runs it.
enum TetherBinary {
    static let path = locate(
        argument0: CommandLine.arguments[0], moduleBundle: Bundle.module.bundleURL,
        sourceRoot: FixturePaths.packageRoot, isExecutable: FileManager.default.isExecutableFile(atPath:))

    /// Where the built `tether` is: in the products folder, which holds this test target's resource bundle
    /// (`Bundle.module`: `Tether_TetherKitTests.resources` on Linux, `.bundle` on macOS, in `.build/<triple>/debug` or
    /// wherever `--scratch-path` and `-c` put the build), or a folder above it (Xcode puts the resource bundle inside
    /// the test bundle). Not from `arguments[0]` alone: on Linux that is the test executable in the products folder,
    /// but on macOS it is `xctest` or SwiftPM's testing helper in the toolchain. Then beside `arguments[0]` (Linux),
    /// then `.build/debug/tether` in the package.
    static func locate(
        argument0: String, moduleBundle: URL?, sourceRoot: URL, isExecutable: (String) -> Bool
    ) -> String {
        var folders: [URL] = []
        if var folder = moduleBundle?.deletingLastPathComponent() {
            for _ in 0..<4 {
                folders.append(folder)
                folder.deleteLastPathComponent()
            }
        }
        folders.append(URL(fileURLWithPath: argument0).deletingLastPathComponent())
        let candidates = folders.map { $0.appendingPathComponent("tether").path }
        return candidates.first(where: isExecutable)
            ?? sourceRoot.appendingPathComponent(".build/debug/tether").path
    }

    /// - Parameters:
    ///   - arguments: After `tether`; `--junit` is added (a fresh temporary file) unless given.
    ///   - environment: The whole environment of the process (nothing is inherited but PATH).
    ///   - deadline: Seconds before the process is killed and the test fails.
    static func run(_ arguments: [String], environment: [String: String] = [:], deadline: Double = 60) throws
        -> TetherRun
    {
        let scratch = NSTemporaryDirectory() + "tether-e2e-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let junitPath = scratch + "/reports/junit.xml"
        var all = arguments
        if arguments.first == "verify" && !arguments.contains(where: { $0.hasPrefix("--junit") }) {
            // Before a `--`, after which every argument is a path.
            all.insert(contentsOf: ["--junit", junitPath], at: all.firstIndex(of: "--") ?? all.endIndex)
        }

        var env = environment
        env["PATH"] = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let outPath = scratch + "/stdout"
        let errPath = scratch + "/stderr"
        let process = try ChildProcess(path, all, environment: env, stdout: .file(outPath), stderr: .file(errPath))
        let ended = process.finish(within: deadline)
        let junit = FileManager.default.contents(atPath: junitPath).map { String(decoding: $0, as: UTF8.self) }
        return TetherRun(
            exitCode: ended?.status ?? -1,
            stdout: String(decoding: FileManager.default.contents(atPath: outPath) ?? Data(), as: UTF8.self),
            stderr: String(decoding: FileManager.default.contents(atPath: errPath) ?? Data(), as: UTF8.self),
            junit: junit, junitPath: junitPath)
    }
}
