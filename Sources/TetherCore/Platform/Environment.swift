#if canImport(FoundationEssentials) && !canImport(Darwin)
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
            forEachEntry { text in
                // As Foundation reads them: an entry that is not UTF-8, or has no `=`, is skipped; a later one wins.
                if let line = String(validatingCString: text), let equals = Self.firstEquals(in: line) {
                    variables[String(line[..<equals])] = String(line[line.index(after: equals)...])
                }
                return true
            }
            return variables
        #else
            return ProcessInfo.processInfo.environment
        #endif
    }

    /// Whether an entry of the environment satisfies `matches`, which gets its text: `NAME=value` from `environ` on
    /// Linux, the name alone elsewhere. Read at each call, without the dictionary `variables()` makes.
    package static func hasEntry(where matches: (UnsafePointer<CChar>) -> Bool) -> Bool {
        #if canImport(Glibc)
            var found = false
            forEachEntry { text in
                found = matches(text)
                return !found
            }
            return found
        #else
            return ProcessInfo.processInfo.environment.keys.contains { $0.withCString(matches) }
        #endif
    }

    #if canImport(Glibc)
        /// Calls `body` with each entry of `environ`, in order, until it returns false.
        private static func forEachEntry(_ body: (UnsafePointer<CChar>) -> Bool) {
            var entry = environ
            while let text = entry.pointee, body(text) { entry += 1 }
        }
    #endif

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
