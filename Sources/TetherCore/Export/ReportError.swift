/// Why a report could not be produced or written.
public enum ReportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// libxml2 refused to build the document; `message` names the call and carries libxml2's own text.
    case xml(message: String)
    /// The report could not be written to `path` (a folder on the way, the temporary file, the rename);
    /// `reason` says which step and the system's text, e.g. `cannot create folder 'out/a': Not a directory`.
    case write(path: String, reason: String)

    /// The message for people: lower-case, naming the path and what to do.
    public var description: String {
        switch self {
        case .xml(let message):
            "junit report: libxml2 could not build the document: \(message) (this is a bug in tether; please report it)"
        case .write(let path, let reason):
            "\(path): cannot write the file: \(reason) (choose another path, or make its folder writable)"
        }
    }
}
