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

/// How `tether update` and `tether learn` change a JSON file a person keeps: minimal edits (`JSONTextEdit`), read back
/// and compared before anything is written (a wrong edit is never written), then written atomically with the file's
/// permissions kept. The one home of that policy.
enum JSONFileEdit {
    /// Why a file was not changed; the description follows `cannot update FILE: `.
    enum Failure: Error, CustomStringConvertible {
        /// The file cannot be read.
        case unreadable(String)
        /// The edit did not read back as the new values: a defect of ours.
        case wrongEdit(String)
        /// The new text cannot be written.
        case unwritable(String)

        var description: String {
            switch self {
            case .unreadable(let reason): "cannot read it: \(reason)"
            case .wrongEdit(let reason): "\(reason) (internal error: please report it)"
            case .unwritable(let reason): reason
            }
        }
    }

    /// The text of `path` with `changes` applied, checked: every changed location reads back as its new value.
    /// - Returns: The new bytes, or `nil` when no byte changes.
    static func edited(_ path: String, changes: [JSONTextEdit.Change]) throws(Failure) -> Data? {
        let original: Data
        do {
            original = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .unreadable(fileErrorReason(error))
        }
        let edited: Data
        do {
            edited = try JSONTextEdit.applying(changes, to: original)
            let root = try JSONReader().value(edited)
            for change in changes {
                guard JSONTextEdit.find(change.location, in: root)?.1 == change.value else {
                    throw JSONTextEdit.Failure.noValue(location: change.location)
                }
            }
        } catch {
            throw .wrongEdit("\(error)")
        }
        return edited == original ? nil : edited
    }

    /// Writes `data` over `path` atomically (a new file renamed over the old), keeping the old file's permissions.
    static func write(_ data: Data, to path: String) throws(Failure) {
        var status = stat()
        let permissions: mode_t? = stat(path, &status) == 0 ? status.st_mode & 0o7777 : nil
        // The new text replaces the file by a rename, which its folder allows whatever the file's own mode: a file
        // its owner made read-only is left as it is, as an editor asks first.
        if permissions != nil && access(path, W_OK) != 0 {
            throw .unwritable(
                "it is read-only (mode \(String(permissions ?? 0, radix: 8))): make it writable (chmod u+w), or leave "
                    + "its targets out with --filter")
        }
        do {
            try ReportFile.write(data, to: path, permissions: permissions)
        } catch {
            throw .unwritable("\(error)")
        }
    }
}
