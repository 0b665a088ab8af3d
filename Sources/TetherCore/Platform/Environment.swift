#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// The process's environment: its variables, and the processors it may use.
package enum ProcessEnvironment {
    /// The processors this process may run on: `ProcessInfo.processInfo.activeProcessorCount`, asked once. On Linux
    /// Foundation reads the cgroup's CPU quota files at every call (0.2 ms each in a profile of the 2,000 run), and a
    /// run asks at every pool of threads it starts: the manifest's parts, the transport's loops, the reports.
    package static let activeProcessorCount = ProcessInfo.processInfo.activeProcessorCount

    /// What `ProcessInfo.processInfo.environment` gives, read from `environ` on Linux.
    ///
    /// Not through `ProcessInfo` there: its set-up (its locks' type metadata, found by name) and the dictionary were
    /// 0.3 ms of a one-contract run, which asks it for nothing else (`EnvironmentTests` holds this to it).
    package static func variables() -> [String: String] {
        #if canImport(Glibc)
            var variables: [String: String] = [:]
            var entry = environ
            while let text = entry.pointee {
                // As Foundation reads them: an entry that is not UTF-8, or has no `=`, is skipped; a later one wins.
                if let line = String(validatingCString: text), let equals = Self.firstEquals(in: line) {
                    variables[String(line[..<equals])] = String(line[line.index(after: equals)...])
                }
                entry += 1
            }
            return variables
        #else
            return ProcessInfo.processInfo.environment
        #endif
    }

    /// Where the first `=` character of an entry is, found by its byte: a `Character` search was 5,500 instructions an
    /// entry (0.2 M of a one-contract run). A `=` byte between ASCII bytes is a character of its own; one beside other
    /// bytes may be part of a larger one (a combining mark after it), and the characters decide, as before.
    static func firstEquals(in line: String) -> String.Index? {
        let bytes = line.utf8
        guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")) else { return nil }
        let after = bytes.index(after: equals)
        let isAlone =
            (equals == bytes.startIndex || bytes[bytes.index(before: equals)] < 0x80)
            && (after == bytes.endIndex || bytes[after] < 0x80)
        return isAlone ? equals : line.firstIndex(of: "=")
    }
}
