import Foundation

/// The built binary running in the background with its standard output a pipe (as in a CI log), read while it runs.
final class RunningTether {
    let process: ChildProcess
    let junitPath: String
    private let scratch: String
    private let output = Bytes()
    private let errors = Bytes()
    private let outputEnded = DispatchSemaphore(value: 0)
    private let errorsEnded = DispatchSemaphore(value: 0)

    /// Starts `tether ARGUMENTS` (plus `--junit` into a fresh folder for `verify`).
    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        scratch = NSTemporaryDirectory() + "tether-running-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        junitPath = scratch + "/reports/junit.xml"
        var env = environment
        env["PATH"] = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        process = try ChildProcess(
            TetherBinary.path, arguments + (arguments.first == "verify" ? ["--junit", junitPath] : []),
            environment: env, stdout: .pipe, stderr: .pipe)
        if let out = process.pipes[1] { Self.drain(out, into: output, then: outputEnded) }
        if let err = process.pipes[2] { Self.drain(err, into: errors, then: errorsEnded) }
    }

    deinit {
        process.kill()
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// What the process wrote to standard output so far.
    var stdout: String { output.text }
    /// What it wrote to standard error so far.
    var stderr: String { errors.text }
    /// The JUnit report it wrote, if any.
    var junit: String? { FileManager.default.contents(atPath: junitPath).map { String(decoding: $0, as: UTF8.self) } }

    /// Waits until standard output holds `text`; false if it does not within `seconds`.
    func waitForOutput(_ text: String, within seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if stdout.contains(text) { return true }
            usleep(10_000)
        }
        return stdout.contains(text)
    }

    /// Waits for the process to end (and its output to be read); its exit status, or `nil` if it still runs after
    /// `seconds` (then it is killed).
    func waitForExit(within seconds: Double) -> Int32? {
        guard let ended = process.wait(within: seconds) else {
            process.kill()
            return nil
        }
        // Both pipes to their end: a loaded machine may schedule the reading threads after the exit.
        _ = outputEnded.wait(timeout: .now() + 5)
        _ = errorsEnded.wait(timeout: .now() + 5)
        return ended.status
    }

    private static func drain(_ handle: FileHandle, into buffer: Bytes, then ended: DispatchSemaphore) {
        Thread.detachNewThread {
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
            }
            ended.signal()
        }
    }

    /// Bytes that a reading thread appends and the test reads.
    private final class Bytes: @unchecked Sendable {
        private let lock = NSLock()
        private var data = Data()

        func append(_ chunk: Data) { lock.withLock { data.append(chunk) } }
        var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
    }
}

/// Whether `condition` holds within `seconds` (polled every 10 ms).
func eventually(within seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}
