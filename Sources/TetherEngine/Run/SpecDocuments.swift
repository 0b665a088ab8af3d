#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `--spec`, `--offline`, `--list-uncovered`: the providers' OpenAPI documents a run checks its targets against.
public struct SpecOptions: Sendable, Equatable {
    /// One `--spec`: a document for one service, or (no service) for every service without one of its own.
    public struct Binding: Sendable, Equatable {
        /// The service, for `--spec SERVICE=FILE`; `nil` for `--spec FILE`.
        public var service: String?
        /// The document's path.
        public var path: String

        /// - Parameters: as the properties.
        public init(service: String? = nil, path: String) {
            self.service = service
            self.path = path
        }

        /// `--spec`'s value: `FILE`, or `SERVICE=FILE` when what comes before the first `=` is a service name (no
        /// `/` in it, and a file of that whole name does not exist).
        public init(argument: String) {
            if let equals = argument.firstIndex(of: "="), !argument[..<equals].contains("/"),
                !argument[..<equals].isEmpty, !FileManager.default.fileExists(atPath: argument)
            {
                self.init(
                    service: String(argument[..<equals]), path: String(argument[argument.index(after: equals)...]))
            } else {
                self.init(path: argument)
            }
        }
    }

    /// The documents, in the order given.
    public var documents: [Binding]
    /// `--offline`: nothing is sent; each target's request and stub are checked against its service's document.
    public var isOffline: Bool
    /// `--list-uncovered`: after the run, the operations and documented responses that no target covers.
    public var listsUncovered: Bool
    /// `--fail-on stub,service,spec`: the culprits whose drifts fail the gate; `nil` for all.
    public var failingCulprits: Set<Finding.Culprit>?

    /// - Parameters: as the properties.
    public init(documents: [Binding] = [], isOffline: Bool = false, listsUncovered: Bool = false) {
        self.documents = documents
        self.isOffline = isOffline
        self.listsUncovered = listsUncovered
    }

    /// Reads and compiles every document, before anything is sent, for the services of `contracts`.
    /// - Parameter contracts: The selected targets (a `SERVICE=` must name one of their services).
    /// - Returns: The checks by service.
    /// - Throws: `RunError.spec` with every problem of every broken document (`file:line:column`), or `.usage` for
    ///   options that do not fit.
    package func load(for contracts: [Contract]) throws(RunError) -> SpecSet {
        let declared = Set(contracts.compactMap(\.specPath))
        if isOffline && documents.isEmpty && declared.isEmpty {
            throw .usage(
                "--offline checks each target against its service's OpenAPI document: add --spec FILE (or --spec "
                    + "SERVICE=FILE)")
        }
        if listsUncovered && documents.isEmpty && declared.isEmpty {
            throw .usage("--list-uncovered lists what --spec FILE's document has")
        }
        // A manifest's "spec" is its service's own document: `--spec SERVICE=FILE` wins over it, and it wins over a
        // `--spec FILE` given for every service.
        var bindings = documents.filter { $0.service == nil }
        var named = Set(documents.compactMap(\.service))
        // The documents a manifest's "spec" names, with its service (for their errors' message).
        var ownDocuments: [String: String] = [:]
        for contract in contracts {
            guard let path = contract.specPath, named.insert(contract.unversionedService).inserted else { continue }
            bindings.append(Binding(service: contract.unversionedService, path: path))
            ownDocuments[path] = contract.unversionedService
        }
        let forServices = documents.filter { $0.service != nil }
        if !forServices.isEmpty {
            // The services, made only when a document is bound to one (10,000 names cut from their `@REF` in a
            // 5-version run without any document).
            let known = Set(contracts.map(\.unversionedService))
            if let unknown = forServices.first(where: { !known.contains($0.service ?? "") }) {
                throw .usage(
                    "--spec \(unknown.service ?? "")=\(unknown.path): no selected target is of the service "
                        + "'\(unknown.service ?? "")' (services: " + known.sorted().joined(separator: ", ") + ")")
            }
            bindings += forServices
        }
        var set = SpecSet()
        var loaded: [String: SpecCheck] = [:]
        var broken: [BrokenSpec] = []
        for binding in bindings {
            let check: SpecCheck
            if let known = loaded[binding.path] {
                check = known
            } else if broken.contains(where: { $0.file == binding.path }) {
                continue
            } else {
                switch Self.check(binding.path, for: contracts) {
                case .success(let compiled): check = compiled
                case .failure(var problems):
                    problems.service = documents.contains { $0.path == binding.path } ? nil : ownDocuments[binding.path]
                    broken.append(problems)
                    continue
                }
                loaded[binding.path] = check
            }
            if let service = binding.service {
                set.byService[service] = check
            } else {
                set.forEveryService = check
            }
        }
        if !broken.isEmpty { throw .spec(broken) }
        return set
    }

    /// The problems of the documents given with `--spec`, for a run whose contracts have errors: the run names them
    /// with the contracts' (as a compiler names every error of a build), not once the contracts are mended. Each
    /// document is read (its syntax, structure and references); its schemas are compiled once the contracts say which
    /// operations the run uses. A manifest's own `"spec"` is not among them: it is known once its manifest is read.
    package func brokenDocuments() -> [BrokenSpec] {
        var seen = Set<String>()
        return documents.filter { seen.insert($0.path).inserted }.compactMap { binding in
            if case .failure(let problems) = Self.read(binding.path) { problems } else { nil }
        }
    }

