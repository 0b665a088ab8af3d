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

/// Where to send each service's requests instead of its manifest's `baseURL` (`--base-url`).
public struct BaseURLOverrides: Sendable, Equatable {
    /// One URL for every service (`--base-url URL`).
    public var all: String?
    /// One URL per service name (`--base-url SERVICE=URL`); wins over `all`.
    public var byService: [String: String]

    /// - Parameters: as the properties.
    public init(all: String? = nil, byService: [String: String] = [:]) {
        self.all = all
        self.byService = byService
    }

    func url(for service: String) -> String? { byService[service] ?? all }
}

/// Reads contract manifests (`contracts/*.json` with `"targets"`) and their sample files into `Contract` values.
public struct ManifestLoader: Sendable {
    /// Where `${VAR}` takes its values from.
    public var environment: [String: String]
    /// `--base-url` values.
    public var baseURLOverrides: BaseURLOverrides
    /// Whether a `${NAME}` whose variable is not set (and has no default) stays as written instead of being an error:
    /// `tether serve` sends no request, so a token its manifests send need not be set to serve their stubs.
    public var keepsUnsetVariables = false
    /// The size from which a manifest is mapped rather than copied (`MappedFiles`); tests lower it.
    package var mappingThreshold = MappedFiles.mappingThreshold
    /// The targets that other versions of the manifests hold alike, built once (`--ref`; see `TargetReuse`).
    package var reuse: TargetReuse.Scope?
    /// The values that earlier steps capture, in scope where a request is being read: `${NAME}` becomes
    /// `StepCaptures.placeholder(for: NAME)`, filled in when the run has the value (a capture wins over the
    /// environment).
    private var captured: Set<String> = []

    /// - Parameters:
    ///   - environment: The variables `${VAR}` expands from; the process environment by default.
    ///   - baseURLOverrides: `--base-url` values.
    public init(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        baseURLOverrides: BaseURLOverrides = BaseURLOverrides()
    ) {
        self.environment = environment
        self.baseURLOverrides = baseURLOverrides
    }

    /// Loads every manifest under `paths` (files, or folders searched recursively for `*.json` manifests). A file
    /// named twice (itself and through its folder) is read once.
    /// - Returns: The contracts, manifest by manifest (files in path order), targets in file order.
    /// - Throws: `ContractErrors` with every problem of every file (as a compiler reports a build), each naming the
    ///   file, line, column and JSON location.
    public func load(paths: [String]) throws(ContractErrors) -> [Contract] {
        var contracts: [Contract] = []
        var errors: [ContractError] = []
        var manifestCount = 0
        var seen: Set<String> = []
        var readInHalves = false
        func take(_ loaded: [Contract]) {
            // One manifest (the usual case) is taken as it is: appending it would hold two copies at once.
            if contracts.isEmpty { contracts = loaded } else { contracts += loaded }
            manifestCount += 1
        }
        for path in paths {
            let files: [String]
            let isFolder: Bool
            switch Self.files(at: path) {
            case .success(let found): (files, isFolder) = found
            case .failure(let error):
                errors.append(error)
                continue
            }
            for file in files {
                guard seen.insert(Self.identity(of: file)).inserted else { continue }
                guard let data = MappedFiles.contents(atPath: file, mappingFrom: mappingThreshold) else {
                    let (exists, isItsFolder) = file.fileKind
                    if isFolder && isItsFolder { continue }  // a folder named `x.json`: searched, not read
                    errors.append(
                        ContractError(
                            file: file,
                            exists
                                ? "cannot read the file: check that it is a readable file" : "no such file or folder"))
                    continue
                }
                // A folder holds manifests and sample files. A sample file is checked when a target uses it; a file
                // that mentions "targets" is taken for a manifest, so a broken one is an error, never skipped; so is
                // one that lost its "targets" (misspelled, renamed) but keeps a manifest's other keys.
                if isFolder && !Self.mentions(#""targets""#, in: data) {
                    if let lost = Self.manifestWithoutTargets(data, file: file) { errors.append(lost) }
                    continue
                }
                // A version of a manifest read before (`--ref`): its targets read as text first, each built only
                // when no version before holds it alike (`TargetReuse`). Anything wrong with it, and it is read as
                // any manifest is, without reuse: its errors are exactly those it gives alone.
                var loader = self
                if reuse?.hasRead(file) == true {
                    if let loaded = readingTargetsAsText(data, file: file) {
                        take(loaded)
                        continue
                    }
                    loader.reuse = nil
                }
                // Every target's place is asked for as it is built, which needs the lines of the whole file counted
                // (`JSONDocument.checkpoints`): a long manifest's are counted on a core that the reading below
                // leaves idle, instead of by the first target's thread while the others wait.
                let checkpoints = JSONLineCheckpoints()
                if data.count >= Self.countingAheadBytes {
                    DeepStack.start(name: "tether-lines") { checkpoints.count(data) }
                }
                let document: JSONDocument
                do {
                    document = try JSONReader().document(data, deferring: Self.inlineStubs, checkpoints: checkpoints)
                    readInHalves = readInHalves || document.tailOffset != nil
                } catch {
                    let advice = error.reason == .invalidUTF8 ? ": save the file as UTF-8" : ""
                    errors.append(
                        ContractError(file: file, line: error.line, column: error.column, error.detail + advice))
                    continue
                }
                // A baseline (`--baseline`) lists targets too; the one suggested is contracts/baseline.json.
                if document.root["tetherBaseline"] != nil {
                    if !isFolder {
                        errors.append(
                            ContractError(
                                file: file,
                                "a baseline file (give it with --baseline), not a contract manifest; drop it from PATH")
                        )
                    }
                    continue
                }
                guard document.root["targets"] != nil else {
                    if !isFolder {  // in a folder: a sample file, not a manifest
                        let root =
                            if case .object = document.root { "it has no \"targets\" key" } else {
                                "its top level is not an object with \"targets\""
                            }
                        errors.append(ContractError(file: file, "not a contract manifest: \(root)"))
                    }
                    continue
                }
                take(loader.manifest(ManifestNode(root: document, file: file), errors: &errors))
            }
        }
        if manifestCount == 0 && errors.isEmpty {
            errors.append(
                ContractError(
                    file: paths.joined(separator: ", "),
                    "no contract manifest found (a manifest is a *.json file with a \"targets\" array)"))
        }
        // Within one manifest, `manifest(_:errors:)` has refused a repeated name already (one service per file).
        if errors.isEmpty && manifestCount > 1 { checkUnique(contracts, errors: &errors) }
        let services = Set(contracts.map(\.service))
        for name in baseURLOverrides.byService.keys.sorted() where !services.contains(name) && errors.isEmpty {
            let hint = didYouMean(name, in: Array(services))
            errors.append(
                ContractError(
                    file: "--base-url",
                    "no contract file declares a service named '\(name)'\(hint); services: \(services.sorted().joined(separator: ", "))"
                ))
        }
        guard errors.isEmpty else { throw ContractErrors(Self.inFileOrder(errors)) }
        // The thread that read a long manifest's second half left free pages amid its heap's (`MappedFiles`).
        if readInHalves { MappedFiles.releaseFreeHeapPages() }
        return contracts
    }

    /// A manifest that a version read before had at the same path, read with its targets as text: each is built
    /// only when no version before holds it alike (`TargetReuse`). `nil` when anything is wrong with it (not JSON, a
    /// baseline, no targets, any error), for it to be read as any manifest is.
    private func readingTargetsAsText(_ data: Data, file: String) -> [Contract]? {
        guard let document = reuse?.readAhead.take(file) ?? readAsText(data, file: file),
            document.root["tetherBaseline"] == nil, document.root["targets"] != nil
        else { return nil }
        var errors: [ContractError] = []
        let loaded = manifest(ManifestNode(root: document, file: file), errors: &errors)
        return errors.isEmpty ? loaded : nil
    }

