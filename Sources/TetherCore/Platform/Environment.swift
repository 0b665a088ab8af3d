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
                if let line = String(validatingCString: text), let equals = line.firstIndex(of: "=") {
                    variables[String(line[..<equals])] = String(line[line.index(after: equals)...])
                }
                entry += 1
            }
            return variables
        #else
            return ProcessInfo.processInfo.environment
        #endif
    }
}
