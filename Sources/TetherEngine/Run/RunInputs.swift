#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Which contracts a run checks and where their requests go: the manifests, the environment `${VAR}` expands from,
/// `--base-url`, `--mock`, `--filter` and `--shard`. What `verify`, `record`, `update` and `learn` share, with the one
/// start-up that reads them (`selectedContracts`).
public struct RunInputs: Sendable {
    /// Manifests or folders of them.
    public var paths: [String]
    /// Where `${VAR}` comes from.
    public var environment: [String: String]
    /// `--base-url`.
    public var baseURLs: BaseURLOverrides
    /// `--mock FILE.har`: replay it on 127.0.0.1 and send every request there.
    public var mock: MockReplay
    /// `--filter`.
    public var filter: ContractFilter
    /// `--shard K/N` and `--timings FILE`.
    public var sharding: ShardSelection
    /// `--ref REF` and `--last N`: the contracts as they were at these git refs instead of the working tree's.
    public var versions = RefSelection()

    /// - Parameters: as the properties.
    public init(
        paths: [String] = [], environment: [String: String] = [:], baseURLs: BaseURLOverrides = BaseURLOverrides(),
        mock: MockReplay = MockReplay(), filter: ContractFilter = ContractFilter(patterns: []),
        sharding: ShardSelection = ShardSelection()
    ) {
        self.paths = paths
        self.environment = environment
        self.baseURLs = baseURLs
        self.mock = mock
        self.filter = filter
        self.sharding = sharding
    }

    /// The start-up: start the mock (which sends every request to itself), read the manifests, select the targets.
    /// - Parameters:
    ///   - write: Where the mock's notes go.
    ///   - sends: Whether requests follow (`--list` sends none): then the libraries their answers may need are opened
    ///     here.
    /// - Returns: The selected contracts (before `--shard`), the mock server replaying `mock`, and the versions'
    ///   scratch copy with `--ref` (keep both alive while the requests run).
    /// - Throws: `RunError` for broken contracts, a mock that cannot start, a ref that cannot be read, or no target
    ///   selected.
    func selectedContracts(write: (String) -> Void, sends: Bool = true) throws(RunError) -> (
        contracts: [Contract], server: MockServer?, versions: VersionedContracts?
    ) {
        var overrides = baseURLs
        var server: MockServer?
        var recording: HARArchive?
        if let harPath = mock.harPath {
            do {
                let (replay, archive) = try MockServer.replaying(harFile: harPath)
                server = replay
                recording = archive
                for note in archive.redactedNotes { write("note: \(note)\n") }
            } catch {
                throw .mock(error)
            }
            overrides.all = server?.baseURL
        }
        var contracts: [Contract] = []
        let loader = ManifestLoader(environment: environment, baseURLOverrides: overrides)
        if versions.refs.isEmpty && versions.last != nil {
            throw .usage("--last N takes the newest of the tags a --ref pattern matches: add --ref 'v*'")
        }
        // Each version's contracts, in the order of the refs, each service named Service@REF. The versions are
        // written out and read side by side (one thread per core), and the first that cannot be, in the order of the
        // refs, stops the run, as if they were read one after the other.
        let versioned =
            versions.refs.isEmpty
            ? nil
            : try VersionedContracts(versions, paths: paths) { [paths] version throws(RunError) in
                try Self.contracts(at: version, loader: loader, paths: paths)
            } readAhead: { version in
                var loader = loader
                loader.reuse = version.reuse
                loader.readAhead(paths: version.paths)
            }
        if let versioned {
            contracts = versioned.contracts.flatMap { $0 }
        } else {
            do {
                contracts = try loader.load(paths: paths)
            } catch {
                throw .contracts(error)
            }
        }
        recording?.shareCredentials(with: &contracts)
        // Stubs that declare XML are read here, where libxml2 is at hand: a broken one stops the run as a broken
        // JSON sample file does (ManifestLoader, being free of C, only keeps their bytes).
        let xmlErrors = contracts.compactMap(ContractCheck.xmlStubError(in:))
        if !xmlErrors.isEmpty { throw .contracts(ContractErrors(xmlErrors)) }
        let selected = filter.patterns.isEmpty ? contracts : contracts.filter(filter.matches)
        // Other stubs that may be read as XML are read when their answers arrive: libxml2 is opened now, so that a
        // machine without it stops the run here, before any request, rather than at the first such answer.
        if sends, selected.contains(where: ContractCheck.mayReadAsXML) { XMLElementNode.openLibrary() }
        guard !selected.isEmpty else {
            if contracts.isEmpty {
                throw .selection("no targets in \(paths.joined(separator: ", ")): nothing to verify")
            }
            let among = contracts.count == 1 ? "the only target" : "the \(contracts.count) targets"
            throw .selection(
                "--filter \(filter.patterns.joined(separator: " ")) matches none of \(among) (patterns match Service.target or target, with * and ?)"
            )
        }
        return (selected, server, versioned)
    }