    /// Reads the manifests under `paths` as text, each target's text found but not read, for `load` to start from
    /// (`--ref`: a version after the first is read as text first, which needs no version before, so it is done
    /// while the first version is read). Only a head start: what is not read here, or not as `load` names it, `load`
    /// reads itself, and it reports every error.
    package func readAhead(paths: [String]) {
        guard let reuse else { return }
        for path in paths {
            guard case .success(let (files, _)) = Self.files(at: path) else { continue }
            for file in files {
                guard let data = MappedFiles.contents(atPath: file, mappingFrom: mappingThreshold),
                    Self.mentions(#""targets""#, in: data), let document = readAsText(data, file: file)
                else { continue }
                document.checkpoints.count(data)  // every target's place is asked for when it is read
                reuse.readAhead.keep(document, for: file)
            }
        }
    }

    /// A version's manifest read with its targets as text, each target compared with the same target's text in the
    /// version read as text before it (most are the same, and are then not checked again); kept for the next.
    private func readAsText(_ data: Data, file: String) -> JSONDocument? {
        let document = try? JSONReader().document(
            data, deferring: Self.targetTexts, like: reuse?.textRead(before: file))
        if let document { reuse?.keepTextRead(document, of: file) }
        return document
    }

    /// The files a path given to `load` names: itself, or a folder's `*.json` files (`jsonFiles(in:)`), and whether
    /// it is a folder; or why it names none.
    private static func files(at path: String) -> Result<(files: [String], isFolder: Bool), ContractError> {
        let (exists, isFolder) = path.fileKind
        guard exists else {
            return .failure(
                ContractError(
                    file: path,
                    "no such file or folder: give a manifest or a folder of manifests (tether verify contracts)"
                ))
        }
        guard isFolder else { return .success(([path], false)) }
        do {
            return .success((try jsonFiles(in: path), true))
        } catch {
            return .failure(error)
        }
    }

    /// What a base URL that is not one should be.
    private static let urlAdvice = ": write it as https://host[:port][/path], with no space in it"

    /// Where a manifest's inline JSON stubs are: read as text, not as trees (see `JSONStub`). Testing SPI: the tests and
    /// the manifest fuzzer read manifests as the loader does.
    @_spi(Testing) public static let inlineStubs: [JSONPathPattern.Step] = [
        .key("targets"), .any, .key("sampleData"), .key("json"),
    ]
    /// The targets of a version read before, read as text (`TargetReuse`).
    private static let targetTexts: [JSONPathPattern.Step] = [.key("targets"), .any]
    /// A target's inline JSON stub, from the target.
    private static let targetStub: [JSONPathPattern.Step] = [.key("sampleData"), .key("json")]

    /// A folder's file without `"targets"` that is still a manifest: its top level is an object with an array at a
    /// key a letter or two from `targets` (`targetz`, `Targets`), or with both `service` and `baseURL` as strings (a
    /// response seldom has both). The run would pass without its targets. Read only when its bytes name one of these,
    /// and `nil` for any other file, one that is not JSON included: a sample's own problems are its target's to
    /// report. An empty file is an error too.
    private static func manifestWithoutTargets(_ data: Data, file: String) -> ContractError? {
        // Empty, it is no sample either (a target's sample file may not be empty), but a manifest emptied by mistake.
        if data.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) {
            return ContractError(
                file: file,
                "an empty file: neither a contract manifest nor a sample file; write the manifest, or remove it")
        }
        guard mentions(#""baseURL""#, in: data) || mentions("arget", in: data),
            let document = try? JSONReader().document(data), case .object(let members) = document.root
        else { return nil }
        let misspelled = members.first { member in
            guard case .array = member.value else { return false }
            return member.key != "targets" && editDistance(member.key.lowercased(), "targets") <= 2
        }
        func isString(_ key: String) -> Bool {
            members.contains { if case .string = $0.value { $0.key == key } else { false } }
        }
        guard misspelled != nil || (isString("service") && isString("baseURL")) else { return nil }
        let node = ManifestNode(root: document, file: file)
        let advice = ": add the targets array, or move the file out of the folder if it is not a manifest"
        if let misspelled, let member = (try? node.freeMembers())?.first(where: { $0.0 == misspelled.key })?.1 {
            return member.keyError("a contract manifest without \"targets\" (did you mean 'targets'?)" + advice)
        }
        return node.error("a contract manifest without \"targets\"" + advice)
    }

    /// JSON's bytes, most common first (`mentions(_:in:)`); any other (upper case, most punctuation) is rarer.
    private static let commonBytes = Array("\" ,:.0123456789etaoinsrhldcumfpgwybvkxjqz{}[]".utf8)

    /// Whether `data` holds the bytes of `text`. A folder's every sample file is searched, up to three times (a Swift
    /// loop over each byte was 43 % of `verify --list` of a folder with an 18 MB sample), so `memchr` looks for the
    /// needle's rarest byte in JSON (`g` of `"targets"`, `U` of `"baseURL"`) and `memcmp` compares around it. Not
    /// `Data.range(of:)`: it copies the whole file into an `NSData` first on Linux; and glibc's `memmem` is not in its
    /// Swift module.
    static func mentions(_ text: String, in data: Data) -> Bool {
        let needle = Array(text.utf8)
        func rank(_ byte: UInt8) -> Int { commonBytes.firstIndex(of: byte) ?? commonBytes.count }
        guard let anchor = needle.indices.max(by: { rank(needle[$0]) < rank(needle[$1]) }) else { return true }
        return data.withUnsafeBytes { raw in
            guard let base = raw.baseAddress, raw.count >= needle.count else { return false }
            // Where the anchor byte may be: the needle's bytes before and after it must fit.
            let end = raw.count - (needle.count - 1 - anchor)
            var from = anchor
            while from < end, let hit = memchr(base + from, Int32(needle[anchor]), end - from) {
                let at = base.distance(to: UnsafeRawPointer(hit))
                if memcmp(base + (at - anchor), needle, needle.count) == 0 { return true }
                from = at + 1
            }
            return false
        }
    }

    /// Errors grouped by file (in the order files were read), each file's in line and column order.
    private static func inFileOrder(_ errors: [ContractError]) -> [ContractError] {
        var fileOrder: [String: Int] = [:]
        for error in errors where fileOrder[error.file] == nil { fileOrder[error.file] = fileOrder.count }
        return errors.enumerated().sorted { a, b in
            let keyA = (fileOrder[a.element.file] ?? 0, a.element.line ?? 0, a.element.column ?? 0, a.offset)
            let keyB = (fileOrder[b.element.file] ?? 0, b.element.line ?? 0, b.element.column ?? 0, b.offset)
            return keyA < keyB
        }.map(\.element)
    }

    /// The same file under any spelling (`contracts/a.json`, `./contracts/a.json`, through a symbolic link).
    /// (`realpath(3)`; a file that does not resolve, which the read then reports, is itself. `URL`'s standardizing
    /// and resolving was 0.3 ms of a one-contract run, its first use in the process.)
    private static func identity(of path: String) -> String {
        path.resolvedPath ?? path
    }

    /// Every `*.json` path under `folder`, sorted, as `FileManager.enumerator(atPath:)` finds them: hidden files and
    /// folders included, symbolic links inside listed but never followed into (no cycles), an unreadable folder
    /// skipped, a folder named `x.json` both listed and searched. A `folder` that is itself a symbolic link is followed
    /// (`tether verify contracts-link/`, as `find -H` does); its paths keep the spelling it was given.
    ///
    /// On Glibc the walk is `opendir`/`readdir` itself: Foundation's enumerator makes a `URL` per entry and strips the
    /// base path from each with `replacingOccurrences` (1.1 M of the 30 M instructions of a one-contract run, ~0.2 ms).
    /// Elsewhere it is Foundation's.
    static func jsonFiles(in folder: String) throws(ContractError) -> [String] {
        #if canImport(Glibc)
            // The walk starts at the folder as given, followed if it is a symbolic link (stat, not lstat); below it,
            // links are never entered. (Not through `URL(fileURLWithPath:)`'s path: its first use in a process was
            // 0.3 ms of a one-contract run, and the system takes `a/./b/` as it is.)
            let root = folder
            var info = stat()
            guard stat(root, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return [] }
            var relatives: [String] = []
            collectJSONFiles(in: root, relative: "", into: &relatives)
            return relatives.map { folder.pathAppending($0) }.sorted()
        #else
            // The enumerator does not follow a link at the top: it walks where the link leads.
            let root = URL(fileURLWithPath: folder).resolvingSymlinksInPath().path
            guard let enumerator = FileManager.default.enumerator(atPath: root) else {
                throw ContractError(file: folder, "cannot read the folder")
            }
            var files: [String] = []
            while let relative = enumerator.nextObject() as? String {
                if relative.hasSuffix(".json") { files.append(folder.pathAppending(relative)) }
            }
            return files.sorted()
        #endif
    }

    #if canImport(Glibc)
        /// Adds to `relatives` the `*.json` entries of the folder at `path` (which is `relative` below the root) and of
        /// its subfolders, recursively; symbolic links are entries, never folders.
        private static func collectJSONFiles(in path: String, relative: String, into relatives: inout [String]) {
            guard let folder = opendir(path) else { return }
            defer { closedir(folder) }
            while let entry = readdir(folder) {
                let (name, type) = withUnsafePointer(to: &entry.pointee.d_name) { name in
                    (
                        name.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) },
                        entry.pointee.d_type
                    )
                }
                guard name != ".", name != ".." else { continue }
                let entryPath = path + "/" + name
                let entryRelative = relative.isEmpty ? name : relative + "/" + name
                if name.hasSuffix(".json") { relatives.append(entryRelative) }
                var isFolder = Int32(type) == DT_DIR
                if Int32(type) == DT_UNKNOWN {  // some file systems do not fill d_type
                    var info = stat()
                    isFolder = lstat(entryPath, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
                }
                if isFolder { collectJSONFiles(in: entryPath, relative: entryRelative, into: &relatives) }
            }
        }
    #endif

