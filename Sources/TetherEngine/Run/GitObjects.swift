#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The files of a repository at its refs, written out by one `git cat-file --batch` for the whole run: it answers
/// each object asked for on its standard input (a tree, a file's blob), and the trees are walked here.
///
/// Not `git archive` piped to `tar` for each ref: that was two processes per version, 8 ms of CPU each time, a third
/// of what a version of 2,000 targets cost a `--ref` run.
final class GitObjects {
    private let pid: pid_t
    /// Our end of the socket that is git's standard input and output.
    private let socket: Int32
    private let errorPath: String
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    private var start = 0
    private var end = 0

    /// Starts `git cat-file --batch` in `repository`.
    init(repository: String) throws(RunError) {
        var ends: [Int32] = [-1, -1]
        #if canImport(Darwin)
            let kind = SOCK_STREAM
        #else
            let kind = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        #endif
        guard socketpair(AF_UNIX, kind, 0, &ends) == 0 else {
            throw .usage("--ref: cannot start git cat-file: \(String(cString: strerror(errno)))")
        }
        // Neither end leaks into another process (on Linux from the start); git gets its end as 0 and 1 (dup2 clears
        // the flag).
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        #if canImport(Darwin)
            var on: Int32 = 1  // a write after git is gone fails with EPIPE rather than killing the run
            _ = setsockopt(ends[0], SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
        socket = ends[0]
        errorPath = String.temporaryFolder + "tether-git-" + UUID().uuidString + ".err"
        let started = spawn(
            ["git", "-C", repository, "cat-file", "--batch"],
            streams: [
                .descriptor(ends[1]), .descriptor(ends[1]), .file(errorPath, flags: O_WRONLY | O_CREAT | O_TRUNC),
            ])
        close(ends[1])
        switch started {
        case .success(let pid): self.pid = pid
        case .failure(let code):
            close(ends[0])
            unlink(errorPath)
            throw .usage("--ref: cannot run git: \(String(cString: strerror(code.number)))")
        }
    }

    /// Ends git (its standard input closed) and waits for it.
    deinit {
        close(socket)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        unlink(errorPath)
    }

    /// Writes the object `name` (`v1.2.0:contracts`, `v1.2.0:` for the top) to `path`: a tree as a folder with
    /// everything under it, a blob as a file. False when the repository has no such object.
    func writeOut(_ name: String, to path: String) throws(RunError) -> Bool {
        guard let (type, bytes, hashLength) = try object(name) else { return false }
        try write(type: type, bytes: bytes, hashLength: hashLength, to: path)
        return true
    }

    private func write(type: String, bytes: [UInt8], hashLength: Int, to path: String) throws(RunError) {
        switch type {
        case "tree":
            guard
                mkdir(path, 0o755) == 0 || errno == EEXIST
                    || (try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true))
                        != nil
            else { throw cannotWrite(path) }
            // Entries: "<mode> <name>\0" and the object's id in binary.
            var index = 0
            while index < bytes.count {
                guard let space = bytes[index...].firstIndex(of: UInt8(ascii: " ")),
                    let zero = bytes[space...].firstIndex(of: 0), zero + hashLength <= bytes.count
                else { throw .usage("--ref: git cat-file gave a tree it cannot be read as") }
                let mode = String(decoding: bytes[index..<space], as: UTF8.self)
                let name = String(decoding: bytes[(space + 1)..<zero], as: UTF8.self)
                var id = ""
                for byte in bytes[(zero + 1)..<(zero + 1 + hashLength)] {
                    id += String(byte >> 4, radix: 16) + String(byte & 0xF, radix: 16)
                }
                index = zero + 1 + hashLength
                guard !name.isEmpty, name != ".", name != "..", !name.contains("/") else { continue }
                let entryPath = path + "/" + name
                if mode == "160000" {  // a submodule: its folder, empty, as git archive writes it
                    guard mkdir(entryPath, 0o755) == 0 || errno == EEXIST else { throw cannotWrite(entryPath) }
                    continue
                }
                guard let (entryType, entryBytes, _) = try object(id) else {
                    throw .usage("--ref: git cat-file has no object \(id), named in a tree")
                }
                if mode == "120000" {
                    let target = String(decoding: entryBytes, as: UTF8.self)
                    guard symlink(target, entryPath) == 0 else { throw cannotWrite(entryPath) }
                } else {
                    try write(type: entryType, bytes: entryBytes, hashLength: hashLength, to: entryPath)
                }
            }
        case "blob":
            let folder = path.pathDeletingLastComponent
            if !folder.isEmpty {
                try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            }
            let file = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            guard file >= 0 else { throw cannotWrite(path) }
            defer { close(file) }
            var written = 0
            while written < bytes.count {
                let count = bytes.withUnsafeBytes { systemWrite(file, $0.baseAddress! + written, $0.count - written) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { throw cannotWrite(path) }
                written += count
            }
        default:
            throw .usage("--ref: \(path) is a \(type) in git, not a file or a folder")
        }
    }

    private func cannotWrite(_ path: String) -> RunError {
        .usage("--ref: cannot write \(path): \(String(cString: strerror(errno)))")
    }

    /// The object `name` names: its type, its bytes, and the length of the repository's object ids in bytes (20 for
    /// SHA-1, 32 for SHA-256); `nil` when git has none.
    private func object(_ name: String) throws(RunError) -> (type: String, bytes: [UInt8], hashLength: Int)? {
        try send(name + "\n")
        let header = try line()
        if header.hasSuffix(" missing") || header.hasSuffix(" ambiguous") { return nil }
        let fields = header.split(separator: " ")
        guard fields.count == 3, let size = Int(fields[2]), size >= 0 else {
            throw .usage("--ref: git cat-file answered '\(header)' for \(name)\(gitMessage)")
        }
        // What is buffered already, then the rest read from git straight into the object's bytes, which are not
        // zeroed first (a version of a 1 MB manifest was set to zeros, then copied in 64 KB at a time).
        var failure: RunError?
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { target, initialized in
            let buffered = min(end - start, size)
            if buffered > 0 {
                buffer.withUnsafeBufferPointer { source in
                    _ = memcpy(target.baseAddress!, source.baseAddress! + start, buffered)
                }
                start += buffered
            }
            var filled = buffered
            do throws(RunError) {
                while filled < size { filled += try receive(into: target.baseAddress! + filled, count: size - filled) }
            } catch {
                failure = error
            }
            initialized = filled
        }
        if let failure { throw failure }
        if start == end { try refill() }
        start += 1  // the line feed after the object
        return (String(fields[1]), bytes, fields[0].count / 2)
    }

    /// The next line git writes, without its line feed.
    private func line() throws(RunError) -> String {
        var line: [UInt8] = []
        while true {
            if start == end { try refill() }
            if let feed = buffer[start..<end].firstIndex(of: UInt8(ascii: "\n")) {
                line += buffer[start..<feed]
                start = feed + 1
                return String(decoding: line, as: UTF8.self)
            }
            line += buffer[start..<end]
            start = end
        }
    }

    private func refill() throws(RunError) {
        let received = buffer.withUnsafeMutableBytes { bytes in
            Result { () throws(RunError) in try receive(into: bytes.baseAddress!, count: bytes.count) }
        }
        (start, end) = (0, try received.get())
    }

    /// Reads what git has written, up to `count` bytes into `bytes`: at least one, or throws once git has stopped.
    private func receive(into bytes: UnsafeMutableRawPointer, count: Int) throws(RunError) -> Int {
        while true {
            let received = read(socket, bytes, count)
            if received < 0 && errno == EINTR { continue }
            guard received > 0 else { throw stopped }
            return received
        }
    }

    /// git cat-file ended (or its socket failed), with what it wrote to its standard error.
    private var stopped: RunError { .usage("--ref: git cat-file stopped\(gitMessage)") }

    private func send(_ text: String) throws(RunError) {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            #if canImport(Darwin)
                let flags: Int32 = 0
            #else
                let flags = Int32(MSG_NOSIGNAL)
            #endif
            let count = bytes.withUnsafeBytes { systemSend(socket, $0.baseAddress! + sent, $0.count - sent, flags) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw stopped }
            sent += count
        }
    }

