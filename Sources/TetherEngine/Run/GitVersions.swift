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

/// `--ref REF` (repeatable) and `--last N`: check the contracts as they were at git refs (tags, branches, commits),
/// every released app version in one run. A ref with `*`, `?` or `[` is a glob over the tags.
public struct RefSelection: Sendable, Equatable {
    /// The refs and tag globs, as given.
    public var refs: [String] = []
    /// `--last N`: of the tags each glob matches, the N newest.
    public var last: Int?

    /// No `--ref`: the working tree.
    public init() {}
}

/// The contracts of each ref, read from git into a scratch folder without touching the working tree (`GitObjects`):
/// each ref's manifests, sample files and OpenAPI documents, as the ref has them. The folder is removed when this
/// goes.
final class VersionedContracts {
    /// A ref as the run names it (`v3.2.0`), and the paths its contracts are at in the scratch folder.
    struct Version {
        var ref: String
        var paths: [String]
        /// Where the scratch copy is (`…/2/`), to write it back as `v3.2.0:` in messages.
        var root: String
        /// The targets the versions of the run hold alike, for each to be built once; `nil` for a run of one version.
        var reuse: TargetReuse.Scope?
    }

    let versions: [Version]
    /// What `read` made of each version, in the order of the refs.
    let contracts: [[Contract]]
    /// The folder each version of the paths is written under.
    private let scratch: String
    private var isRemoved = false
    /// The removal `startRemovingScratch` began, which `removeScratch` waits for.
    private var removal: DeepStack.Background?

    /// Reads the paths at each ref of `selection`, and each version's contracts with `read`.
    /// - Parameters:
    ///   - selection: `--ref` and `--last`.
    ///   - paths: The manifests or folders, relative to the working directory (or absolute, inside the repository).
    ///   - read: The contracts of a version whose paths are written out: the first version's on the thread that
    ///     wrote it, as soon as it has (one version is read while git writes out the next); the others' once the
    ///     first is read.
    ///   - readAhead: What of a version after the first can be read before the first is (`ManifestLoader.readAhead`),
    ///     called on the thread that wrote it, as soon as it has.
    /// - Throws: `RunError.usage` naming a ref that does not exist, a glob that matches no tag, a ref that has none
    ///   of the paths, or a working directory outside a git repository; or what `read` throws. The first version
    ///   that cannot be written out or read, in the order of the refs, stops the run.
    init(
        _ selection: RefSelection, paths: [String], read: (Version) throws(RunError) -> [Contract],
        readAhead: (Version) -> Void = { _ in }
    ) throws(RunError) {
        // The repository is the one the paths are in (not the working directory's), each path taken from its top.
        var top: String?
        var inRepository: [String] = []
        for path in paths {
            let (pathTop, relative) = try Self.place(of: path)
            if let top, top != pathTop {
                throw .usage("--ref reads every path from one repository: \(path) is in \(pathTop), not \(top)")
            }
            top = pathTop
            inRepository.append(relative)
        }
        guard let top else { throw .usage("--ref needs a path to read from git") }
        var refs: [String] = []
        for ref in selection.refs {
            if ref.contains(where: { "*?[".contains($0) }) {
                // Newest first by the tag's date (an annotated tag's, else its commit's), then the newest N, shown
                // oldest first: the matrix reads left to right as the versions came out.
                let listed = try Self.git(
                    ["tag", "--list", ref, "--sort=-creatordate"], in: top, what: "--ref \(ref)"
                ).split(separator: "\n").map(String.init)
                guard !listed.isEmpty else {
                    throw .usage("--ref \(ref) matches no tag in \(top) (git tag --list '\(ref)' lists none)")
                }
                refs += listed.prefix(selection.last ?? listed.count).reversed()
            } else {
                guard (try? Self.git(["rev-parse", "--verify", "--quiet", ref + "^{commit}"], in: top)) != nil else {
                    throw .usage(
                        "--ref \(ref) is no tag, branch or commit of \(top) (git rev-parse --verify '\(ref)' fails)")
                }
                refs.append(ref)
            }
        }
        if selection.last != nil && !selection.refs.contains(where: { $0.contains(where: { "*?[".contains($0) }) }) {
            throw .usage("--last N takes the newest of the tags a --ref pattern matches: add --ref 'v*'")
        }
        var seen = Set<String>()
        refs = refs.filter { seen.insert($0).inserted }
        scratch = String.temporaryFolder + "tether-refs-" + UUID().uuidString
        // Each ref's copy on a thread of its own (a DeepStack one, as every thread of the product), written out by
        // the one git process in turn. Then the first version is read, while the others are read as text only
        // (`readAhead`, which needs no version before): the first takes most of that time, the others fill the other
        // core. Then the others are read, each building only the targets no version before holds alike (see
        // `TargetReuse`).
        let objects = try GitObjects(repository: top)
        let objectsLock = Lock()
        let scratch = scratch
        let fromTop = inRepository
        let chosen = refs
        let reuse = chosen.count > 1 ? TargetReuse() : nil
        let written = DeepStack.concurrentMap(name: "tether-ref", iterations: chosen.count) {
            number -> Result<(Version, [Contract]?), RunError> in
            let ref = chosen[number]
            let root = scratch + "/\(number)"
            do {
                try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            } catch {
                return .failure(
                    .usage("--ref: cannot write the versions' contracts to \(scratch): \(fileErrorReason(error))"))
            }
            do throws(RunError) {
                objectsLock.lock()
                defer { objectsLock.unlock() }
                var missing: [String] = []
                for (path, given) in zip(fromTop, paths) {
                    let found = try objects.writeOut(
                        ref + ":" + (path == "." ? "" : path), to: path == "." ? root : root + "/" + path)
                    if !found { missing.append(given) }
                }
                if !missing.isEmpty {
                    throw RunError.usage(
                        "--ref \(ref) has none of \(missing.joined(separator: ", ")): nothing to verify at that version"
                    )
                }
            } catch {
                return .failure(error)
            }
            let version = Version(
                ref: ref, paths: fromTop.map { root + "/" + $0 }, root: root + "/",
                reuse: reuse.map { TargetReuse.Scope($0, root: root + "/") })
            guard number == 0 else {
                readAhead(version)
                return .success((version, nil))
            }
            do throws(RunError) {
                return .success((version, try read(version)))
            } catch {
                return .failure(error)
            }
        }
        // The versions after the first, up to the first that could not be written out: the first failure in the
        // order of the refs stops the run, as if they were read one after the other.
        let readable = written.firstIndex { if case .failure = $0 { true } else { false } } ?? written.count
        let later = DeepStack.concurrentMap(name: "tether-ref", iterations: max(0, readable - 1)) {
            number -> Result<[Contract], RunError> in
            guard case .success(let (version, _)) = written[number + 1] else { return .success([]) }
            do throws(RunError) {
                return .success(try read(version))
            } catch {
                return .failure(error)
            }
        }
        var versions: [Version] = []
        var contracts: [[Contract]] = []
        for (number, outcome) in written.enumerated() {
            switch outcome.flatMap({ version, read in
                (read.map { .success($0) } ?? later[number - 1]).map { (version, $0) }
            }) {
            case .success(let (version, read)):
                versions.append(version)
                contracts.append(read)
            case .failure(let error):
                try? FileManager.default.removeItem(atPath: scratch)
                throw error
            }
        }
        self.versions = versions
        self.contracts = contracts
    }

