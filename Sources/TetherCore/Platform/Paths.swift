#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// A path's parts, as NSString's `lastPathComponent`, `deletingLastPathComponent` and `appendingPathComponent` give
// them (held to them by PathsTests, against Foundation's own), without swift-corelibs-foundation on Linux (see
// `Lock`).

extension String {
    /// `(self as NSString).lastPathComponent`: `b` of `a/b/`, `/` of `/`.
    package var pathLastComponent: String {
        guard utf8.count > 1 else { return self }
        let path = Self.droppingTrailingSlashes(self)
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return String(path) }
        return String(path[path.utf8.index(after: slash)...])
    }

    /// `(self as NSString).deletingLastPathComponent`: `a` of `a/b/`, `/` of `/a`, the empty string of `a` (which
    /// swift-corelibs-foundation 6.3 crashes on, when it is one character long).
    package var pathDeletingLastComponent: String {
        guard self != "/" else { return self }
        var path = ""
        for scalar in Self.droppingTrailingSlashes(self).unicodeScalars {
            if scalar == "/", path.hasSuffix("/") { continue }  // a run of slashes is one
            path.unicodeScalars.append(scalar)
        }
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
    }

    /// `(self as NSString).appendingPathComponent(component)`: the two joined by a slash, unless this is empty or ends
    /// with one (no other slash is changed).
    package func pathAppending(_ component: String) -> String {
        if isEmpty { return component }
        if component.isEmpty { return self }
        return hasSuffix("/") ? self + component : self + "/" + component
    }

    /// `a/./b/../c` as `a/c`, lexically (no file system look-up); leading `..` are kept, and `..` at the root
    /// dropped.
    package var lexicallyNormalized: String {
        let absolute = hasPrefix("/")
        var parts: [Substring] = []
        for part in split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == "..", let last = parts.last, last != ".." {
                parts.removeLast()
            } else if part == "..", absolute {
                continue
            } else {
                parts.append(part)
            }
        }
        return (absolute ? "/" : "") + parts.joined(separator: "/")
    }

    /// This path from the current folder when it is relative, `lexicallyNormalized`.
    package var absolutePath: String {
        (hasPrefix("/") ? self : FileManager.default.currentDirectoryPath + "/" + self).lexicallyNormalized
    }

    /// Whether this path lies below `folder` (not the folder itself), by their text: give both in the same form (both
    /// resolved, or both absolute and normalized).
    package func isInside(_ folder: String) -> Bool {
        hasPrefix(folder.hasSuffix("/") ? folder : folder + "/")
    }

    private static func droppingTrailingSlashes(_ path: String) -> Substring {
        var end = path.endIndex
        while end > path.startIndex, path.utf8[path.utf8.index(before: end)] == UInt8(ascii: "/") {
            end = path.utf8.index(before: end)
        }
        return path[..<end]
    }

    /// The folder for scratch files, with a trailing slash: Foundation's `temporaryDirectory` on Darwin (the user's
    /// own folder, or the app's in a simulator), else `$TMPDIR` or `/tmp/`.
    package static var temporaryFolder: String {
        #if canImport(Darwin)
            let folder = FileManager.default.temporaryDirectory.path
            return folder.hasSuffix("/") ? folder : folder + "/"
        #else
            if let folder = getenv("TMPDIR").map({ String(cString: $0) }), !folder.isEmpty {
                return folder.hasSuffix("/") ? folder : folder + "/"
            }
            return "/tmp/"
        #endif
    }

    /// The path with symbolic links, `.` and `..` resolved (`realpath(3)`, which keeps macOS's `/private`, unlike
    /// URL's resolution); nil when it does not resolve (no such file, no permission).
    package var resolvedPath: String? {
        guard let resolved = realpath(self, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Whether something is at this path, and whether it is a folder (a link followed), as `FileManager`'s
    /// `fileExists(atPath:isDirectory:)` says: with `stat(2)` on Linux, where `FileManager.default`'s set-up was 0.1 ms
    /// of a one-contract run that asks it nothing else.
    package var fileKind: (exists: Bool, isFolder: Bool) {
        #if canImport(Glibc)
            var info = stat()
            guard !isEmpty, stat(self, &info) == 0 else { return (false, false) }
            return (true, info.st_mode & S_IFMT == S_IFDIR)
        #elseif canImport(FoundationEssentials) && !canImport(Darwin)
            var isFolder = false
            let exists = FileManager.default.fileExists(atPath: self, isDirectory: &isFolder)
            return (exists, isFolder)
        #else
            var isFolder: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: self, isDirectory: &isFolder)
            return (exists, isFolder.boolValue)
        #endif
    }
}

extension FileManager {
    /// The first `count` bytes of the file at `path` (fewer when it is shorter); nil when it cannot be read.
    package func head(ofFile path: String, count: Int) -> Data? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let done = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + filled, count - filled) }
            if done < 0 && errno == EINTR { continue }
            guard done >= 0 else { return nil }
            if done == 0 { break }
            filled += done
        }
        return Data(bytes[..<filled])
    }
}

/// Why reading or writing a file failed, in a few words (`no such file`, `permission denied`), for messages that
/// already name the file: the system's reason (`strerror`) where the error carries one.
package func fileErrorReason(_ error: any Error) -> String {
    var posix = error as? POSIXError
    if let cocoa = error as? CocoaError {
        if cocoa.code == .fileReadNoSuchFile || cocoa.code == .fileNoSuchFile { return "no such file" }
        posix = cocoa.userInfo["NSUnderlyingError"] as? POSIXError
    }
    if let posix { return String(cString: strerror(posix.code.rawValue)).lowercased() }
    return "\(error)"
}

/// A file written from its start, as `FileHandle(forWritingAtPath:)` writes it, closed when this goes; or a descriptor
/// of the process that the path names (`/dev/stdout`: `ReportFile.descriptor(named:)`), written where it is.
package final class FileOutput {
    private let descriptor: Int32
    private let isOwned: Bool

    /// Creates (or empties) the file at `path`; nil when it cannot, `errno` saying why.
    package init?(creating path: String) {
        if let named = ReportFile.descriptor(named: path) {
            descriptor = named
            isOwned = false
            return
        }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return nil }
        self.descriptor = descriptor
        isOwned = true
    }

    deinit { if isOwned { close(descriptor) } }

    /// Writes all of `text`; false when the system refuses, `errno` saying why.
    package func write(_ text: some StringProtocol) -> Bool {
        var text = String(text)
        return text.withUTF8 { ReportFile.writeAll(descriptor, UnsafeRawBufferPointer($0)) }
    }
}
