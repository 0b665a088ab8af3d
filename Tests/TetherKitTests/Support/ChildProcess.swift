import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// (Tests/TetherContractsTests/Support/ChildProcess.swift is a symbolic link to this file.)

/// A process a test starts: spawned with `posix_spawn` and reaped with `waitpid` by this helper alone, never by
/// Foundation's `Process`, and never waited for without a deadline.
///
/// Why not `Process`: swift-corelibs-foundation (6.3, `Process.swift`) learns that a child ended when the socket it
/// hands the child (one end of a `socketpair`, not close-on-exec) reaches end of file, then reaps it. Any other process
/// that still holds that end (a grandchild, or a child another thread spawned at that moment, which its close-list
/// computed beforehand missed) delays that without bound: the child stays a zombie, `isRunning` stays true, and
/// `waitUntilExit()` polls its run loop for ever; on a thread other than the one that launched it (a cooperative
/// pool's thread after an `await`) that run loop has no source and the loop spins (one full `swift test` hung so, at
/// 96 % CPU, on a killed python3). Here the child closes every descriptor but 0, 1 and 2 as it starts
/// (`posix_spawn_file_actions_addclosefrom_np` on Linux, `POSIX_SPAWN_CLOEXEC_DEFAULT` on Darwin), leads a process
/// group of its own (so that `kill()` takes its children too), starts with no signal blocked, and `waitpid` on its own
/// pid is all that learns of its end: no reaper of Foundation's can race with it, since Foundation never knew of it.
final class ChildProcess: @unchecked Sendable {
    /// Where a standard descriptor of the child goes.
    enum Stream {
        /// /dev/null.
        case null
        /// A file, created or truncated for output, read for input.
        case file(String)
        /// A pipe; the parent's end is `pipes[descriptor]` (0, 1 or 2).
        case pipe
    }

    /// How the child ended.
    struct Termination: Equatable, Sendable {
        /// The exit code, or the number of the signal that ended it (as `Process.terminationStatus`).
        var status: Int32
        var wasSignaled: Bool
    }

    enum Failure: Error, CustomStringConvertible {
        case cannotStart(String, String)

        var description: String {
            switch self {
            case .cannotStart(let command, let reason): return "cannot start \(command): \(reason)"
            }
        }
    }

    /// The child's process id (also its process group's).
    let processIdentifier: pid_t
    /// `executable arguments…`, for messages.
    let commandLine: String
    /// The parent's end of each `.pipe` stream, by the child's descriptor (0: write to its input; 1, 2: read).
    let pipes: [Int32: FileHandle]
    private let lock = NSLock()
    private var ended: Termination?

    /// Starts `executable` (a path: no PATH search) with `arguments`.
    /// - Parameters:
    ///   - environment: The child's whole environment; this process's when `nil`.
    ///   - directory: Its working directory; this process's when `nil`.
    /// - Throws: `Failure.cannotStart` when it cannot be spawned (missing, not executable).
    init(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil,
        stdin: Stream = .null, stdout: Stream = .null, stderr: Stream = .null
    ) throws {
        commandLine = ([executable] + arguments).joined(separator: " ")
        #if canImport(Darwin)
            var actions: posix_spawn_file_actions_t?
            var attributes: posix_spawnattr_t?
        #else
            var actions = posix_spawn_file_actions_t()
            var attributes = posix_spawnattr_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        var parentEnds: [Int32: FileHandle] = [:]
        var childEnds: [Int32] = []
        defer { for descriptor in childEnds { close(descriptor) } }
        for (target, stream) in [(Int32(0), stdin), (1, stdout), (2, stderr)] {
            switch stream {
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            case .file(let path):
                let flags = target == 0 ? O_RDONLY : O_WRONLY | O_CREAT | O_TRUNC
                posix_spawn_file_actions_addopen(&actions, target, path, flags, 0o644)
            case .pipe:
                var ends: [Int32] = [-1, -1]
                guard pipe(&ends) == 0 else {
                    throw Failure.cannotStart(commandLine, "pipe: \(String(cString: strerror(errno)))")
                }
                let (parent, child) = target == 0 ? (ends[1], ends[0]) : (ends[0], ends[1])
                _ = fcntl(parent, F_SETFD, FD_CLOEXEC)
                parentEnds[target] = FileHandle(fileDescriptor: parent, closeOnDealloc: true)
                childEnds.append(child)
                posix_spawn_file_actions_adddup2(&actions, child, target)
            }
        }
        if let directory { Self.addChdir(&actions, directory) }
        var flags = Int32(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
        #if canImport(Darwin)
            flags |= Int32(POSIX_SPAWN_CLOEXEC_DEFAULT)
        #else
            Self.addCloseFrom(&actions, 3)
        #endif
        posix_spawnattr_setflags(&attributes, Int16(flags))
        posix_spawnattr_setpgroup(&attributes, 0)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGPIPE, SIGQUIT, SIGHUP] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)