    private func checkUnique(_ contracts: [Contract], errors: inout [ContractError]) {
        var seen: [String: String] = [:]
        for contract in contracts {
            let key = "\(contract.service)\u{0}\(contract.name)"
            if let first = seen[key] {
                errors.append(
                    ContractError(
                        file: contract.source,
                        "target '\(contract.name)' of service '\(contract.service)' is declared twice (also in \(first)); target names must be unique within a service"
                    ))
            }
            seen[key] = contract.source
        }
    }

    /// Runs `body`; a thrown error is added to `errors` and the result is `nil`, so the next part is still checked.
    private func attempt<T>(_ errors: inout [ContractError], _ body: () throws(ContractError) -> T) -> T? {
        do {
            return try body()
        } catch {
            errors.append(error)
            return nil
        }
    }

    // MARK: - One manifest

    private static let manifestKeys = [
        "service", "baseURL", "headers", "targets", "description", "stubBehavior", "rules", "spec", "auth", "steps",
    ]
    private static let targetKeys = [
        "name", "description", "method", "path", "query", "headers", "task", "sampleData", "sampleResponse",
        "validationType", "stubBehavior", "pending", "rules", "steps",
    ]

    /// The manifest's contracts; every problem goes to `errors` (then the contracts do not matter: nothing is sent).
    private func manifest(_ node: ManifestNode, errors: inout [ContractError]) -> [Contract] {
        let errorCount = errors.count
        var keyErrors: [ContractError] = []
        let keys = attempt(&errors) { () throws(ContractError) in
            try node.members(allowed: Self.manifestKeys, reporting: &keyErrors)
        }
        errors += keyErrors
        guard let keys else { return [] }
        let service = attempt(&errors) { () throws(ContractError) -> String in
            guard let serviceNode = keys["service"] else {
                throw node.error("missing key \"service\" (the service's name, e.g. \"GitHub\")")
            }
            let service = try serviceNode.string()
            guard !service.isEmpty else { throw serviceNode.error("must not be empty") }
            return service
        }
        let targets = attempt(&errors) { () throws(ContractError) -> (node: ManifestNode, count: Int) in
            guard let targetsNode = keys["targets"] else { throw node.error("missing key \"targets\"") }
            return (targetsNode, try targetsNode.elementCount())
        }
        var serviceHeaders =
            attempt(&errors) { () throws(ContractError) in try keys["headers"].map(headerEntries) ?? [] } ?? []
        let serviceBehavior =
            attempt(&errors) { () throws(ContractError) in try keys["stubBehavior"].map(Self.stubBehavior) }
            ?? nil

        let serviceRules =
            attempt(&errors) { () throws(ContractError) in try keys["rules"].map(Self.rules) } ?? nil

        var serviceSecrets: [String] = []
        let baseURL = attempt(&errors) { () throws(ContractError) -> String in
            let baseURLNode = keys["baseURL"]
            let baseURL: String
            if let service, let override = baseURLOverrides.url(for: service) {
                baseURL = override
                // Replaced in this run (`--base-url`, `--mock`), the manifest's own is still checked as far as it can
                // be without its variables: a broken manifest is broken whatever a run replaces.
                if let baseURLNode {
                    let written = try baseURLNode.string()
                    guard written.contains("${") || HTTPRequest.isHTTPURL(written) else {
                        throw baseURLNode.error("'\(written)' is not an http or https URL\(Self.urlAdvice)")
                    }
                }
            } else {
                guard let baseURLNode else { throw node.error("missing key \"baseURL\" (or pass --base-url)") }
                baseURL = try expand(try baseURLNode.string(), at: baseURLNode, secrets: &serviceSecrets)
            }
            guard HTTPRequest.isHTTPURL(baseURL) else {
                // Quoted as written, not as expanded: an expanded value may hold a secret.
                let written = service.flatMap(baseURLOverrides.url(for:)) ?? (try? baseURLNode?.string()) ?? baseURL
                // At the key, which the message names (`baseURL: 'ftp://x' is not …`); else at the service.
                let problem = "'\(written)' is not an http or https URL\(Self.urlAdvice)"
                throw baseURLNode?.error(problem) ?? node.error("baseURL " + problem)
            }
            return baseURL
        }

        // "auth": Basic becomes the service's Authorization header (a target's own wins, as for any service header);
        // OAuth2 client credentials travel with each contract, for the runner to sign in once per run.
        var signIn: ServiceSignIn?
        if let authNode = keys["auth"] {
            _ = attempt(&errors) { () throws(ContractError) in
                let kinds = try authNode.members(allowed: ["oauth2", "basic", "login"])
                guard kinds.count == 1 else {
                    throw authNode.error("write one of \"oauth2\", \"basic\" or \"login\"")
                }
                if let basic = kinds["basic"] {
                    let fields = try basic.members(allowed: ["user", "password"])
                    guard let userNode = fields["user"], let passwordNode = fields["password"] else {
                        throw basic.error("basic needs \"user\" and \"password\"")
                    }
                    let user = try expand(try userNode.string(), at: userNode, secrets: &serviceSecrets)
                    let password = try expand(try passwordNode.string(), at: passwordNode, secrets: &serviceSecrets)
                    let credentials = "Basic " + Data((user + ":" + password).utf8).base64EncodedString()
                    serviceHeaders.removeAll { $0.0.lowercased() == "authorization" }
                    serviceHeaders.append(("Authorization", credentials, basic))
                }
                if let login = kinds["login"] {
                    let fields = try login.members(allowed: [
                        "method", "path", "query", "headers", "task", "token", "tokenHeader", "header", "format",
                    ])
                    guard let pathNode = fields["path"] else {
                        throw login.error("login needs \"path\" (relative to the service's baseURL, as a target's)")
                    }
                    let path = try expand(try pathNode.string(), at: pathNode, secrets: &serviceSecrets)
                    let method = try fields["method"]?.string().uppercased() ?? "POST"
                    let query = try query(fields["query"], secrets: &serviceSecrets)
                    var headers: [HTTPHeader] = []
                    for (name, field) in try fields["headers"]?.freeMembers() ?? [] {
                        headers.append(
                            HTTPHeader(name, try expand(try field.string(), at: field, secrets: &serviceSecrets)))
                    }
                    let task =
                        try fields["task"].map { (node) throws(ContractError) in
                            try requestTask(node, secrets: &serviceSecrets)
                        } ?? .plain
                    let tokenPath = try fields["token"].map { (node) throws(ContractError) -> JSONPathPattern in
                        do {
                            return try JSONPathPattern(try node.string())
                        } catch let error as JSONPathPatternError {
                            throw node.error("token: \(error)")
                        } catch {
                            throw node.error("token: \(error)")
                        }
                    }
                    let tokenHeader = try fields["tokenHeader"]?.string()
                    guard (tokenPath == nil) != (tokenHeader == nil) else {
                        throw login.error(
                            "login needs one of \"token\" (a JSON path in the answer, e.g. \"$.access_token\") or "
                                + "\"tokenHeader\" (a response header)")
                    }
                    let format = try fields["format"]?.string() ?? "Bearer {token}"
                    guard format.contains("{token}") else {
                        throw (fields["format"] ?? login).error("format must hold {token}: e.g. \"Bearer {token}\"")
                    }
                    signIn = .login(
                        LoginCall(
                            request: RequestBuilder.request(
                                method: method, baseURL: baseURL ?? "http://invalid.invalid", path: path, query: query,
                                headers: headers, task: task),
                            tokenPath: tokenPath, tokenHeader: tokenHeader,
                            header: try fields["header"]?.string() ?? "Authorization", format: format,
                            declaration: login.keyPlace))
                }
                if let node = kinds["oauth2"] {
                    let fields = try node.members(allowed: [
                        "tokenURL", "clientID", "clientSecret", "scope", "audience", "form",
                    ])
                    func value(_ key: String, required: Bool) throws(ContractError) -> String? {
                        guard let field = fields[key] else {
                            if required { throw node.error("oauth2 needs \"\(key)\"") }
                            return nil
                        }
                        return try expand(try field.string(), at: field, secrets: &serviceSecrets)
                    }
                    let tokenURL = try value("tokenURL", required: true) ?? ""
                    guard HTTPRequest.isHTTPURL(tokenURL) else {
                        throw (fields["tokenURL"] ?? node).error("tokenURL must be a whole http or https URL")
                    }
                    let secret = try value("clientSecret", required: true) ?? ""
                    // The client secret is a secret whatever its length or origin.
                    if !secret.isEmpty { serviceSecrets.append(secret) }
                    var form: [HTTPHeader] = []
                    if let formNode = fields["form"] {
                        for (name, field) in try formNode.freeMembers() {
                            form.append(
                                HTTPHeader(name, try expand(try field.string(), at: field, secrets: &serviceSecrets)))
                        }
                    }
                    signIn = .oauth2(
                        OAuth2ClientCredentials(
                            tokenURL: tokenURL, clientID: try value("clientID", required: true) ?? "",
                            clientSecret: secret,
                            scope: try value("scope", required: false),
                            audience: try value("audience", required: false),
                            form: form, declaration: node.keyPlace))
                }
            }
        }

        let serviceHeadersWithAuth = serviceHeaders
        let folder = node.file.pathDeletingLastComponent
        let specPath = attempt(&errors) { () throws(ContractError) -> String? in
            guard let specNode = keys["spec"] else { return nil }
            let written = try specNode.string()
            guard !written.isEmpty else {
                throw specNode.error("must name the service's OpenAPI document, relative to this manifest")
            }
            let path = written.hasPrefix("/") || folder.isEmpty ? written : folder + "/" + written
            guard FileManager.default.fileExists(atPath: path) else {
                throw specNode.error(
                    "'\(written)' does not exist (looked for \(path)): a manifest's spec is relative to the manifest's "
                        + "folder")
            }
            return path
        }
        // Service-level steps run once per run; what their `before` steps capture, every target may use.
        var serviceSteps: Steps?
        var serviceScope: Set<String> = []
        if let stepsNode = keys["steps"] {
            serviceSteps = attempt(&errors) { () throws(ContractError) in
                try steps(
                    stepsNode, baseURL: baseURL ?? "http://invalid.invalid", serviceHeaders: serviceHeadersWithAuth,
                    scope: &serviceScope, secrets: &serviceSecrets)
            }
        }
        var contracts: [Contract] = []
        if let targets {
            let serviceSecrets = serviceSecrets
            let serviceScope = serviceScope
            let reused = reuse?.manifest(node)
            let base = baseURL ?? "http://invalid.invalid"
            contracts = buildTargets(targets.node, count: targets.count, service: service ?? "", errors: &errors) {
                isOwnThread in
                // A part built on a thread of its own reads its own copies of what every target of the service
                // reads (see `ManifestNode.withOwnReferences()`).
                let loader = isOwnThread ? withOwnReferences() : self
                let (service, baseURL, folder) =
                    isOwnThread
                    ? ((service ?? "").withOwnStorage, base.withOwnStorage, folder.withOwnStorage)
                    : (service ?? "", base, folder)
                let serviceHeaders =
                    isOwnThread
                    ? serviceHeadersWithAuth.map { ($0.withOwnStorage, $1?.withOwnStorage, $2.withOwnReferences()) }
                    : serviceHeadersWithAuth
                let serviceSecrets = isOwnThread ? serviceSecrets.map(\.withOwnStorage) : serviceSecrets
                let reader = reused?.reader()  // what this part adds is kept when it ends
                return { element, targetNode, errors in
                    // Read as text: a version after the first, whose targets versions before may hold alike. (The
                    // first version's are all built: looking each up among those its other parts had built was 1 ms
                    // of a 5-tag run, for nothing.)
                    let isText = targetNode.deferredText != nil
                    if isText, let contract = reader?.contract(for: targetNode, element: element) { return contract }
                    var node = targetNode
                    if case .null = targetNode.value, isText {
                        // Read as text (a version after the first), and held alike by no version before: read now.
                        do throws(JSONParseError) {
                            node = ManifestNode(
                                element: element, of: targets.node,
                                document: try JSONReader().document(
                                    of: targetNode.index, in: targetNode.document, deferring: Self.targetStub))
                        } catch {
                            errors.append(targetNode.error(error.detail))  // the manifest is read again, whole
                            return nil
                        }
                    }
                    var secrets = serviceSecrets
                    let contract = loader.target(
                        node, service: service, baseURL: baseURL, serviceHeaders: serviceHeaders,
                        serviceBehavior: serviceBehavior ?? .immediate,
                        serviceRules: serviceRules?.rules ?? ContractRules(), serviceScope: serviceScope,
                        folder: folder,
                        secrets: &secrets, errors: &errors)
                    if let contract { reader?.keep(contract, builtFrom: node, element: element) }
                    return contract
                }
            }
        }
        if let serviceRules, errors.count == errorCount {
            // A service default applies where its path is; one that no stub has is a typo that checks nothing.
            let documents = serviceRules.rules.hasPathRules ? contracts.map(\.sampleData.jsonValue) : []
            for (rule, path) in serviceRules.rules.pathRules
            where !documents.contains(where: { !ContractRules.stubValues(at: path, in: $0).isEmpty }) {
                errors.append(
                    serviceRules.node(rule, path).error(
                        "rules.\(rule): path '\(path)' matches nothing in any stub of service '\(service ?? "")': "
                            + "fix the path, or move the rule to the targets that have it"))
            }
        }
        if let specPath = specPath ?? nil {
            for index in contracts.indices { contracts[index].specPath = specPath }
        }
        if let signIn {
            for index in contracts.indices { contracts[index].signIn = signIn }
        }
        if let serviceSteps, !serviceSteps.isEmpty {
            for index in contracts.indices { contracts[index].serviceSteps = serviceSteps }
        }
        return errors.count == errorCount ? contracts : []
    }

