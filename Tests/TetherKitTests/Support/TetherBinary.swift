import Foundation
import Testing

@testable import TetherContracts
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
    static let path: String = {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
            "tether"
        ).path
        if FileManager.default.isExecutableFile(atPath: beside) { return beside }
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { root.deleteLastPathComponent() }
        return root.appendingPathComponent(".build/debug/tether").path
    }()

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

        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = all
        var env = environment
        env["PATH"] = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        process.environment = env
        let outPath = scratch + "/stdout"
        let errPath = scratch + "/stderr"
        FileManager.default.createFile(atPath: outPath, contents: nil)
        FileManager.default.createFile(atPath: errPath, contents: nil)
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let start = Date()
        while process.isRunning && Date().timeIntervalSince(start) < deadline { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)  // SIGTERM may be blocked in a child of a test thread
            process.waitUntilExit()
            Issue.record("tether \(all.joined(separator: " ")) did not finish within \(deadline) s")
        }
        process.waitUntilExit()
        try out.close()
        try err.close()
        let junit = FileManager.default.contents(atPath: junitPath).map { String(decoding: $0, as: UTF8.self) }
        return TetherRun(
            exitCode: process.terminationStatus,
            stdout: String(decoding: FileManager.default.contents(atPath: outPath) ?? Data(), as: UTF8.self),
            stderr: String(decoding: FileManager.default.contents(atPath: errPath) ?? Data(), as: UTF8.self),
            junit: junit, junitPath: junitPath)
    }
}