        let environment = environment ?? ProcessInfo.processInfo.environment
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard code == 0 else { throw Failure.cannotStart(commandLine, String(cString: strerror(code))) }
        processIdentifier = pid
        pipes = parentEnds
    }

    deinit {
        // Never leave a child behind (nor a zombie).
        if !hasEnded { _ = kill() }
    }

    /// Whether the child has ended (and been reaped).
    var hasEnded: Bool { poll() != nil }

    /// Whether the child still runs.
    var isRunning: Bool { !hasEnded }

    /// How the child ended, reaping it if it just did; `nil` while it runs. Never blocks.
    func poll() -> Termination? {
        lock.withLock {
            if let ended { return ended }
            var status: Int32 = 0
            let result = waitpid(processIdentifier, &status, WNOHANG)
            if result == processIdentifier {
                ended = Self.termination(status)
            } else if result == -1 && errno == ECHILD {
                // Reaped by someone else (SIGCHLD ignored, or a stray wait): gone, status unknown.
                ended = Termination(status: -1, wasSignaled: false)
            }
            return ended
        }
    }

    /// Waits at most `seconds` for the child to end; how it ended, or `nil` when it still runs.
    func wait(within seconds: Double) -> Termination? {
        let deadline = Date().addingTimeInterval(seconds)
        var pause: useconds_t = 500
        while true {
            if let ended = poll() { return ended }
            guard Date() < deadline else { return nil }
            usleep(pause)
            pause = min(pause * 2, 20_000)
        }
    }

    /// Sends `signal` to the child alone (not its group), if it has not ended.
    func send(_ signal: Int32) {
        lock.withLock {
            if ended == nil { _ = systemKill(processIdentifier, signal) }
        }
    }

    /// Kills the child and its process group (SIGKILL) and waits for it, at most `seconds`; how it ended, or `nil`
    /// (then an issue is recorded: nothing should survive SIGKILL that long).
    @discardableResult
    func kill(within seconds: Double = 10) -> Termination? {
        lock.withLock {
            // The group while the child is not reaped: its pid (the group's id) cannot be anyone else's yet.
            if ended == nil { _ = systemKill(-processIdentifier, SIGKILL) }
        }
        guard let ended = wait(within: seconds) else {
            Issue.record("\(commandLine) (pid \(processIdentifier)) did not end within \(seconds) s of SIGKILL")
            return nil
        }
        return ended
    }

    /// Waits for the child, at most `seconds`; after that kills it and records an issue naming the command. How it
    /// ended (killed: `nil`).
    func finish(within seconds: Double) -> Termination? {
        if let ended = wait(within: seconds) { return ended }
        Issue.record("\(commandLine) did not finish within \(seconds) s: killed")
        kill()
        return nil
    }

    /// Reads the parent's end of the child's descriptor `descriptor` up to the first newline (or the end of its
    /// output), for at most `seconds`; the text without the newline, or `nil` on timeout.
    func readLine(from descriptor: Int32, within seconds: Double) -> String? {
        guard let handle = pipes[descriptor] else { return nil }
        let deadline = Date().addingTimeInterval(seconds)
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return nil }
            var ready = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
            let polled = systemPoll(&ready, 1, Int32(min(left, 1) * 1000))
            if polled < 0 && errno != EINTR { return nil }
            guard polled > 0 else { continue }
            let count = read(handle.fileDescriptor, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 || byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
    }

    private static func termination(_ status: Int32) -> Termination {
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import (they are macros).
        let signal = status & 0x7F
        return signal == 0
            ? Termination(status: (status >> 8) & 0xFF, wasSignaled: false)
            : Termination(status: signal, wasSignaled: true)
    }

    #if canImport(Darwin)
        private static func addChdir(_ actions: inout posix_spawn_file_actions_t?, _ path: String) {
            _ = posix_spawn_file_actions_addchdir_np(&actions, path)
        }
    #else
        /// glibc's `posix_spawn_file_actions_addchdir_np` and `addclosefrom_np` (2.29, 2.34) are GNU extensions that
        /// Swift's Glibc module does not import: looked up by name.
        private static func addChdir(_ actions: inout posix_spawn_file_actions_t, _ path: String) {
            typealias AddChdir =
                @convention(c) (
                    UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>
                ) -> Int32
            guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addchdir_np") else {
                preconditionFailure("glibc without posix_spawn_file_actions_addchdir_np (2.29 or later is needed)")
            }
            _ = unsafeBitCast(symbol, to: AddChdir.self)(&actions, path)
        }

        private static func addCloseFrom(_ actions: inout posix_spawn_file_actions_t, _ lowest: Int32) {
            typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
            guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addclosefrom_np") else {
                preconditionFailure("glibc without posix_spawn_file_actions_addclosefrom_np (2.34 or later is needed)")
            }
            _ = unsafeBitCast(symbol, to: AddCloseFrom.self)(&actions, lowest)
        }
    #endif
}

