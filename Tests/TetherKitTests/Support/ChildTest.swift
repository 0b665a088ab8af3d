import Foundation
import Testing

extension ChildProcess {
    /// Runs the test `name` of this test executable again, in a child process, and records an issue unless it ran
    /// there and passed: for what must start in a fresh process (nothing loaded yet, other thread stacks).
    /// - Parameters:
    ///   - name: The test function's name (its `--filter`).
    ///   - environment: What enables the test in the child, beside PATH, HOME and TMPDIR (not the variables
    ///     `swift test` gives its own test process, its event stream and the like, which the child would take as
    ///     meant for it).
    ///   - deadline: Seconds before the child is killed.
    static func runTest(_ name: String, environment: [String: String], deadline: Double = 300) async throws {
        let plain = ProcessInfo.processInfo.environment.filter { ["PATH", "HOME", "TMPDIR"].contains($0.key) }
        let run = try await offPool {  // (minutes, maybe: off the cooperative pool)
            try ChildProcess.run(
                CommandLine.arguments[0], ["--testing-library", "swift-testing", "--filter", name],
                environment: environment.merging(plain) { own, _ in own }, deadline: deadline)
        }
        let output = run.stdoutText + run.stderrText
        #expect(run.status == 0, "\(output.suffix(6000))")
        #expect(output.contains("\(name)() passed"), "the child ran no such test: \(output.suffix(3000))")
    }
}
