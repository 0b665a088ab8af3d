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

/// The targets that the versions of a manifest hold alike, built once (`tether verify --ref 'v*'`: every released
/// version of the contracts in one run). A version's target is the contract of one built before when both are in the
/// manifest at the same path under their version's folder, with the same text, starting at the same column, and the
/// manifest's other keys but `description` have the same text (the service, its base URL, headers, sign-in, rules
/// and steps). That contract is moved to the version's file, line and element (`targets[7]`); every other target is
/// built as usual.
///
/// Only a target built without error is kept, and only when the manifest holds all of it: one whose `sampleData` is a
/// file (whose bytes a version may change) or that has steps (whose places are not moved) is built at each version.
/// Building is most of reading a manifest (a version of 2,000 targets: 64 M instructions of 100 M, the rest the JSON
/// reader), and a run of five versions read every target five times.
package final class TargetReuse: @unchecked Sendable {
    /// A version's folder: the manifests' paths under it are what versions have in common.
    package struct Scope: Sendable {
        let targets: TargetReuse
        let root: String
        /// The version's manifests read as text ahead of its turn (`ManifestLoader.readAhead(paths:)`), by file.
        let readAhead = ReadAhead()

        /// - Parameters:
        ///   - targets: What every version of the run shares.
        ///   - root: The version's folder, ending with `/`.
        package init(_ targets: TargetReuse, root: String) {
            self.targets = targets
            self.root = root
        }

        /// Whether a version read before had a manifest at `file`'s path: this version's targets are then read as
        /// text first, each built only when no version before holds it alike.
        func hasRead(_ file: String) -> Bool {
            let path = relative(file)
            return targets.lock.withLock { targets.paths.contains(path) }
        }

        /// The manifest at `file`'s path as a version read before read it as text, the last to do so: its
        /// targets' texts are what this version's are compared with as they are read (`JSONReader.document(_:
        /// deferring:checkpoints:like:)`), so that a target no version changed is not checked byte by byte again.
        func textRead(before file: String) -> JSONDocument? {
            let path = relative(file)
            return targets.lock.withLock { targets.textRead[path] }
        }

        /// Keeps `document`, this version's manifest at `file` read as text, for the versions read after it.
        func keepTextRead(_ document: JSONDocument, of file: String) {
            let path = relative(file)
            targets.lock.withLock { targets.textRead[path] = document }
        }

        private func relative(_ file: String) -> String {
            file.hasPrefix(root) ? String(file.dropFirst(root.count)) : file
        }

        /// The targets built from manifests at `node`'s path with `node`'s keys but `targets` (the root of a manifest).
        func manifest(_ node: ManifestNode) -> Manifest {
            let path = relative(node.file)
            return targets.manifest(
                ManifestKey(path: path, settings: node.membersText(except: ["targets", "description"])))
        }
    }

    /// A version's manifests read as text, each taken once by the read of the version.
    final class ReadAhead: @unchecked Sendable {
        private let lock = Lock()
        // guarded by `lock`
        private var documents: [String: JSONDocument] = [:]

        func keep(_ document: JSONDocument, for file: String) {
            lock.withLock { documents[file] = document }
        }

        /// Whether no document waits to be taken.
        var isEmpty: Bool { lock.withLock { documents.isEmpty } }

        /// The document read ahead for `file` (then dropped), or nil.
        func take(_ file: String) -> JSONDocument? {
            lock.withLock { documents.removeValue(forKey: file) }
        }
    }

    private struct ManifestKey: Hashable {
        var path: String
        var settings: Data
    }

    /// The targets built from one manifest path with one text of the other keys: by their element (a version that
    /// changes nothing before a target has it at the same element: one comparison of its text), and by their text.
    ///
    /// Read and added to through a `Reader`, one per part of a version's targets (`ManifestLoader.buildTargets`):
    /// the lock is taken when the part starts and when it ends, not for each target. Several versions are read at
    /// once, each in parts on both cores, and a lock for each target was 4,200 futex calls in a run of 5 versions of
    /// 2,000 targets.
    final class Manifest: @unchecked Sendable {
        fileprivate struct Built {
            var contract: Contract
            var text: TargetText
            var line: Int
            var column: Int
            /// `targets[3]`.
            var location: String
            /// 3.
            var element: Int
        }

        fileprivate let lock = Lock()
        // guarded by `lock`
        /// Every target kept, and where in it each element is: numbers, so that a lookup reads the target where it
        /// is instead of copying it out (and every reference it holds) on each core.
        fileprivate var built: [Built] = []
        /// By element: the number in `built` of the first target kept at each, or -1.
        fileprivate var byElement: [Int] = []
        /// By text: made when a version first looks up a target its element does not have (one that moved), from
        /// the first `indexed` of `built`. Versions that move nothing never hash a text (2,000 texts hashed and
        /// stored as the first version's parts ended were 2.5 ms of a 5-tag run).
        fileprivate var byText: [TargetText: Int] = [:]
        fileprivate var indexed = 0
        fileprivate var reused = 0

        /// A reader for one part of a version's targets, holding what the versions read before it built.
        func reader() -> Reader { Reader(self) }

        /// Every target kept, and the index by text of all of them (brought up to date).
        fileprivate func textIndex() -> ([Built], [TargetText: Int]) {
            lock.withLock {
                if indexed < built.count {
                    byText.reserveCapacity(built.count)
                    for number in indexed..<built.count where byText[built[number].text] == nil {
                        byText[built[number].text] = number  // the first kept of a text stays
                    }
                    indexed = built.count
                }
                return (built, byText)
            }
        }
    }

    /// What one part of a version's targets reads from a `Manifest` and adds to it: the targets built before the
    /// part started, read without a lock; what the part builds is added when the reader goes (with the part), for
    /// the versions read after it.
    final class Reader {
        private let manifest: Manifest
        private var built: [Manifest.Built]
        /// How many targets were built when the part started: only those are looked up.
        private let count: Int
        private let byElement: [Int]
        /// Taken from `manifest` at the first target not found at its element.
        private var byText: [TargetText: Int]?
        private var reused = 0
        private var kept: [Manifest.Built] = []

        fileprivate init(_ manifest: Manifest) {
            self.manifest = manifest
            (built, byElement) = manifest.lock.withLock { (manifest.built, manifest.byElement) }
            count = built.count
        }

        deinit {
            let (kept, reused) = (kept, reused)
            manifest.lock.withLock {
                manifest.reused += reused
                guard !kept.isEmpty else { return }
                manifest.built.reserveCapacity(manifest.built.count + kept.count)
                for target in kept {
                    let number = manifest.built.count
                    manifest.built.append(target)
                    if target.element >= manifest.byElement.count {
                        manifest.byElement.append(
                            contentsOf: repeatElement(-1, count: target.element + 1 - manifest.byElement.count))
                    }
                    if manifest.byElement[target.element] < 0 {  // the first kept at an element stays
                        manifest.byElement[target.element] = number
                    }
                }
            }
        }

        /// The contract of a target with `node`'s text built before, moved to `node`'s place (element `element`);
        /// `nil` when none was (or it started at another column).
        func contract(for node: ManifestNode, element: Int) -> Contract? {
            guard count > 0 else { return nil }
            let text = TargetText(node.text)
            let found: Int
            if element < byElement.count, byElement[element] >= 0, built[byElement[element]].text == text {
                found = byElement[element]
            } else {
                if byText == nil { (built, byText) = manifest.textIndex() }
                // The first kept of a text has the lowest number: one kept after the part started has none before.
                guard let number = byText?[text], number < count else { return nil }
                found = number
            }
            let (line, column) = node.document.lineAndColumn(ofValue: node.index)
            guard column == built[found].column else { return nil }
            reused += 1
            let location = built[found].element == element ? built[found].location : node.location
            return built[found].contract.moved(
                toManifest: node.file, lines: line - built[found].line, target: (built[found].location, location))
        }

        /// Keeps `contract`, built from `node` (element `element`), for the versions still to be read.
        func keep(_ contract: Contract, builtFrom node: ManifestNode, element: Int) {
            guard contract.steps == nil, contract.stubSource.map({ $0.file == $0.manifest }) ?? true else { return }
            let (line, column) = node.document.lineAndColumn(ofValue: node.index)
            kept.append(
                Manifest.Built(
                    contract: contract, text: TargetText(node.text), line: line, column: column,
                    location: node.location, element: element))
        }
    }

    /// A target's text as a key: hashed on its length and its first and last 32 bytes (`Data` hashes every byte), and
    /// compared whole.
    struct TargetText: Hashable, @unchecked Sendable {
        let bytes: Data

        init(_ bytes: Data) { self.bytes = bytes }

        static func == (a: TargetText, b: TargetText) -> Bool {
            a.bytes.count == b.bytes.count
                && a.bytes.withUnsafeBytes { a in
                    b.bytes.withUnsafeBytes { b in a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0
                    }
                }
        }

        func hash(into hasher: inout Hasher) {
            bytes.withUnsafeBytes { raw in
                hasher.combine(raw.count)
                guard raw.count >= 32 else { return hasher.combine(bytes: raw) }
                // A word at a time: `combine(bytes:)` cost a thousand instructions a text.
                for offset in stride(from: 0, to: 32, by: 8) {
                    hasher.combine(raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                    hasher.combine(raw.loadUnaligned(fromByteOffset: raw.count - 32 + offset, as: UInt64.self))
                }
            }
        }
    }

    private let lock = Lock()
    // guarded by `lock`
    private var manifests: [ManifestKey: Manifest] = [:]
    private var paths: Set<String> = []
    /// By path: the last version's manifest there read as text (`Scope.textRead(before:)`).
    private var textRead: [String: JSONDocument] = [:]

    /// Nothing built yet.
    package init() {}

    /// How many targets were taken from a version read before (for tests).
    package var reusedCount: Int {
        lock.withLock {
            manifests.values.reduce(0) { count, manifest in count + manifest.lock.withLock { manifest.reused } }
        }
    }

    private func manifest(_ key: ManifestKey) -> Manifest {
        lock.withLock {
            if let manifest = manifests[key] { return manifest }
            let manifest = Manifest()
            manifests[key] = manifest
            paths.insert(key.path)
            return manifest
        }
    }
}