    deinit { removeScratch() }

    /// Removes the scratch folder (once; the contracts read from it stay), or waits for the removal
    /// `startRemovingScratch` began. Done when this goes, or before, by a run that leaves this to the process's exit
    /// (`CommandContext.keepUntilExit`).
    func removeScratch() {
        guard !isRemoved else { return }
        isRemoved = true
        if let removal {
            removal.wait()
        } else {
            try? FileManager.default.removeItem(atPath: scratch)
        }
    }

    /// Begins removing the scratch folder on a thread of its own, once nothing reads it any more (the run's answers
    /// are checked), while the reports are written: removing five versions' folders took 1.3 ms at the end of a
    /// run, and a repository's stub files make it longer. `removeScratch` waits for it.
    func startRemovingScratch() {
        guard !isRemoved, removal == nil else { return }
        let scratch = scratch
        removal = DeepStack.Background(name: "tether-scratch") { try? FileManager.default.removeItem(atPath: scratch) }
    }

    /// Writes contracts as read at one version: each service named `Service@REF`, each place `REF:path`. A
    /// manifest's targets share their file and mostly their service, so the last of each is kept and written once,
    /// not once per target (a 5-version run of 2,000 contracts spent 77 M instructions writing them per target).
    struct Versioning {
        let version: Version
        private var file: (scratch: String, written: String)?
        private var service: (plain: String, versioned: String)?

        init(_ version: Version) { self.version = version }