    /// A target's `"name"` node, whatever its other keys (their errors are the target's own, reported already).
    private static func nameNode(of target: ManifestNode) -> ManifestNode? {
        var ignored: [ContractError] = []
        return try? target.members(allowed: targetKeys, reporting: &ignored)["name"]
    }

    /// Each element of `targets` built by `build`, given its offset (nil when it has errors, which it adds to the
    /// errors it is given): the contracts in element order when none has errors, else none, and every error, a
    /// repeated target name among them (a name is taken by the first target that declares it, built or not).
    ///
    /// A long array is split between the machine's cores: building targets is most of loading a manifest, and
    /// loading is the one part of a run before the first request. Each part writes its contracts straight into
    /// the result's storage (a copy of 100,000 contracts would be megabytes at the moment memory peaks).
    private func buildTargets(
        _ targets: ManifestNode, count: Int, service: String, errors: inout [ContractError],
        _ makeBuild: @Sendable (_ isOwnThread: Bool) -> (Int, ManifestNode, inout [ContractError]) -> Contract?
    ) -> [Contract] {
        let parts = count >= Self.targetsPerPart * 2 ? min(ProcessEnvironment.activeProcessorCount * 2, 64) : 1
        let partLength = (count + parts - 1) / parts
        @Sendable func range(of part: Int) -> Range<Int> {
            min(count, part * partLength)..<min(count, (part + 1) * partLength)
        }
        var repeats: [(offset: Int, first: Int, name: String)] = []
        var partErrors: [ContractError] = []
        let contracts = [Contract](unsafeUninitializedCapacity: count) { buffer, initializedCount in
            let slots = UncheckedSendable(buffer)  // the parts write disjoint pieces of it
            @Sendable func buildPart(_ part: Int) -> PartResult {
                let range = range(of: part)
                var result = PartResult()
                // The part's contracts are stored up to its first failed target; the names of those after it are
                // kept for the repeated-name check.
                let targets = parts == 1 ? targets : targets.withOwnReferences()
                let build = makeBuild(parts > 1)
                targets.forEachElement(in: range) { offset, targetNode in
                    // A large manifest's pages go back to the page cache as its targets are read (`MappedFiles`).
                    MappedFiles.releaseReadPages(afterTarget: offset - range.lowerBound)
                    guard let contract = build(offset, targetNode, &result.errors) else {
                        // A target with errors still takes part in the repeated-name check, so that a repeat is
                        // reported with its other errors, not after they are mended.
                        if let name = try? Self.nameNode(of: targetNode)?.string() {
                            result.laterNames.append((offset, name))
                        }
                        return
                    }
                    if result.built == offset - range.lowerBound {
                        (slots.value.baseAddress! + offset).initialize(to: contract)
                        result.built += 1
                    } else {
                        result.laterNames.append((offset, contract.name))
                    }
                }
                return result
            }
            // On threads whose stack holds the deepest stub, not Dispatch's (see `DeepStack`).
            let results =
                parts == 1
                ? [buildPart(0)] : DeepStack.concurrentMap(name: "tether-manifest-part", iterations: parts, buildPart)
            var firstOffset: [String: Int] = [:]  // target name → the element of `targets` that first declared it
            firstOffset.reserveCapacity(count)
            func note(_ offset: Int, _ name: String) {
                if let first = firstOffset[name] {
                    repeats.append((offset, first, name))
                } else {
                    firstOffset[name] = offset
                }
            }
            for (part, result) in results.enumerated() {
                let start = range(of: part).lowerBound
                for offset in start..<start + result.built { note(offset, buffer[offset].name) }
                for (offset, name) in result.laterNames { note(offset, name) }
            }
            partErrors = results.flatMap(\.errors)
            let isComplete = results.enumerated().allSatisfy { $1.built == range(of: $0).count }
            if isComplete && repeats.isEmpty {
                initializedCount = count
            } else {
                for (part, result) in results.enumerated() {
                    (buffer.baseAddress! + range(of: part).lowerBound).deinitialize(count: result.built)
                }
                initializedCount = 0
            }
        }
        errors += partErrors
        if !repeats.isEmpty {
            var byOffset = Dictionary(repeats.map { ($0.offset, $0) }, uniquingKeysWith: { first, _ in first })
            targets.forEachElement { offset, targetNode in
                guard let repeated = byOffset.removeValue(forKey: offset) else { return }
                errors.append(
                    (Self.nameNode(of: targetNode) ?? targetNode).error(
                        "target '\(repeated.name)' is declared twice in service '\(service)' (first at \(targets.elementLocation(repeated.first))); target names must be unique within a service"
                    ))
            }
        }
        return contracts
    }

