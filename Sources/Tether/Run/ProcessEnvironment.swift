import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The process's environment, the one home where the command line reads it.
public enum ProcessEnvironment {
    /// Every variable, exactly as `ProcessInfo.processInfo.environment` gives them: an entry without `=` is left out,
    /// a name given twice keeps its last value, invalid UTF-8 is repaired as `String(cString:)` repairs it.
    ///
    /// On Glibc it is read straight from `environ`: Foundation's getter first makes the `ProcessInfo` singleton (which
    /// resolves the executable's path) and copies every entry under a lock, ~0.5 ms of a one-contract run. Elsewhere
    /// (Darwin, where Foundation is part of the system) it is Foundation's.
    public static func current() -> [String: String] {
        #if canImport(Glibc)
            let entries: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = environ
            guard let entries else { return [:] }
            var count = 0
            while entries[count] != nil { count += 1 }
            var variables: [String: String] = [:]
            variables.reserveCapacity(count)
            for index in 0..<count {
                guard let entry = entries[index] else { continue }
                let text = String(cString: entry)
                guard let equals = text.firstIndex(of: "=") else { continue }
                variables[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            return variables
        #else
            return ProcessInfo.processInfo.environment
        #endif
    }
}