        /// `contracts`, read at the version, changed in place to be as read there.
        mutating func apply(to contracts: inout [Contract]) {
            Contract.setRef(version.ref, on: &contracts)
            for index in contracts.indices {
                let plain = contracts[index].service
                if service?.plain != plain { service = (plain, "\(plain)@\(version.ref)") }
                contracts[index].service = service!.versioned
                contracts[index].source = written(contracts[index].source)
                if var place = contracts[index].declaration {
                    place.file = written(place.file)
                    contracts[index].declaration = place
                }
            }
        }

        private mutating func written(_ path: String) -> String {
            if let file, file.scratch == path { return file.written }
            let written = VersionedContracts.written(path, at: version)
            file = (path, written)
            return written
        }
    }

    /// A scratch path written as git names a file at a ref: `v3.2.0:contracts/github.json`.
    static func written(_ path: String, at version: Version) -> String {
        // On the bytes in place: the generic `utf8.starts(with:)` took 1.6 % of a 5-version run of 2,000 contracts.
        var (path, root) = (path, version.root)
        let inside = path.withUTF8 { path in root.withUTF8 { root in path.starts(with: root) } }
        return inside ? version.ref + ":" + String(decoding: path.utf8.dropFirst(root.utf8.count), as: UTF8.self) : path
    }

    /// The repository `path` is in, and `path` from its top (without `.` and `..`); the path need not exist in the
    /// working tree (a manifest that only old versions have), its nearest existing folder is asked.
    private static func place(of path: String) throws(RunError) -> (top: String, path: String) {
        var parts = path.absolutePath.split(separator: "/").map(String.init)
        var rest: [String] = []
        while !parts.isEmpty && !("/" + parts.joined(separator: "/")).fileKind.isFolder {
            rest.insert(parts.removeLast(), at: 0)
        }
        let folder = "/" + parts.joined(separator: "/")
        // realpath(3), not URL's symlink resolution: on macOS that drops /private, which git's answer keeps.
        guard let real = folder.resolvedPath else { throw .usage("--ref cannot read the folder of \(path)") }
        let top: String
        do {
            top = try git(["rev-parse", "--show-toplevel"], in: real, what: "--ref reads \(path) from git").trimmed
        } catch {
            // git's own words (which say what to do of a repository it does not trust), and of none, what to do.
            guard error.description.contains("not a git repository") else { throw error }
            throw .usage(
                "\(error.description); --ref reads the contracts' old versions from the repository they are in: give "
                    + "a path inside a git clone (with its tags: git fetch --tags), or drop --ref")
        }
        guard real == top || real.hasPrefix(top + "/") else {
            throw .usage("--ref reads \(path) from git, but it is outside the repository at \(top)")
        }
        let inside = real.dropFirst(top.count).split(separator: "/").map(String.init) + rest
        return (top, inside.isEmpty ? "." : inside.joined(separator: "/"))
    }

    /// `git ARGUMENTS`'s standard output; throws `RunError.usage` with `what` and git's message when it fails.
    private static func git(_ arguments: [String], in directory: String? = nil, what: String = "git") throws(RunError)
        -> String
    {
        try run("git", (directory.map { ["-C", $0] } ?? []) + arguments, what: what)
    }

    /// Runs `arguments` (the program found on `PATH`) to its end, its outputs in scratch files, and returns its
    /// standard output; throws `RunError.usage` with `what` and its standard error when it fails.
    private static func run(_ executable: String, _ arguments: [String], what: String) throws(RunError) -> String {
        let base = String.temporaryFolder + "tether-git-" + UUID().uuidString
        let (outPath, errPath) = (base + ".out", base + ".err")
        defer {
            unlink(outPath)
            unlink(errPath)
        }
        let written = O_WRONLY | O_CREAT | O_TRUNC
        let pid: pid_t
        switch spawn(
            [executable] + arguments,
            streams: [
                .file("/dev/null", flags: O_RDONLY), .file(outPath, flags: written), .file(errPath, flags: written),
            ])
        {
        case .success(let started): pid = started
        case .failure(let error):
            throw .usage("\(what): cannot run \(executable): \(String(cString: strerror(error.number)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let output = FileManager.default.contents(atPath: outPath) ?? Data()
        // Exited (the low seven bits are 0) with status 0.
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            let message = String(decoding: FileManager.default.contents(atPath: errPath) ?? Data(), as: UTF8.self)
                .trimmed
            throw .usage("\(what): \(message.isEmpty ? "\(executable) failed" : message)")
        }
        return String(decoding: output, as: UTF8.self)
    }
}

extension String {
    fileprivate var trimmed: String { trimmingWhitespaceAndNewlines() }
}