    /// From this size on, a manifest's lines are counted on a thread of their own while it is read (about 0.4 ms a
    /// megabyte; below it, starting the thread costs more than it hides).
    private static let countingAheadBytes = 4 << 20

    /// Below this many targets per part, a manifest is built on one thread.
    private static let targetsPerPart = 256

    /// One target's contract, or `nil` when it has errors (each added to `errors`; every key is checked).
    private func target(
        _ node: ManifestNode, service: String, baseURL: String, serviceHeaders: [(String, String?, ManifestNode)],
        serviceBehavior: StubBehavior, serviceRules: ContractRules, serviceScope: Set<String>, folder: String,
        secrets: inout [String], errors: inout [ContractError]
    ) -> Contract? {
        let errorCount = errors.count
        var keyErrors: [ContractError] = []
        let keys = attempt(&errors) { () throws(ContractError) in
            try node.members(allowed: Self.targetKeys, reporting: &keyErrors)
        }
        errors += keyErrors
        guard let keys else { return nil }
        // The target's steps first: what its `before` steps capture, its own request may use.
        var scope = serviceScope
        var targetSteps: Steps?
        if let stepsNode = keys["steps"] {
            var afterScope = scope
            targetSteps = attempt(&errors) { () throws(ContractError) in
                try steps(
                    stepsNode, baseURL: baseURL, serviceHeaders: serviceHeaders, scope: &afterScope, secrets: &secrets,
                    beforeScope: &scope)
            }
            // Steps with an error still say what they capture: the target's use of it is no second error.
            if targetSteps == nil { scope.formUnion(Self.capturedNames(in: stepsNode)) }
        }
        let loader = scope == captured ? self : with(captured: scope)
        let name = attempt(&errors) { () throws(ContractError) -> String in
            guard let nameNode = keys["name"] else {
                throw node.error("missing key \"name\" (the target's name, e.g. \"userRepositories\")")
            }
            let name = try nameNode.string()
            guard !name.isEmpty else { throw nameNode.error("must not be empty") }
            return name
        }
        let method = attempt(&errors) { () throws(ContractError) -> String in try Self.method(keys["method"]) }
        let path = attempt(&errors) { () throws(ContractError) -> String in
            try keys["path"].map { (p) throws(ContractError) in
                try loader.expand(try p.string(), at: p, secrets: &secrets)
            } ?? ""
        }
        let query = attempt(&errors) { () throws(ContractError) -> [(String, String)] in
            try loader.query(keys["query"], secrets: &secrets)
        }
        let headers = attempt(&errors) { () throws(ContractError) -> [HTTPHeader] in
            try loader.headers(serviceHeaders, then: keys["headers"], secrets: &secrets)
        }
        let task = attempt(&errors) { () throws(ContractError) in
            try keys["task"].map { (t) throws(ContractError) in try loader.requestTask(t, secrets: &secrets) } ?? .plain
        }
        let sampleData = attempt(&errors) { () throws(ContractError) in
            try keys["sampleData"].map { (s) throws(ContractError) in try stubBody(s, folder: folder) } ?? .none
        }
        let sampleResponse = attempt(&errors) { () throws(ContractError) in
            try keys["sampleResponse"].map(stubResponse) ?? .network(statusCode: 200, headers: [])
        }
        let validation = attempt(&errors) { () throws(ContractError) in
            try keys["validationType"].map(validationType) ?? ValidationType.none
        }
        let behavior = attempt(&errors) { () throws(ContractError) in
            try keys["stubBehavior"].map(Self.stubBehavior) ?? serviceBehavior
        }
        let isPending = attempt(&errors) { () throws(ContractError) -> Bool in
            guard let node = keys["pending"] else { return false }
            guard case .bool(let value) = node.value else {
                throw node.error(
                    "expected true or false, got \(node.value.typeName) (\"pending\": true keeps a new target from failing the gate until it has passed once)"
                )
            }
            return value
        }
        let targetRules = attempt(&errors) { () throws(ContractError) in try keys["rules"].map(Self.rules) } ?? nil
        guard errors.count == errorCount, let name, let method, let path, let query, let headers, let task,
            let sampleData, let sampleResponse, let validation, let behavior, let isPending
        else { return nil }
        // The target's own paths must all be in its stub; the service's apply where they are. Then the stub must
        // satisfy the merged rules (a stub that breaks its own formats or values is a contract error).
        // Each of these reads the stub's document: a stub kept as text is parsed once for all of them, and only
        // when a rule has a path to look for (the contract keeps the text).
        let hasPathRules = serviceRules.hasPathRules || targetRules?.rules.hasPathRules == true
        let stub = hasPathRules ? sampleData.jsonValue.map(StubBody.json) ?? sampleData : sampleData
        // A target without rules of its own (most) has the service's: no merge, and nothing of its own to check.
        let serviceApplicable = serviceRules.applicable(to: stub)
        let rules = targetRules.map { $0.rules.merged(over: serviceApplicable) } ?? serviceApplicable
        var ruleProblems = targetRules?.rules.problems(stub: stub) ?? []
        if ruleProblems.isEmpty { ruleProblems = rules.problems(stub: stub) }
        for problem in ruleProblems {
            let at = targetRules?.node(problem.rule, problem.path) ?? keys["rules"] ?? node
            errors.append(at.error("target '\(name)': " + problem.message))
        }
        guard ruleProblems.isEmpty else { return nil }
        let request = RequestBuilder.request(
            method: method, baseURL: baseURL, path: path, query: query, headers: headers, task: task)
        var contract = Contract(
            service: service, name: name, baseURL: baseURL, request: request, sampleData: sampleData,
            sampleResponse: sampleResponse, validStatusCodes: validation.validStatusCodes, source: node.file,
            secrets: secrets, rules: rules,
            stubSource: keys["sampleData"].flatMap { Self.stubSource($0, folder: folder) },
            stubBehavior: behavior, declaration: keys["name"].map(\.keyPlace), isPending: isPending)
        if let targetSteps, !targetSteps.isEmpty { contract.steps = targetSteps }
        return contract
    }