    /// `path`'s document, or each of its problems in the compiler's form.
    private static func read(_ path: String) -> Result<SpecDocument, BrokenSpec> {
        do {
            return .success(try SpecDocument.load(contentsOf: path))
        } catch {
            return .failure(BrokenSpec(file: path, diagnostics: error.problems.map(\.diagnostic)))
        }
    }

    /// `path`'s document read and the schemas of the operations `contracts` match compiled, or the problems.
    private static func check(_ path: String, for contracts: [Contract]) -> Result<SpecCheck, BrokenSpec> {
        read(path).flatMap { document in
            do throws(SchemaError) {
                return .success(try SpecCheck(document: document, for: contracts))
            } catch {
                return .failure(BrokenSpec(file: path, diagnostics: [error.diagnostic]))
            }
        }
    }
}

/// An OpenAPI document that cannot be read or has errors: nothing is sent.
public struct BrokenSpec: Error, Sendable, Equatable {
    /// The document's path.
    public var file: String
    /// Each problem in the compiler's form (`openapi.yaml:12:5: error: …`), printed before the run's message as
    /// contract errors are.
    public var diagnostics: [String]
    /// The service whose manifest names the document (its `"spec"`); `nil` for a document given with `--spec`.
    public var service: String?

    /// `--spec FILE: N errors` (`Shop's spec FILE: …` for a manifest's own), for the run's message.
    var summary: String {
        (service.map { "\($0)'s spec" } ?? "--spec") + " \(file): "
            + (diagnostics.count == 1 ? "1 error" : "\(diagnostics.count) errors")
    }
}

/// The loaded documents of a run, by service.
public struct SpecSet: Sendable {
    /// Documents given for one service.
    public var byService: [String: SpecCheck] = [:]
    /// The document given without a service: for every service without one of its own.
    public var forEveryService: SpecCheck?

    /// No documents.
    public init() {}

    /// Whether the run has no document.
    public var isEmpty: Bool { byService.isEmpty && forEveryService == nil }

    /// The check for `contract`'s service.
    public func check(for contract: Contract) -> SpecCheck? {
        byService.isEmpty ? forEveryService : byService[contract.unversionedService] ?? forEveryService
    }

    /// Every document once, in the order of their files.
    var checks: [SpecCheck] {
        var seen = Set<String>()
        return (Array(byService.values) + (forEveryService.map { [$0] } ?? []))
            .filter { seen.insert($0.document.file).inserted }
            .sorted { $0.document.file < $1.document.file }
    }
}

/// How much of a document the run's targets cover: operations any target matched, and documented responses any
/// stub's status chose.
public struct SpecCoverage: Sendable, Equatable {
    /// The document.
    public var file: String
    /// Operations a target matched.
    public var coveredOperations: Int
    /// Operations the document has.
    public var operations: Int
    /// Documented responses (operation and status as written) a stub chose.
    public var coveredResponses: Int
    /// Documented responses.
    public var responses: Int
    /// What no target covers, one line each: `GET /users/{username}` (the whole operation), `GET /users 404`.
    public var uncovered: [String]
    /// The document's keywords Tether does not check (`security`, `callbacks`, `links`, …) and how often each is
    /// written, so that a run says so instead of passing in silence: `security ×3`.
    public var notChecked: [String] = []

    /// `spec coverage (openapi.yaml): 12/40 operations, 15/88 responses`, then `; not checked: security ×3` when
    /// the document has keywords Tether does not check.
    public var line: String {
        "spec coverage (\(file)): \(coveredOperations)/\(operations) operations, \(coveredResponses)/\(responses) "
            + "responses" + (notChecked.isEmpty ? "" : "; not checked: " + notChecked.joined(separator: ", "))
    }

    /// The coverage of `check`'s document by the verdicts of the targets checked against it.
    static func of(_ check: SpecCheck, verdicts: [SpecCheck.Verdict]) -> SpecCoverage {
        let operations = check.document.operations
        var covered = Set<Int>()
        var coveredResponses = Set<String>()
        for verdict in verdicts {
            guard let index = verdict.operation else { continue }
            covered.insert(index)
            if let status = verdict.response { coveredResponses.insert("\(index) \(status)") }
        }
        var uncovered: [String] = []
        var responses = 0
        for (index, operation) in operations.enumerated() {
            responses += operation.responses.count
            if !covered.contains(index) {
                uncovered.append(operation.name)
                continue
            }
            for response in operation.responses where !coveredResponses.contains("\(index) \(response.status)") {
                uncovered.append("\(operation.name) \(response.status)")
            }
        }
        var counts: [(keyword: String, count: Int)] = []
        for unchecked in check.document.uncheckedKeywords {
            if let index = counts.firstIndex(where: { $0.keyword == unchecked.keyword }) {
                counts[index].count += 1
            } else {
                counts.append((unchecked.keyword, 1))
            }
        }
        var coverage = SpecCoverage(
            file: check.document.file, coveredOperations: covered.count, operations: operations.count,
            coveredResponses: coveredResponses.count, responses: responses, uncovered: uncovered)
        coverage.notChecked = counts.map { $0.count == 1 ? $0.keyword : "\($0.keyword) ×\($0.count)" }
        return coverage
    }
}
