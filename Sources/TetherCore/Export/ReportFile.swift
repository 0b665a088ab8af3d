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

/// Writes files atomically: a temporary file in the destination's folder, then renamed over the destination, so a
/// reader (a CI dashboard, a rerun, the next build) sees the old file or the new one, never half of one.
package enum ReportFile {
    /// Flushes a file's bytes to the disk itself: on Darwin `fsync` only hands them to the drive, which may write them
    /// later and out of order; `F_FULLFSYNC` waits for the medium (fsync(2)), and `fsync` is the fallback where a
    /// file system refuses it.
    static func flush(_ descriptor: Int32) -> Bool {
        #if canImport(Darwin)
            if fcntl(descriptor, F_FULLFSYNC) == 0 { return true }
        #endif
        return fsync(descriptor) == 0
    }

    /// Whether the bytes must reach the disk before the rename.
    package enum Durability: Sendable {
        /// Flushed (`flush`: `F_FULLFSYNC` on Darwin, `fsync` elsewhere) before the rename: a file the user keeps (a
        /// stub, a contract manifest, a baseline, a recording) survives a crash or power loss right after the write,
        /// old or new.
        case flushed
        /// Renamed without waiting for the disk: a report the run makes again (JUnit, HTML, Markdown). Readers still
        /// see the old file or the new one; only a power loss in the next seconds can leave it empty, as with any
        /// test reporter. The flush was a ~0.9 ms wait of a 16 ms one-contract run (bench/HISTORY.md).
        case report
    }

    /// Writes `data` to `path`, creating missing parent folders.
    /// - Parameters:
    ///   - data: The new contents.
    ///   - path: Where they go.
    ///   - permissions: The mode the new file gets (`tether update` passes the old file's, so that a rewritten stub
    ///     keeps its `0640`); `nil` leaves 0644 less the umask.
    ///   - durability: `.flushed` (the default) or `.report`.
    /// - Throws: `ReportError.write` naming `path` and the system's reason; no temporary file is left behind.
    package static func write(
        _ data: Data, to path: String, permissions: mode_t? = nil, durability: Durability = .flushed
    ) throws(ReportError) {
        try write(to: path, permissions: permissions, durability: durability) { (write) throws(ReportError) in
            // `withUnsafeBytes` rethrows untyped errors: the typed one is carried out by hand.
            var failure: ReportError?
            data.withUnsafeBytes { bytes in
                do throws(ReportError) { try write(bytes) } catch { failure = error }
            }
            if let failure { throw failure }
        }
    }

    /// As `write(_:to:permissions:durability:)`, with the contents written in pieces by `contents` through the
    /// function it is given (a large report need not be held whole in memory). When `contents` throws, nothing is
    /// renamed, no temporary file is left behind, and its error is thrown.
    package static func write(
        to path: String, permissions: mode_t? = nil, durability: Durability = .flushed,
        contents: (_ write: (UnsafeRawBufferPointer) throws(ReportError) -> Void) throws(ReportError) -> Void
    ) throws(ReportError) {
        if let stream = stream(at: path) {
            try write(to: stream, path: path, contents: contents)
            return
        }
        // A kept file that is a symbolic link (a stub shared from another folder) is written where it leads: the
        // rename would put a file in the link's place and leave the file it names as it was. A report replaces a link:
        // a repository's `reports/junit.xml` could lead anywhere.
        let path = durability == .flushed ? linkTarget(of: path) ?? path : path
        let fileName = path.pathLastComponent
        guard !path.isEmpty, !path.hasSuffix("/"), !fileName.isEmpty, fileName != ".", fileName != ".." else {
            throw .write(path: path, reason: "not a file path")
        }
        let folder = path.pathDeletingLastComponent
        try createFolders(folder, for: path)

        let temporary =
            (folder.isEmpty ? "" : folder + "/")
            + ".\(fileName).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw .write(path: path, reason: "cannot create temporary file '\(temporary)': \(systemReason())")
        }
        var failure: String?
        if let permissions, fchmod(descriptor, permissions) != 0 {
            failure = "cannot set the permissions of temporary file '\(temporary)': \(systemReason())"
        }
        if failure == nil {
            do {
                try contents { (bytes) throws(ReportError) in
                    guard Self.writeAll(descriptor, bytes) else {
                        throw .write(
                            path: path, reason: "cannot write temporary file '\(temporary)': \(systemReason())")
                    }
                }
            } catch {
                close(descriptor)
                unlink(temporary)
                throw error
            }
        }
        if failure == nil, durability == .flushed, !Self.flush(descriptor) {
            failure = "cannot flush temporary file '\(temporary)': \(systemReason())"
        }
        if close(descriptor) != 0, failure == nil {
            failure = "cannot close temporary file '\(temporary)': \(systemReason())"
        }
        if failure == nil, !Self.exchanged(temporary, path, durability: durability), rename(temporary, path) != 0 {
            failure = "cannot rename '\(temporary)' to it: \(systemReason())"
        }
        if let failure {
            unlink(temporary)
            throw .write(path: path, reason: failure)
        }
    }

    /// A path that takes bytes rather than holding a file. Such a path is written into, as a shell's redirection
    /// writes it, and nothing is renamed into its place (which replaced `/dev/null` with a file, and a log with a
    /// report).
    enum Stream: Equatable {
        /// A descriptor of the process (`descriptor(named:)`), even one that leads to a regular file (a CI log).
        case descriptor(Int32)
        /// A character device (`/dev/null`) or a named pipe itself, not a link to one (a repository's link could
        /// lead to any device).
        case device
    }

    /// Whether `path` takes bytes rather than holding a file (`Stream`): nothing there is kept to protect, so a
    /// recording stopped early goes into it rather than beside it.
    package static func isStream(_ path: String) -> Bool { stream(at: path) != nil }

    /// What `path` is, when it is no file: `Stream`.
    static func stream(at path: String) -> Stream? {
        if let number = descriptor(named: path) { return .descriptor(number) }
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        let kind = status.st_mode & S_IFMT
        return kind == S_IFCHR || kind == S_IFIFO ? .device : nil
    }

    /// The descriptor of this process that `path` names, itself or as the symbolic link it is: 1 for `/dev/stdout`
    /// (a link to `/proc/self/fd/1` on Linux, to `fd/1` on Darwin), 2 for `/dev/stderr`, N for `/dev/fd/N` and
    /// `/proc/self/fd/N`. It is written through, so that the report shares the console's place in a file (opened
    /// again, a log file would be written from its start, or over the lines that follow).
    static func descriptor(named path: String) -> Int32? {
        func number(_ path: String) -> Int32? {
            switch path {
            case "/dev/stdout": return 1
            case "/dev/stderr": return 2
            default:
                for folder in ["/dev/fd/", "/proc/self/fd/"] where path.hasPrefix(folder) {
                    return Int32(path.dropFirst(folder.count))
                }
                return nil
            }
        }
        if let found = number(path) { return found }
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let target = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let folder = path.pathDeletingLastComponent
        return number(target.hasPrefix("/") || folder.isEmpty ? target : folder + "/" + target)
    }

    /// Writes to a stream: through the descriptor, or to the device opened for appending (never created or
    /// emptied), then closed.
    private static func write(
        to stream: Stream, path: String,
        contents: (_ write: (UnsafeRawBufferPointer) throws(ReportError) -> Void) throws(ReportError) -> Void
    ) throws(ReportError) {
        let descriptor: Int32
        switch stream {
        case .descriptor(let number): descriptor = number
        case .device:
            descriptor = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
            guard descriptor >= 0 else { throw .write(path: path, reason: "cannot open it: \(systemReason())") }
        }
        defer { if stream == .device { close(descriptor) } }
        try contents { (bytes) throws(ReportError) in
            guard Self.writeAll(descriptor, bytes) else {
                throw .write(path: path, reason: "cannot write to it: \(systemReason())")
            }
        }
    }

    /// Where the symbolic link at `path` leads (through every link), or `nil` when `path` is no link or leads nowhere.
    static func linkTarget(of path: String) -> String? {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK else { return nil }
        return path.resolvedPath
    }

    /// Whether a report took the place of the regular file at `path` by an exchange (Linux's `renameat2` with
    /// `RENAME_EXCHANGE`), the old file then unlinked under the temporary name: on ext4, a rename over an existing file
    /// starts writing the new one's blocks first (`auto_da_alloc`, 0.2-0.4 ms of a one-contract run's 10 ms), and an
    /// exchange does not. Readers still see the old file or the new one, as the `.report` durability promises. `false`
    /// (and nothing done) for a `.flushed` file, a path that is not a regular file, or a system or file system
    /// without the exchange: the caller renames.
    private static func exchanged(_ temporary: String, _ path: String, durability: Durability) -> Bool {
        #if canImport(Glibc)
            guard durability == .report, let exchange = renameExchange else { return false }
            var status = stat()
            guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG,
                exchange(AT_FDCWD, temporary, AT_FDCWD, path, 2) == 0  // RENAME_EXCHANGE
            else { return false }
            unlink(temporary)  // the old file
            return true
        #else
            return false
        #endif
    }

    #if canImport(Glibc)
        /// glibc's `renameat2` (2.28 and later), looked up once: Swift's Glibc module leaves out the GNU extensions.
        private static let renameExchange:
            (@convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32)? = {
                guard let symbol = dlsym(nil, "renameat2") else { return nil }
                return unsafeBitCast(
                    symbol,
                    to: (@convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32)
                        .self)
            }()
    #endif

    /// Checks, before a run sends anything, that `write(_:to:)` will be able to write `path`: a file path, not a
    /// folder, whose folders exist or can be made (they are made now), in a folder where a file can be created (a
    /// probe file is created and removed, so it holds for root, read-only file systems and `/proc` alike).
    /// - Throws: `ReportError.write` naming `path` and the reason, as `write(_:to:)` would.
    package static func checkWritable(_ path: String) throws(ReportError) {
        let fileName = path.pathLastComponent
        guard !path.isEmpty, !path.hasSuffix("/"), !fileName.isEmpty, fileName != ".", fileName != ".." else {
            throw .write(path: path, reason: "not a file path")
        }
        if path.fileKind.isFolder {
            throw .write(path: path, reason: "it is a folder; give the path of a file, in it or elsewhere")
        }
        switch stream(at: path) {
        case .descriptor(let number):
            guard fcntl(number, F_GETFL) >= 0 else {
                throw .write(path: path, reason: "descriptor \(number) is not open: \(systemReason())")
            }
            return
        case .device:
            guard access(path, W_OK) == 0 else {
                throw .write(path: path, reason: "cannot write to it: \(systemReason())")
            }
            return
        case nil: break
        }
        let folder = path.pathDeletingLastComponent
        try createFolders(folder, for: path)
        let probe =
            (folder.isEmpty ? "" : folder + "/") + ".\(fileName).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).probe"
        let descriptor = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw .write(
                path: path, reason: "cannot create a file in '\(folder.isEmpty ? "." : folder)': \(systemReason())")
        }
        close(descriptor)
        unlink(probe)
    }

    /// `mkdir -p folder`, reporting the first folder that cannot be made.
    private static func createFolders(_ folder: String, for path: String) throws(ReportError) {
        guard !folder.isEmpty else { return }
        var prefix = folder.hasPrefix("/") ? "/" : ""
        for component in folder.split(separator: "/") {
            prefix += String(component)  // a string, not the generic append of a substring: its first use is slow
            if mkdir(prefix, 0o777) != 0, errno != EEXIST {
                throw .write(path: path, reason: "cannot create folder '\(prefix)': \(systemReason())")
            }
            prefix += "/"
        }
    }

    /// Writes every byte of `bytes` to `descriptor` with write(2), again after a signal interrupts it (EINTR): the one
    /// loop of the files, the step summary and the console. False when a write fails (`errno` says why) or writes
    /// nothing (`errno` is then EIO).
    package static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var offset = 0
        while offset < bytes.count {
            #if canImport(Glibc)
                let written = Glibc.write(descriptor, base + offset, bytes.count - offset)
            #else
                let written = Darwin.write(descriptor, base + offset, bytes.count - offset)
            #endif
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                if written == 0 { errno = EIO }
                return false
            }
        }
        return true
    }

    /// The text of the current `errno`.
    private static func systemReason() -> String {
        String(cString: strerror(errno))
    }
}