    /// A target's or a step's `"method"`, upper-cased: letters only; GET when there is none.
    private static func method(_ node: ManifestNode?) throws(ContractError) -> String {
        guard let node else { return "GET" }
        let text = try node.string().uppercased()
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else {
            throw node.error("'\(text)' is not an HTTP method")
        }
        return text
    }

    /// A target's or a step's `"query"`: a flat object of strings, each `${VAR}` expanded, in order.
    private func query(_ node: ManifestNode?, secrets: inout [String]) throws(ContractError) -> [(String, String)] {
        var query: [(String, String)] = []
        for (key, valueNode) in try node?.freeMembers() ?? [] {
            query.append((key, try expand(try valueNode.string(), at: valueNode, secrets: &secrets)))
        }
        return query
    }

    /// This loader with storage of its own for what it holds, for a thread of its own (see
    /// `ManifestNode.withOwnReferences()`).
    private func withOwnReferences() -> ManifestLoader {
        var loader = self
        loader.environment = Dictionary(
            uniqueKeysWithValues: environment.map { ($0.key.withOwnStorage, $0.value.withOwnStorage) })
        loader.baseURLOverrides.all = baseURLOverrides.all?.withOwnStorage
        loader.baseURLOverrides.byService = Dictionary(
            uniqueKeysWithValues: baseURLOverrides.byService.map { ($0.key.withOwnStorage, $0.value.withOwnStorage) })
        loader.captured = Set(captured.map(\.withOwnStorage))
        return loader
    }

    /// This loader with `names` in scope as captured values.
    private func with(captured names: Set<String>) -> ManifestLoader {
        var loader = self
        loader.captured = names
        return loader
    }

    /// A request's headers: the service's, then its own (`node`), where one of the same name replaces the service's
    /// and `null` removes it; every `${VAR}` expanded.
    private func headers(
        _ serviceHeaders: [(String, String?, ManifestNode)], then node: ManifestNode?, secrets: inout [String]
    ) throws(ContractError) -> [HTTPHeader] {
        var merged: [(String, String?, ManifestNode)] = serviceHeaders
        if let node {
            for entry in try headerEntries(node) {
                merged.removeAll { HTTPHeader($0.0, "").isNamed(entry.0) }
                merged.append(entry)
            }
        }
        var headers: [HTTPHeader] = []
        for (headerName, value, valueNode) in merged {
            guard let value else { continue }
            let expanded = try expand(value, at: valueNode, secrets: &secrets)
            guard HTTPHeader.isSafeValue(expanded) else {
                throw valueNode.error(
                    "the value, once its variables are expanded, holds a line break or NUL (it would split the request)"
                )
            }
            headers.append(HTTPHeader(headerName, expanded))
        }
        return headers
    }

    // MARK: - steps

    private static let stepKeys = [
        "name", "description", "method", "path", "query", "headers", "task", "expect", "capture",
    ]

    /// A `"steps"` object: `before` and `after`, each a list of requests written as targets are, with `expect` and
    /// `capture`. `scope` holds the captured names the first step may use; each step adds its own for those after
    /// it, and it ends with every name. `beforeScope`, when given, is set to the names in scope once the `before`
    /// steps have run: what the target may use.
    private func steps(
        _ node: ManifestNode, baseURL: String, serviceHeaders: [(String, String?, ManifestNode)],
        scope: inout Set<String>, secrets: inout [String]
    ) throws(ContractError) -> Steps {
        var ignored = Set<String>()
        return try steps(
            node, baseURL: baseURL, serviceHeaders: serviceHeaders, scope: &scope, secrets: &secrets,
            beforeScope: &ignored)
    }

    private func steps(
        _ node: ManifestNode, baseURL: String, serviceHeaders: [(String, String?, ManifestNode)],
        scope: inout Set<String>, secrets: inout [String], beforeScope: inout Set<String>
    ) throws(ContractError) -> Steps {
        let keys = try node.members(allowed: ["before", "after"])
        var names = Set<String>()
        func list(_ key: String) throws(ContractError) -> [Step] {
            guard let listNode = keys[key] else { return [] }
            var steps: [Step] = []
            for element in try listNode.array() {
                let step = try with(captured: scope).step(
                    element, baseURL: baseURL, serviceHeaders: serviceHeaders, secrets: &secrets)
                guard names.insert(step.name).inserted else {
                    throw element.error(
                        "a second step named '\(step.name)' in these steps: give each step a name of its own")
                }
                for capture in step.captures { scope.insert(capture.name) }
                steps.append(step)
            }
            return steps
        }
        let before = try list("before")
        beforeScope = scope
        let after = try list("after")
        return Steps(before: before, after: after)
    }

    /// One step: a request as a target's, `"expect": {"status": [201]}` and `"capture": {"NAME": "$.path"}` (or
    /// `"header:Name"`).
    private func step(
        _ node: ManifestNode, baseURL: String, serviceHeaders: [(String, String?, ManifestNode)],
        secrets: inout [String]
    ) throws(ContractError) -> Step {
        let keys = try node.members(allowed: Self.stepKeys)
        guard let nameNode = keys["name"] else {
            throw node.error("missing key \"name\" (the step's name, for messages: e.g. \"createRecord\")")
        }
        let name = try nameNode.string()
        guard !name.isEmpty else { throw nameNode.error("must not be empty") }
        let method = try Self.method(keys["method"])
        let path =
            try keys["path"].map { (p) throws(ContractError) in try expand(try p.string(), at: p, secrets: &secrets) }
            ?? ""
        let query = try query(keys["query"], secrets: &secrets)
        let headers = try headers(serviceHeaders, then: keys["headers"], secrets: &secrets)
        let task = try keys["task"].map { (t) throws(ContractError) in try requestTask(t, secrets: &secrets) } ?? .plain
        var expected: [Int]?
        if let expect = keys["expect"] {
            let fields = try expect.members(allowed: ["status"])
            if let status = fields["status"] {
                var codes: [Int] = []
                if case .array = status.value {
                    for element in try status.array() { codes.append(try element.integer(in: 100...599)) }
                } else {
                    codes.append(try status.integer(in: 100...599))
                }
                guard !codes.isEmpty else { throw status.error("give at least one status, e.g. [201, 200]") }
                expected = codes
            }
        }
        var captures: [Step.Capture] = []
        for (variable, sourceNode) in try keys["capture"]?.freeMembers() ?? [] {
            guard let first = variable.first, first.isLetter || first == "_",
                variable.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") })
            else {
                throw sourceNode.error(
                    "'\(variable)' is not a variable name: use letters, digits and _ (it is used as ${\(variable)})")
            }
            let written = try sourceNode.string()
            let source: Step.Source
            if written.lowercased().hasPrefix("header:") {
                let header = String(written.dropFirst("header:".count)).trimmingWhitespace()
                guard HTTPHeader.isValidName(header) else {
                    throw sourceNode.error("'\(header)' is not a header name: write \"header:ETag\"")
                }
                source = .header(header)
            } else {
                do {
                    source = .body(try JSONPathPattern(written))
                } catch {
                    throw sourceNode.error(
                        "capture \(variable): \(error) (write a JSON path such as \"$.data.id\", or \"header:ETag\")")
                }
            }
            captures.append(
                Step.Capture(name: variable, source: source, isSecret: Self.isSecretCapture(variable, source)))
        }
        return Step(
            name: name,
            request: RequestBuilder.request(
                method: method, baseURL: baseURL, path: path, query: query, headers: headers, task: task),
            expectedStatuses: expected, captures: captures, declaration: nameNode.keyPlace)
    }

    /// The names the `before` steps of `node` capture, read as far as they can be.
    private static func capturedNames(in node: ManifestNode) -> Set<String> {
        var names = Set<String>()
        let before = (try? node.freeMembers())?.first { $0.0 == "before" }?.1
        for step in (try? before?.array()) ?? [] {
            let capture = (try? step.freeMembers())?.first { $0.0 == "capture" }?.1
            for (name, _) in (try? capture?.freeMembers()) ?? [] { names.insert(name) }
        }
        return names
    }

