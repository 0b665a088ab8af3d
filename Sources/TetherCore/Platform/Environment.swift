#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// The process's environment variables.
package enum ProcessEnvironment {
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