    /// What git wrote to its standard error, after a colon; empty when nothing.
    private var gitMessage: String {
        let text = String(decoding: FileManager.default.contents(atPath: errorPath) ?? Data(), as: UTF8.self)
            .trimmingWhitespaceAndNewlines()
        return text.isEmpty ? "" : ": " + text
    }
}

// The system's calls, named apart from the methods above.
private func systemWrite(_ file: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int { write(file, bytes, count) }
private func systemSend(_ socket: Int32, _ bytes: UnsafeRawPointer, _ count: Int, _ flags: Int32) -> Int {
    send(socket, bytes, count, flags)
}

/// Where a started program's standard input, output or error is.
enum SpawnStream {
    /// A descriptor of ours, which it shares.
    case descriptor(Int32)
    /// A file opened for it (created with mode 0600).
    case file(String, flags: Int32)
}

/// An error number of `posix_spawn`.
struct SpawnError: Error {
    var number: Int32
}

/// Starts `arguments[0]`, found on `PATH`, with the run's environment and `streams` as its standard input, output
/// and error. posix_spawn, not Foundation's `Process`: its `waitUntilExit` polls a run loop every 50 ms on Linux,
/// which made a one-ref run 220 ms slower than the same run of the working tree.
func spawn(_ arguments: [String], streams: [SpawnStream]) -> Result<pid_t, SpawnError> {
    #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t?
    #else
        var actions = posix_spawn_file_actions_t()
    #endif
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for (number, stream) in streams.enumerated() {
        switch stream {
        case .descriptor(let descriptor): posix_spawn_file_actions_adddup2(&actions, descriptor, Int32(number))
        case .file(let path, let flags): posix_spawn_file_actions_addopen(&actions, Int32(number), path, flags, 0o600)
        }
    }
    // The environment as a list built here (Darwin does not give Swift `environ`).
    let argv = arguments.map { strdup($0) } + [nil]
    let envp = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for pointer in argv + envp { free(pointer) } }
    var pid: pid_t = 0
    let code = posix_spawnp(&pid, arguments[0], &actions, nil, argv, envp)
    return code == 0 ? .success(pid) : .failure(SpawnError(number: code))
}