    /// Whether a captured value is a secret: its name says so, or it comes from a credential header.
    private static func isSecretCapture(_ name: String, _ source: Step.Source) -> Bool {
        if case .header(let header) = source, HTTPHeader(header, "").isCredential { return true }
        return name.namesASecret
    }

    // MARK: - rules

    /// Rules as read, with the node of each path so that a problem found later points at it.
    private struct WrittenRules {
        var rules = ContractRules()
        var nodes: [String: ManifestNode] = [:]
        let whole: ManifestNode

        func node(_ rule: String, _ path: JSONPathPattern) -> ManifestNode {
            nodes[rule + "\u{0}" + path.description] ?? whole
        }
    }

    private static let ruleKeys = ["ignore", "optional", "nullable", "maps", "strict", "formats", "values", "status"]

    /// A `"rules"` object: every key checked (did-you-mean), every path parsed, every format and status named.
    private static func rules(_ node: ManifestNode) throws(ContractError) -> WrittenRules {
        var written = WrittenRules(whole: node)
        let keys = try node.members(allowed: ruleKeys)
        func pattern(_ rule: String, _ pathNode: ManifestNode, text: String) throws(ContractError) -> JSONPathPattern {
            do {
                let pattern = try JSONPathPattern(text)
                written.nodes[rule + "\u{0}" + pattern.description] = pathNode
                return pattern
            } catch {
                throw pathNode.error("rules.\(rule): \(error.description)")
            }
        }
        func list(_ rule: String) throws(ContractError) -> [JSONPathPattern] {
            guard let listNode = keys[rule] else { return [] }
            var patterns: [JSONPathPattern] = []
            for element in try listNode.array() {
                patterns.append(try pattern(rule, element, text: try element.string()))
            }
            return patterns
        }
        written.rules.ignore = try list("ignore")
        written.rules.optional = try list("optional")
        written.rules.nullable = try list("nullable")
        written.rules.maps = try list("maps")
        if let strict = keys["strict"] {
            guard case .bool(let value) = strict.value else {
                throw strict.error("expected true or false, got \(strict.value.typeName)")
            }
            written.rules.isStrict = value
        }
        if let formats = keys["formats"] {
            let names = ContractRules.Format.allCases.map(\.rawValue)
            for (text, formatNode) in try formats.freeMembers() {
                let name = try formatNode.string()
                guard let format = ContractRules.Format(rawValue: name) else {
                    throw formatNode.error(
                        "rules.formats: unknown format '\(name)'\(didYouMean(name, in: names)); "
                            + "expected one of: \(names.joined(separator: ", "))")
                }
                written.rules.formats.append(.init(try pattern("formats", formatNode, text: text), format))
            }
        }
        if let values = keys["values"] {
            for (text, listNode) in try values.freeMembers() {
                var allowed: [JSONValue] = []
                for element in try listNode.array() {
                    switch element.value {
                    case .array, .object:
                        throw element.error(
                            "rules.values: expected a string, number, boolean or null, got \(element.value.typeName)")
                    default: allowed.append(element.value)
                    }
                }
                guard !allowed.isEmpty else {
                    throw listNode.error("rules.values: the list is empty, so no value could pass; list the values")
                }
                written.rules.values.append(.init(try pattern("values", listNode, text: text), allowed))
            }
        }
        if let status = keys["status"] {
            if case .string(let name) = status.value {
                let names = ["successCodes", "successAndRedirectCodes"]
                guard let named = ValidationType.namedCases.first(where: { $0.name == name && $0 != .none }) else {
                    throw status.error(
                        "rules.status: unknown name '\(name)'\(didYouMean(name, in: names)); expected a list of "
                            + "status codes such as [200, 304], or one of: \(names.joined(separator: ", "))")
                }
                written.rules.status = named.statusCodes
            } else {
                var codes: [Int] = []
                for element in try status.array() { codes.append(try element.integer(in: 100...599)) }
                guard !codes.isEmpty else {
                    throw status.error("rules.status: the list is empty, so no status could pass; list the codes")
                }
                written.rules.status = codes
            }
        }
        return written
    }

    /// `"immediate"` or `{"delayed": seconds}` (Moya's `StubBehavior`; only `tether serve` acts on it).
    private static func stubBehavior(_ node: ManifestNode) throws(ContractError) -> StubBehavior {
        let (name, value) = try node.oneOf(["immediate", "delayed"])
        guard name == "delayed" else { return .immediate }
        guard let value else { throw node.error("'delayed' needs seconds, e.g. {\"delayed\": 1.5}") }
        let seconds: Double
        let written: String
        switch value.value {
        case .integer(let number): (seconds, written) = (Double(number), String(number))
        case .double(let number): (seconds, written) = (number, String(number))
        default: throw value.error("expected a number of seconds, got \(value.value.typeName)")
        }
        guard (0...StubBehavior.longestDelay).contains(seconds) else {
            throw value.error("\(written) seconds is out of range 0...\(Int(StubBehavior.longestDelay))")
        }
        return .delayed(seconds: seconds)
    }

    /// Where the body of `sampleData` (a checked node) is written.
    private static func stubSource(_ node: ManifestNode, folder: String) -> StubSource? {
        guard case .object(let members) = node.value, let (kind, value) = members.first.map({ ($0.key, $0.value) })
        else { return nil }
        let (line, column) = node.document.lineAndColumn(ofValue: node.index)
        if kind == "file", case .string(let relative) = value {
            let file = relative.hasPrefix("/") ? relative : folder.pathAppending(relative)
            return StubSource(
                file: file, manifest: node.file, manifestLocation: node.location, suffix: nil, line: line,
                column: column)
        }
        var suffix = ""
        JSONPath.appendKey(kind, to: &suffix)
        return StubSource(
            file: node.file, manifest: node.file, manifestLocation: node.location, suffix: suffix, line: line,
            column: column)
    }

    private func headerEntries(_ node: ManifestNode) throws(ContractError) -> [(String, String?, ManifestNode)] {
        var entries: [(String, String?, ManifestNode)] = []
        for (name, valueNode) in try node.freeMembers() {
            guard HTTPHeader.isValidName(name) else {
                throw valueNode.error("'\(name)' is not a valid header name")
            }
            if case .null = valueNode.value {
                entries.append((name, nil, valueNode))
            } else {
                let value = try valueNode.string()
                guard HTTPHeader.isSafeValue(value) else {
                    throw valueNode.error("a header value must not contain a line break")
                }
                entries.append((name, value, valueNode))
            }
        }
        return entries
    }

    // MARK: - task

    private static let taskCases = [
        "requestPlain", "requestData", "requestJSONEncodable", "requestParameters", "requestCompositeData",
        "requestCompositeParameters",
    ]

    private func requestTask(_ node: ManifestNode, secrets: inout [String]) throws(ContractError) -> RequestTask {
        let (name, value) = try node.oneOf(Self.taskCases)
        func required() throws(ContractError) -> ManifestNode {
            guard let value else { throw node.error("'\(name)' needs a value, e.g. {\"\(name)\": {...}}") }
            return value
        }
        switch name {
        case "requestPlain":
            if let value, value.value != .null, value.value != .object([]) {
                throw value.error("requestPlain takes no value")
            }
            return .plain
        case "requestData":
            return .data(try bytes(try required(), secrets: &secrets))
        case "requestJSONEncodable":
            return .json(try expandJSON(try required(), secrets: &secrets))
        case "requestParameters":
            let keys = try required().members(allowed: ["parameters", "encoding"])
            guard let parameters = keys["parameters"] else { throw try required().error("missing key \"parameters\"") }
            return .parameters(
                try parameterObject(parameters, secrets: &secrets),
                encoding: try encoding(keys["encoding"], allowed: RequestEncoding.allCases))
        case "requestCompositeData":
            let keys = try required().members(allowed: ["bodyData", "urlParameters"])
            guard let body = keys["bodyData"] else { throw try required().error("missing key \"bodyData\"") }
            let url =
                try keys["urlParameters"].map { (u) throws(ContractError) in try parameterObject(u, secrets: &secrets) }
                ?? .object([])
            return .compositeData(body: try bytes(body, secrets: &secrets), urlParameters: url)
        default:  // requestCompositeParameters
            let keys = try required().members(allowed: ["bodyParameters", "bodyEncoding", "urlParameters"])
            guard let body = keys["bodyParameters"] else {
                throw try required().error("missing key \"bodyParameters\"")
            }
            let url =
                try keys["urlParameters"].map { (u) throws(ContractError) in try parameterObject(u, secrets: &secrets) }
                ?? .object([])
            let bodyEncoding = try encoding(keys["bodyEncoding"], allowed: [.json, .httpBody, .url])
            return .compositeParameters(
                body: try parameterObject(body, secrets: &secrets), bodyEncoding: bodyEncoding, urlParameters: url)
        }
    }