    /// The contracts of one version, each service named `Service@REF` and each place `REF:path`.
    private static func contracts(
        at version: VersionedContracts.Version, loader: ManifestLoader, paths: [String]
    ) throws(RunError) -> [Contract] {
        do {
            var loader = loader
            loader.reuse = version.reuse
            var read = try loader.load(paths: version.paths)
            guard !read.isEmpty else {
                throw RunError.usage("--ref \(version.ref) has no targets in \(paths.joined(separator: ", "))")
            }
            var versioning = VersionedContracts.Versioning(version)
            versioning.apply(to: &read)
            return read
        } catch let error as ContractErrors {
            throw .contracts(
                ContractErrors(
                    error.errors.map { error in
                        var error = error
                        error.file = VersionedContracts.written(error.file, at: version)
                        return error
                    }))
        } catch let error as RunError {
            throw error
        } catch {
            throw .usage("--ref \(version.ref): \(error)")
        }
    }

    /// The part of `selected` that `--shard` runs (all of it without `--shard`), saying which part it is.
    /// - Parameters:
    ///   - selected: The selected contracts.
    ///   - write: Where the line saying which part this is goes.
    /// - Returns: The contracts of this shard, in run order.
    /// - Throws: `RunError.selection` when the `--timings` report cannot be read.
    func shardPart(of selected: [Contract], write: (String) -> Void) throws(RunError) -> [Contract] {
        guard let shard = sharding.shard else { return selected }
        var timings: [String: Double]?
        if let timingsReport = sharding.timingsReport {
            do {
                timings = try ContractShard.timings(fromReport: timingsReport)
            } catch {
                throw .selection("--timings \(error); give the JUnit report of an earlier run, or drop --timings")
            }
        }
        let part = shard.select(selected, timings: timings)
        let targets = selected.count == 1 ? "1 target" : "\(selected.count) targets"
        write("shard \(shard): \(part.count) of \(targets), balanced by \(timings == nil ? "count" : "time")\n")
        return part
    }
}

/// `--mock FILE.har`: a HAR file replayed on 127.0.0.1 for the run, every request sent there.
public struct MockReplay: Sendable, Equatable {
    /// The HAR file, or `nil` to call the services.
    public var harPath: String?

    /// - Parameter harPath: The HAR file, or `nil`.
    public init(harPath: String? = nil) {
        self.harPath = harPath
    }
}

/// `--shard K/N` and `--timings FILE`: which part of the selected targets a CI job runs.
public struct ShardSelection: Sendable, Equatable {
    /// The part this run is, or `nil` for the whole run.
    public var shard: ContractShard?
    /// An earlier JUnit (or `--json`) report whose test times balance the parts, instead of their counts.
    public var timingsReport: String?

    /// - Parameters: as the properties.
    public init(shard: ContractShard? = nil, timingsReport: String? = nil) {
        self.shard = shard
        self.timingsReport = timingsReport
    }
}

/// Why a run could not start, or could not write its report.
public enum RunError: Error, CustomStringConvertible {
    /// The manifests have errors, and the documents given with `--spec` have these (none when they have none or
    /// there is no `--spec`): nothing was sent.
    case contracts(ContractErrors, specs: [BrokenSpec] = [])
    /// The HAR file to replay cannot be used: nothing was sent.
    case mock(MockServerError)
    /// No target to verify: nothing was sent.
    case selection(String)
    /// A report cannot be written (checked before anything was sent).
    case report(option: String, ReportError)
    /// The run finished, but a report could not be written.
    case unwritten(RunPipelineError)
    /// The baseline file cannot be read or is malformed: nothing was sent.
    case baseline(ContractError)
    /// Options that do not go together (`--update-baseline` without `--baseline`): nothing was sent.
    case usage(String)
    /// The run finished, but `--update-baseline` could not write the file.
    case baselineUnwritten(report: RunReport, ReportError)
    /// OpenAPI documents (`--spec`, a manifest's `"spec"`) cannot be read or have errors, each error in the
    /// compiler's form, printed before the message as contract errors are. Nothing was sent.
    case spec([BrokenSpec])

    /// The errors' lines in the compiler's form (`FILE:LINE:COLUMN: error: …`) that editors, Xcode and CI problem
    /// matchers read, printed before the message: the contracts', then the OpenAPI documents'; none for the others.
    public var diagnostics: [String] {
        switch self {
        case .contracts(let errors, let specs): [errors.description] + specs.flatMap(\.diagnostics)
        case .spec(let specs): specs.flatMap(\.diagnostics)
        default: []
        }
    }

    /// The message, for `tether: error: …`.
    public var description: String {
        switch self {
        case .contracts(let errors, let specs):
            ([errors.countText] + specs.map(\.summary)).joined(separator: ", ") + "; nothing was sent"
        case .mock(let error): "\(error)"
        case .selection(let message): message
        case .report(let option, let error): "\(option) \(error); nothing was sent"
        case .unwritten(let error): "\(error)"
        case .baseline(let error): "--baseline \(error); nothing was sent"
        case .usage(let message): message
        case .baselineUnwritten(_, let error): "--update-baseline \(error)"
        case .spec(let specs): specs.map(\.summary).joined(separator: ", ") + "; nothing was sent"
        }
    }
}
