import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The helpers that start processes (`ChildProcess`, and `PythonServer`, `NginxServer`, `RunningTether`, curl on it)
/// never wait for ever and always reap what they started.
@Suite struct ChildProcessTests {
    /// Prints a port (as the test servers do), then, given an argument, leaves a child of its own that keeps every
    /// inherited descriptor for 30 s, as a browser's helpers, a shell's background job or a daemon would.
    private static let script = """
        import os, socket, sys, time
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        server.listen()
        print(server.getsockname()[1], flush=True)
        if len(sys.argv) > 1 and os.fork() == 0:
            time.sleep(30)
            os._exit(0)
        time.sleep(60)
        """

    /// Whether `pid` names no process any more, not even a zombie (`kill(pid, 0)` fails with ESRCH).
    private static func isGone(_ pid: pid_t) -> Bool { kill(pid, 0) == -1 && errno == ESRCH }

    /// `pid`'s state as /proc tells it (`Z`: a zombie), for messages; "" where there is no /proc (Darwin).
    private static func state(of pid: pid_t) -> String {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return "" }
        let state = stat[stat.index(after: close)...].split(separator: " ").first.map(String.init) ?? "?"
        return state == "Z" ? " (state Z: a zombie, not reaped)" : " (state \(state))"
    }

    /// Many servers started and killed at once, from several threads, each stopped from a thread other than the one
    /// that started it (as a test's `await` moves it between the pool's threads), half of them with a child still
    /// holding their descriptors: every `stop()` returns within seconds, and neither the server nor its child is left,
    /// not even as a zombie. (With `Process`, such a child kept swift-corelibs-foundation from ever seeing the
    /// server's end: `waitUntilExit` waited as long as the child lived, the server a zombie meanwhile.)
    @Test func serversStartedAndKilledInParallelAreReapedAtOnce() async throws {
        let workers = 6
        let cycles = 8
        let problems = Locked<[String]>([])
        let slowest = Locked(0.0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    try await offPool {
                        for cycle in 0..<cycles {
                            let holdsDescriptors = (worker + cycle) % 2 == 0
                            let server = try PythonServer(
                                script: Self.script, name: "stress server",
                                arguments: holdsDescriptors ? ["fork"] : [])
                            let pid = server.processIdentifier
                            let stopped = DispatchSemaphore(value: 0)
                            let started = Date()
                            Thread.detachNewThread {
                                server.stop()
                                stopped.signal()
                            }
                            guard stopped.wait(timeout: .now() + 10) == .success else {
                                problems.withLock {
                                    $0.append(
                                        "stop() of pid \(pid)\(Self.state(of: pid)) did not return within 10 s")
                                }
                                continue
                            }
                            let seconds = Date().timeIntervalSince(started)
                            slowest.withLock { $0 = max($0, seconds) }
                            if !Self.isGone(pid) {
                                problems.withLock { $0.append("pid \(pid)\(Self.state(of: pid)) is left after stop()") }
                            }
                            if !eventually(within: 5, { kill(-pid, 0) == -1 && errno == ESRCH }) {
                                problems.withLock { $0.append("pid \(pid)'s child outlived stop()") }
                            }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(problems.withLock { $0 }.isEmpty, "\(problems.withLock { $0 }.joined(separator: "\n"))")
        #expect(slowest.withLock { $0 } < 10)
    }

    @Test func aToolThatOutlivesItsDeadlineIsKilledAndTheTestToldSo() throws {
        let started = Date()
        var run: ToolRun?
        try withKnownIssue {
            run = try ChildProcess.run("/bin/sh", ["-c", "echo begun; exec sleep 30"], deadline: 1)
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("did not finish within 1.0 s: killed") }
        }
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(run?.status == -1)
        #expect(run?.stdoutText == "begun\n")
    }

    @Test func exitCodesSignalsInputAndOutputComeBack() throws {
        let run = try ChildProcess.run("/bin/sh", ["-c", "cat; echo err >&2; exit 3"], input: Data("in\n".utf8))
        #expect(run.status == 3)
        #expect(run.stdoutText == "in\n")
        #expect(run.stderrText == "err\n")
        let child = try ChildProcess("/bin/sleep", ["30"])
        child.send(SIGTERM)  // not blocked in the child, whatever this thread blocks
        #expect(child.wait(within: 10) == ChildProcess.Termination(status: SIGTERM, wasSignaled: true))
        #expect(Self.isGone(child.processIdentifier))
    }

    /// The child inherits no descriptor but 0, 1 and 2: not the parent's pipes to other children (whose end of file
    /// would wait for it), nor anything else.
    @Test func theChildInheritsOnlyItsStandardDescriptors() throws {
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)  // not close-on-exec
        defer { for end in ends { close(end) } }
        let run = try ChildProcess.run(
            "/bin/sh", ["-c", "for fd in \(ends[0]) \(ends[1]); do (: <&$fd) 2>/dev/null && echo open $fd; done; true"])
        #expect(run.status == 0)
        #expect(run.stdoutText == "", "\(run.stdoutText)")
    }

    /// Foundation's `Process` is what hung: every test goes through `ChildProcess`.
    @Test func noTestStartsAProcessThroughFoundation() throws {
        var tests = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { tests.deleteLastPathComponent() }
        let walk = FileManager.default.enumerator(at: tests, includingPropertiesForKeys: nil)
        var found: [String] = []
        while let url = walk?.nextObject() as? URL {
            guard url.pathExtension == "swift", url.lastPathComponent != "ChildProcessTests.swift" else { continue }
            let text = try String(contentsOf: url, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.firstRange(of: "//").map { line[..<$0.lowerBound] } ?? line[...]
                if code.contains("Process()") && code.contains(/(^|[^A-Za-z])Process\(\)/)
                    || code.contains(".waitUntilExit(")
                {
                    found.append("\(url.lastPathComponent):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        #expect(found.isEmpty, "start processes with ChildProcess:\n\(found.joined(separator: "\n"))")
    }
}