/// What one run of a tool produced.
struct ToolRun: Sendable {
    /// Its exit code (or the signal that ended it); -1 when it was killed at the deadline.
    var status: Int32
    var stdout: Data
    var stderr: Data

    var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    var stderrText: String { String(decoding: stderr, as: UTF8.self) }
}

extension ChildProcess {
    /// Runs `executable` to its end, with `input` on its standard input, its outputs in files (no pipe to fill up);
    /// after `deadline` seconds it is killed and an issue recorded.
    static func run(
        _ executable: String, _ arguments: [String], input: Data? = nil, environment: [String: String]? = nil,
        directory: String? = nil, deadline: Double = 120
    ) throws -> ToolRun {
        let scratch = NSTemporaryDirectory() + "tether-run-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        var stdin = Stream.null
        if let input {
            try input.write(to: URL(fileURLWithPath: scratch + "/in"))
            stdin = .file(scratch + "/in")
        }
        let child = try ChildProcess(
            executable, arguments, environment: environment, directory: directory, stdin: stdin,
            stdout: .file(scratch + "/out"), stderr: .file(scratch + "/err"))
        let ended = child.finish(within: deadline)
        return ToolRun(
            status: ended?.status ?? -1,
            stdout: FileManager.default.contents(atPath: scratch + "/out") ?? Data(),
            stderr: FileManager.default.contents(atPath: scratch + "/err") ?? Data())
    }
}

// `kill` and `poll` are also names of methods above.
private func systemKill(_ pid: pid_t, _ signal: Int32) -> Int32 {
    #if canImport(Glibc)
        Glibc.kill(pid, signal)
    #else
        Darwin.kill(pid, signal)
    #endif
}

private func systemPoll(_ descriptors: UnsafeMutablePointer<pollfd>, _ count: Int, _ timeout: Int32) -> Int32 {
    #if canImport(Glibc)
        Glibc.poll(descriptors, nfds_t(count), timeout)
    #else
        Darwin.poll(descriptors, nfds_t(count), timeout)
    #endif
}
