import Foundation

/// Which contracts a run checks and where their requests go: the manifests, the environment `${VAR}` expands from,
/// `--base-url`, `--mock` and `--filter`. What `verify`, `update` and `learn` share, with the one start-up that reads
/// them (`selectedContracts`).
public struct RunInputs: Sendable {
    /// Manifests or folders of them.
    public var paths: [String]
    /// Where `${VAR}` comes from.
    public var environment: [String: String]
    /// `--base-url`.
    public var baseURLs: BaseURLOverrides
    /// `--mock FILE.har`: replay it on 127.0.0.1 and send every request there.
    public var mockHAR: String?
    /// `--filter`.
    public var filter: ContractFilter

    /// - Parameters: as the properties.
    public init(
        paths: [String], environment: [String: String], baseURLs: BaseURLOverrides = BaseURLOverrides(),
        mockHAR: String? = nil, filter: ContractFilter = ContractFilter(patterns: [])
    ) {
        self.paths = paths
        self.environment = environment
        self.baseURLs = baseURLs
        self.mockHAR = mockHAR
        self.filter = filter
    }

    /// The start-up: start the mock (which sends every request to itself), read the manifests, select the targets.
    /// - Parameter write: Where the mock's notes go.
    /// - Returns: The selected contracts, and the mock server replaying `mockHAR` (keep it alive while the requests
    ///   run).
    /// - Throws: `VerifyCommandError` for broken contracts, a mock that cannot start, or no target selected.
    func selectedContracts(write: (String) -> Void) throws(VerifyCommandError) -> (
        contracts: [Contract], server: MockServer?
    ) {
        var overrides = baseURLs
        var server: MockServer?
        if let mockHAR {
            do {
                let (replay, archive) = try MockServer.replaying(harFile: mockHAR)
                server = replay
                for note in archive.notes { write("note: \(note)\n") }
            } catch {
                throw .mock(error)
            }
            overrides.all = server?.baseURL
        }
        let contracts: [Contract]
        do {
            contracts = try ManifestLoader(environment: environment, baseURLOverrides: overrides).load(paths: paths)
        } catch {
            throw .contracts(error)
        }
        // Stubs that declare XML are read here, where libxml2 is at hand: a broken one stops the run as a broken
        // JSON sample file does (ManifestLoader, being free of C, only keeps their bytes).
        let xmlErrors = contracts.compactMap(ContractCheck.xmlStubError(in:))
        if !xmlErrors.isEmpty { throw .contracts(ContractErrors(xmlErrors)) }
        let selected = contracts.filter(filter.matches)
        guard !selected.isEmpty else {
            if contracts.isEmpty {
                throw .selection("no targets in \(paths.joined(separator: ", ")): nothing to verify")
            }
            let among = contracts.count == 1 ? "the only target" : "the \(contracts.count) targets"
            throw .selection(
                "--filter \(filter.patterns.joined(separator: " ")) matches none of \(among) (patterns match Service.target or target, with * and ?)"
            )
        }
        return (selected, server)
    }
}