    private func parameterObject(_ node: ManifestNode, secrets: inout [String]) throws(ContractError) -> JSONValue {
        guard case .object = node.value else {
            throw node.error("expected an object of parameters, got \(node.value.typeName)")
        }
        return try expandJSON(node, secrets: &secrets)
    }

    private func encoding(_ node: ManifestNode?, allowed: [RequestEncoding]) throws(ContractError) -> RequestEncoding {
        guard let node else { return allowed.contains(.url) ? .url : allowed[0] }
        let name = try node.string()
        guard let encoding = RequestEncoding(rawValue: name), allowed.contains(encoding) else {
            let names = allowed.map(\.rawValue)
            let hint = didYouMean(name, in: names)
            throw node.error("unknown encoding '\(name)'\(hint); expected one of: \(names.joined(separator: ", "))")
        }
        return encoding
    }

    /// `{"text": "..."}` or `{"base64": "..."}` as bytes.
    private func bytes(_ node: ManifestNode, secrets: inout [String]) throws(ContractError) -> Data {
        let keys = try node.members(allowed: ["text", "base64"])
        if let text = keys["text"], keys.count == 1 {
            return Data(try expand(try text.string(), at: text, secrets: &secrets).utf8)
        }
        if let encoded = keys["base64"], keys.count == 1 {
            guard let data = Data(wrappedBase64: try encoded.string()) else {
                throw encoded.error("not valid base64")
            }
            return data
        }
        throw node.error("expected exactly one of: text, base64")
    }

    // MARK: - sampleData, sampleResponse, validationType

    private func stubBody(_ node: ManifestNode, folder: String) throws(ContractError) -> StubBody {
        let keys = try node.members(allowed: ["file", "json", "text", "base64"])
        guard keys.count == 1, let (kind, value) = keys.first else {
            throw node.error("expected exactly one of: file, json, text, base64")
        }
        switch kind {
        case "json":
            return .json(value.deferredText.map(JSONStub.init(checkedText:)) ?? JSONStub(value.value))
        case "text":
            let text = try value.string()
            return text.isEmpty ? .none : .text(Data(text.utf8))
        case "base64":
            guard let data = Data(wrappedBase64: try value.string()) else {
                throw value.error("not valid base64")
            }
            return data.isEmpty ? .none : .text(data)
        default:  // file
            let relative = try value.string()
            let path = relative.hasPrefix("/") ? relative : folder.pathAppending(relative)
            guard let data = FileManager.default.contents(atPath: path) else {
                throw value.error("cannot read sample file '\(relative)' (looked for \(path))")
            }
            let (body, parseError) = StubBody.classify(data)
            guard relative.lowercased().hasSuffix(".json") else { return body }
            if let parseError {
                // Where the bytes go wrong is in the sample file: point there, and say which target uses it.
                throw ContractError(
                    file: path, line: parseError.line, column: parseError.column,
                    "\(parseError.detail) (the sample file of \(value.location) in \(value.file))")
            }
            if body == .none {
                throw value.error("sample file '\(relative)' is empty (leave sampleData out for Moya's Data())")
            }
            return body
        }
    }

    private func stubResponse(_ node: ManifestNode) throws(ContractError) -> StubResponse {
        let (name, value) = try node.oneOf(["networkResponse", "response", "networkError"])
        guard let value else { throw node.error("'\(name)' needs a value, e.g. {\"\(name)\": {...}}") }
        switch name {
        case "networkResponse":
            let keys = try value.members(allowed: ["statusCode"])
            guard let status = keys["statusCode"] else { throw value.error("missing key \"statusCode\"") }
            return .network(statusCode: try status.integer(in: 100...599), headers: [])
        case "response":
            let keys = try value.members(allowed: ["statusCode", "headers"])
            guard let status = keys["statusCode"] else { throw value.error("missing key \"statusCode\"") }
            var headers: [HTTPHeader] = []
            if let headersNode = keys["headers"] {
                for (headerName, valueNode) in try headersNode.freeMembers() {
                    headers.append(HTTPHeader(headerName, try valueNode.string()))
                }
            }
            return .network(statusCode: try status.integer(in: 100...599), headers: headers)
        default:
            let keys = try value.members(allowed: ["code", "description", "domain"])
            let code =
                try keys["code"].map { (c) throws(ContractError) -> Int in
                    guard case .integer(let number) = c.value else {
                        throw c.error("expected an integer, got \(c.value.typeName)")
                    }
                    return Int(number)
                } ?? 0
            let description = try keys["description"]?.string() ?? ""
            return .networkError(code: code, description: description)
        }
    }

    private func validationType(_ node: ManifestNode) throws(ContractError) -> ValidationType {
        let (name, value) = try node.oneOf(ValidationType.names)
        if let named = ValidationType.namedCases.first(where: { $0.name == name }) { return named }
        guard let value else { throw node.error("customCodes needs a list, e.g. {\"customCodes\": [200, 304]}") }
        var codes: [Int] = []
        for element in try value.array() { codes.append(try element.integer(in: 100...599)) }
        return .customCodes(codes)
    }

    // MARK: - ${VAR}

    /// Expands `${NAME}` and `${NAME:-default}` from the environment; `$${` stays a literal `${`. Each expanded
    /// value of 6 or more characters becomes a secret for the reports.
    func expand(_ text: String, at node: ManifestNode, secrets: inout [String]) throws(ContractError) -> String {
        // Most values have no `$` at all: a byte test, before the search for `${` (Foundation's `range(of:)` was 4 % of
        // a load).
        guard text.utf8.contains(UInt8(ascii: "$")), text.contains("${") else { return text }
        var result = ""
        var rest = Substring(text)
        while let start = rest.rangeOfText("${") {
            if start.lowerBound > rest.startIndex, rest[rest.index(before: start.lowerBound)] == "$" {
                result += rest[..<rest.index(before: start.lowerBound)] + "${"
                rest = rest[start.upperBound...]
                continue
            }
            result += rest[..<start.lowerBound]
            guard let end = rest[start.upperBound...].firstIndex(of: "}") else {
                throw node.error("'${' without a closing '}' in \"\(text)\"")
            }
            let expression = rest[start.upperBound..<end]
            let parts = expression.split(separator: ":-", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            guard let first = name.first, first.isLetter || first == "_",
                name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" })
            else {
                throw node.error(
                    "'${\(expression)}' is not a variable reference; write ${NAME} (or $${ for a literal ${)")
            }
            if captured.contains(name) {
                result += StepCaptures.placeholder(for: name)
            } else if let value = environment[name], !(parts.count == 2 && value.isEmpty) {
                if value.count >= 6 { secrets.append(value) }
                result += value
            } else if parts.count == 2 {
                result += parts[1]
            } else if keepsUnsetVariables {
                result += "${" + expression + "}"
            } else {
                throw node.error("environment variable \(name) is not set (export it, or write ${\(name):-default})")
            }
            rest = rest[rest.index(after: end)...]
        }
        return result + rest
    }

    private func expandJSON(_ node: ManifestNode, secrets: inout [String]) throws(ContractError) -> JSONValue {
        switch node.value {
        case .string(let text): return .string(try expand(text, at: node, secrets: &secrets))
        case .array:
            var elements: [JSONValue] = []
            for element in try node.array() { elements.append(try expandJSON(element, secrets: &secrets)) }
            return .array(elements)
        case .object:
            var members: [JSONMember] = []
            for (key, child) in try node.freeMembers() {
                members.append(JSONMember(key, try expandJSON(child, secrets: &secrets)))
            }
            return .object(members)
        default: return node.value
        }
    }
}

/// What each part of `buildTargets` did: how many contracts it stored (all of its range when none failed), the names
/// of the targets built after its first failure, and its errors.
private struct PartResult: Sendable {
    var built = 0
    var laterNames: [(Int, String)] = []
    var errors: [ContractError] = []
}
