#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One HTTP header as written, name case preserved.
public struct HTTPHeader: Sendable, Equatable {
    /// The name, case as written (names compare case-insensitively: `isNamed`).
    public var name: String
    /// The value, as sent.
    public var value: String

    /// - Parameters: the name and the value.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// A request, fully built: every `${VAR}` already expanded, the URL already percent-encoded.
public struct HTTPRequest: Sendable, Equatable {
    /// `GET`, `POST`, …, upper case.
    public var method: String
    /// The absolute URL, percent-encoded, query included.
    public var url: String
    /// The headers to send, in order.
    public var headers: [HTTPHeader]
    /// The body, or `nil` for none.
    public var body: Data?

    /// - Parameters: as the properties.
    public init(method: String, url: String, headers: [HTTPHeader] = [], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// What a target's stub body (`sampleData`) is.
public enum StubBody: Sendable, Equatable {
    /// Absent or empty (Moya's `Data()` default): only the status can be checked.
    case none
    /// A JSON document: the live body must have its structure.
    case json(JSONStub)
    /// Bytes that are not JSON (text or base64 stubs).
    case text(Data)

    /// A JSON stub made from a value.
    public static func json(_ value: JSONValue) -> StubBody { .json(JSONStub(value)) }

    /// The JSON document, or `nil` for a stub that is not JSON.
    public var jsonValue: JSONValue? {
        guard case .json(let stub) = self else { return nil }
        return stub.value
    }
}

/// A stub's JSON document.
///
/// Made from a value (HAR imports, `StubBody.json(_:)`), it holds the value. Read from bytes (a manifest's inline
/// stub, a sample file, a Swift target's `sampleData`), it holds the text instead, checked once, and parses it each
/// time `value` is asked for (`tether serve`, an export, a rule's path), keeping nothing: 100,000 inline stubs as
/// trees took about 250 MB beside a 120 MB manifest, as text no more than the manifest itself. A response check
/// compiles the stub's shape straight from simdjson's read of the text.
public struct JSONStub: Sendable, Equatable {
    private enum Storage: Sendable {
        case value(JSONValue)
        case text(Data)
    }

    private let storage: Storage

    /// A stub holding `value`.
    public init(_ value: JSONValue) {
        storage = .value(value)
    }

    /// A stub holding `text`, one JSON document that `JSONReader()` reads without error (the caller has read it).
    init(checkedText text: Data) {
        storage = .text(text)
    }

    /// The document's text, when the stub keeps it (read from a manifest); `nil` when it holds a value.
    public var text: Data? {
        guard case .text(let text) = storage else { return nil }
        return text
    }

    /// The document (parsed again from the text, each time, for a stub read from a manifest).
    public var value: JSONValue {
        switch storage {
        case .value(let value):
            return value
        case .text(let text):
            do {
                return try JSONReader().value(text)
            } catch {
                preconditionFailure("a stub's text was read without error by the manifest loader, now: \(error)")
            }
        }
    }

    /// Whether the two documents are equal: the same text, or equal values.
    public static func == (lhs: JSONStub, rhs: JSONStub) -> Bool {
        if case .text(let left) = lhs.storage, case .text(let right) = rhs.storage, left == right { return true }
        return lhs.value == rhs.value
    }
}

/// What a target's stub answers (`sampleResponse`, Moya's `EndpointSampleResponse`).
public enum StubResponse: Sendable, Equatable {
    /// `.networkResponse(statusCode, data)` (no headers) or `.response(HTTPURLResponse, data)` (headers that must match).
    case network(statusCode: Int, headers: [HTTPHeader])
    /// `.networkError(error)`: cannot be checked against a service; reported as skipped.
    case networkError(code: Int, description: String)
}

/// Where a stub's body is written, so that a tool can rewrite exactly that (`tether update`) and point at it.
public struct StubSource: Sendable, Equatable {
    /// The file that holds the body: the sample file, or the manifest for an inline `json`, `text` or `base64`.
    public var file: String
    /// Where in `file` the body is: empty for a whole sample file, else its JSON location (`targets[2].sampleData.json`).
    public var location: String {
        get { locationAfterManifestLocation.map { manifestLocation + $0 } ?? otherLocation }
        set { (locationAfterManifestLocation, otherLocation) = Self.split(newValue, after: manifestLocation) }
    }
    /// The manifest that declares the target.
    public var manifest: String
    /// The JSON location of the target's `sampleData` in the manifest (`targets[2].sampleData`).
    public var manifestLocation: String {
        get { storedManifestLocation }
        set {
            let location = self.location
            storedManifestLocation = newValue
            self.location = location
        }
    }
    /// The 1-based line and column of `manifestLocation` in the manifest.
    public var line: Int
    /// See `line`.
    public var column: Int

    /// `location` is kept as what follows `manifestLocation` (`.json`: a short string, stored inline) when it
    /// starts with it, as an inline stub's does, else whole: a second copy of `targets[12345].sampleData` per target
    /// was 6 MB of a 100,000-target run.
    private var locationAfterManifestLocation: String?
    private var otherLocation: String
    private var storedManifestLocation: String

    private static func split(_ location: String, after prefix: String) -> (after: String?, other: String) {
        // Bytes, not characters: a prefix equal only canonically (`é` as one scalar, or as `e` and an accent) would
        // come back in the other spelling.
        guard !prefix.isEmpty, location.utf8.starts(with: prefix.utf8) else { return (nil, location) }
        return (String(decoding: location.utf8.dropFirst(prefix.utf8.count), as: UTF8.self), "")
    }

    /// - Parameters: as the properties.
    public init(file: String, location: String, manifest: String, manifestLocation: String, line: Int, column: Int) {
        self.init(
            file: file, manifest: manifest, manifestLocation: manifestLocation,
            location: Self.split(location, after: manifestLocation), line: line, column: column)
    }

    /// A source whose `location` is `manifestLocation` followed by `suffix` (`.json`), or empty when `suffix` is
    /// `nil` (a sample file's): the manifest loader's, which knows the parts.
    init(file: String, manifest: String, manifestLocation: String, suffix: String?, line: Int, column: Int) {
        self.init(
            file: file, manifest: manifest, manifestLocation: manifestLocation, location: (suffix, ""), line: line,
            column: column)
    }

    /// The source as the same target, in another version of the manifest, has it: the manifest at `file` (the
    /// body in it), `lines` further down, the target at `target.to` (`targets[7]`) where it was at `target.from`.
    mutating func move(toManifest file: String, lines: Int, target: (from: String, to: String)) {
        self.file = file
        manifest = file
        line += lines
        guard target.from != target.to else { return }
        for location in [\Self.storedManifestLocation, \Self.otherLocation]
        where self[keyPath: location].utf8.starts(with: target.from.utf8) {
            self[keyPath: location] =
                target.to
                + String(decoding: self[keyPath: location].utf8.dropFirst(target.from.utf8.count), as: UTF8.self)
        }
    }

    private init(
        file: String, manifest: String, manifestLocation: String, location: (after: String?, other: String), line: Int,
        column: Int
    ) {
        self.file = file
        self.manifest = manifest
        self.storedManifestLocation = manifestLocation
        (locationAfterManifestLocation, otherLocation) = location
        self.line = line
        self.column = column
    }
}

/// A place in a source file: where a target is declared, for annotations and `file:line:column:` diagnostics.
public struct SourcePlace: Sendable, Equatable {
    /// The file, as the run was given it (`contracts/github.json`).
    public var file: String
    /// 1-based.
    public var line: Int
    /// 1-based, in characters.
    public var column: Int

    /// - Parameters: as the properties.
    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }
}

/// One stub taken as a contract: the request to send and what the answer must look like.
///
/// A value with its fields behind one shared, immutable reference: a run copies contracts at every step (the
/// runner, each result, the redactor, the coverage, each sink), and a copy of the fields is some twenty references
/// to retain and release (18 copies per contract, 7 % of a 2,000-contract run's instructions). Setting a property
/// changes the fields in place when no other contract shares them, else makes a new reference with that field changed
/// (copy on write), so the value semantics are those of a plain struct.
public struct Contract: Sendable, Equatable {
    private struct Fields: Sendable, Equatable {
        var service: String
        var name: String
        var baseURL: String
        var request: HTTPRequest
        var sampleData: StubBody
        var source: String
        var stubSource: StubSource?
        var declaration: SourcePlace?
        var seldom: SeldomBox
    }

    /// The fields most targets leave at their defaults (a 200 stub, no rules, no secrets, …).
    private struct Seldom: Sendable, Equatable {
        var sampleResponse: StubResponse = .network(statusCode: 200, headers: [])
        var validStatusCodes: [Int]?
        var secrets: [String] = []
        var credentials: [String] = []
        var rules = ContractRules()
        var stubBehavior: StubBehavior = .immediate
        var isPending = false
        var specPath: String?
        var signIn: ServiceSignIn?
        var steps: Steps?
        var serviceSteps: Steps?
        var ref: String?
    }

    /// `Seldom` behind a reference, one shared by every target that has the defaults: their 130 bytes were a third
    /// of each contract's fields (13 MB of 100,000 contracts).
    private final class SeldomBox: Sendable, Equatable {
        let fields: Seldom
        /// Whether what a response's check reads here (the stub's status and headers, the valid statuses, the rules,
        /// the steps) is the defaults: two such contracts check alike without comparing them (`checksAlike`; each
        /// version of a `--ref` run has a box of its own, for its ref).
        let checksAsDefaults: Bool
        /// Whether the stub answers (`.network`, not `.networkError`), and whether the service signs in: asked of
        /// every contract before a run sends anything, read here without copying the fields out.
        let isNetworkStub: Bool
        let signsIn: Bool

        private init(_ fields: Seldom) {
            self.fields = fields
            isNetworkStub = if case .network = fields.sampleResponse { true } else { false }
            signsIn = fields.signIn != nil
            let defaults = Seldom()
            checksAsDefaults =
                fields.sampleResponse == defaults.sampleResponse && fields.validStatusCodes == defaults.validStatusCodes
                && fields.rules == defaults.rules && fields.steps == nil
        }
        static let defaults = SeldomBox(Seldom())
        static func holding(_ fields: Seldom) -> SeldomBox { fields == defaults.fields ? defaults : SeldomBox(fields) }
        static func == (a: SeldomBox, b: SeldomBox) -> Bool { a === b || a.fields == b.fields }
    }

    /// Changed in place only while one contract holds it (`update`); otherwise a setter makes a new one. Reads
    /// skip the run-time exclusivity check (a getter per field per step of a run): nothing else can be writing.
    private final class Storage: @unchecked Sendable {
        @exclusivity(unchecked) var fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private var storage: Storage

    /// The service (manifest `service`, or the Swift target's type) this target belongs to: the JUnit suite.
    public var service: String {
        get { storage.fields.service }
        set { update { $0.service = newValue } }
    }
    /// The target's name: the JUnit test case.
    public var name: String {
        get { storage.fields.name }
        set { update { $0.name = newValue } }
    }
    /// The service's base URL as used for this run (after `--base-url`).
    public var baseURL: String {
        get { storage.fields.baseURL }
        set { update { $0.baseURL = newValue } }
    }
    /// The request to send.
    public var request: HTTPRequest {
        get { storage.fields.request }
        set { update { $0.request = newValue } }
    }

    /// Whether the contract sends the request `other` sends, compared where each keeps it, without a copy of either
    /// (a run at five git refs compares 10,000 requests with those sent already).
    package func sendsTheRequest(of other: Contract) -> Bool {
        if storage === other.storage { return true }
        // Two requests with the same bits are equal (the same strings' and arrays' buffers, the same inline bytes), and
        // most compared here are: a later version's target takes the request of the earlier one it matches
        // (`TargetReuse`). Compared in place, that needs no copy of either: `==` compares copies, each retained
        // and released (two of each per compare, 8,000 compares in a run at five git refs).
        let sameBits = withUnsafeBytes(of: &storage.fields.request) { request in
            withUnsafeBytes(of: &other.storage.fields.request) { otherRequest in
                var offset = 0
                while offset + 8 <= request.count {
                    guard
                        request.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                            == otherRequest.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                    else { return false }
                    offset += 8
                }
                return request[offset...].elementsEqual(otherRequest[offset...])
            }
        }
        return sameBits || storage.fields.request == other.storage.fields.request
    }

    /// Whether the stub's body is text (`StubBody.text`), asked where the contract keeps it, without a copy of it:
    /// the checks for XML stubs ask it of every target of a run before anything is sent.
    package var hasTextStub: Bool {
        if case .text = storage.fields.sampleData { true } else { false }
    }

    /// The stub's body: what the live body's structure must match.
    public var sampleData: StubBody {
        get { storage.fields.sampleData }
        set { update { $0.sampleData = newValue } }
    }
    /// The stub's status and headers, or a network error.
    public var sampleResponse: StubResponse {
        get { storage.fields.seldom.fields.sampleResponse }
        set { updateSeldom { $0.sampleResponse = newValue } }
    }
    /// Status codes that must answer, whatever the stub says (Moya's `ValidationType`); `nil` means none.
    public var validStatusCodes: [Int]? {
        get { storage.fields.seldom.fields.validStatusCodes }
        set { updateSeldom { $0.validStatusCodes = newValue } }
    }
    /// Where the contract came from (a manifest path, or a Swift type), for messages.
    public var source: String {
        get { storage.fields.source }
        set { update { $0.source = newValue } }
    }
    /// Values that must never appear in a report: secrets the environment put into the request, sensitive headers.
    public var secrets: [String] {
        get { storage.fields.seldom.fields.secrets }
        set { updateSeldom { $0.secrets = newValue } }
    }
    /// Credentials the run knows besides the request's headers and base URL, hidden whatever their length (as the
    /// base URL's, `HTTPRequest.credentials(in:)`): those written in the request's URL when it is not below `baseURL`
    /// (a Swift target's endpoint that goes elsewhere), and those a replayed HAR file recorded
    /// (`HARArchive.shareCredentials(with:)`).
    public var credentials: [String] {
        get { storage.fields.seldom.fields.credentials }
        set { updateSeldom { $0.credentials = newValue } }
    }
    /// What may vary in the live body beyond the default structure rules; the structure check takes it as a value.
    public var rules: ContractRules {
        get { storage.fields.seldom.fields.rules }
        set { updateSeldom { $0.rules = newValue } }
    }
    /// Where the stub's body is written (a sample file, or a place in the manifest), for tools that rewrite stubs;
    /// `nil` for Swift targets and for targets without `sampleData`.
    public var stubSource: StubSource? {
        get { storage.fields.stubSource }
        set { update { $0.stubSource = newValue } }
    }
    /// How the stub answers when served (`tether serve`): at once or after a delay (Moya's `StubBehavior`;
    /// `manifest "stubBehavior"`). `verify` ignores it: the live service answers when it answers.
    public var stubBehavior: StubBehavior {
        get { storage.fields.seldom.fields.stubBehavior }
        set { updateSeldom { $0.stubBehavior = newValue } }
    }
    /// Where the target is declared: the `"name"` key of its entry in the manifest; `nil` for Swift targets (their
    /// call site is the test's own `sourceLocation`, which `TetherTesting` already points issues at).
    public var declaration: SourcePlace? {
        get { storage.fields.declaration }
        set { update { $0.declaration = newValue } }
    }
    /// Whether the target is new and may not fail the gate until it has passed once (manifest `"pending": true`,
    /// Pact's pending pacts); `--baseline` remembers the first pass.
    public var isPending: Bool {
        get { storage.fields.seldom.fields.isPending }
        set { updateSeldom { $0.isPending = newValue } }
    }

    /// The service's OpenAPI document (manifest `"spec"`, relative to the manifest, as a path from the working
    /// directory); `nil` when the manifest names none. `tether verify` checks the target against it (`--spec`).
    public var specPath: String? {
        get { storage.fields.seldom.fields.specPath }
        set { updateSeldom { $0.specPath = newValue } }
    }

    /// How the service signs in before its targets are sent (manifest `"auth": {"oauth2": …}` or `{"login": …}`);
    /// `nil` for none (`"basic"` is a service header).
    public var signIn: ServiceSignIn? {
        get { storage.fields.seldom.fields.signIn }
        set { updateSeldom { $0.signIn = newValue } }
    }

    /// Whether the contract's service signs in (`signIn != nil`, read in place: a run asks it of every contract).
    package var signsIn: Bool { storage.fields.seldom.signsIn }

    /// Whether the stub is a network response (`.network`), read in place: a run asks it of every contract.
    package var isNetworkStub: Bool { storage.fields.seldom.isNetworkStub }

    /// Whether the contract holds any secret, read in place: a run asks it of every result.
    package var hasSecrets: Bool {
        !storage.fields.seldom.fields.secrets.isEmpty || !storage.fields.seldom.fields.credentials.isEmpty
    }

    /// The requests sent before and after this target (manifest target `"steps"`); `nil` for none.
    public var steps: Steps? {
        get { storage.fields.seldom.fields.steps }
        set { updateSeldom { $0.steps = newValue } }
    }

    /// The requests sent once per run before the first and after the last target of this target's service
    /// (manifest service-level `"steps"`); `nil` for none. Every target of the service holds the same.
    public var serviceSteps: Steps? {
        get { storage.fields.seldom.fields.serviceSteps }
        set { updateSeldom { $0.serviceSteps = newValue } }
    }

    /// The git ref the contract was read at (`tether verify --ref v3.2.0`), its service then named `GitHub@v3.2.0`;
    /// `nil` for the working tree.
    public var ref: String? {
        get { storage.fields.seldom.fields.ref }
        set { updateSeldom { $0.ref = newValue } }
    }

    /// The service's name without `@REF`: what a sign-in, a service's steps and `--spec SERVICE=FILE` are for, the
    /// same at every version.
    public var unversionedService: String {
        let service = service
        guard let ref else { return service }
        // Compared as bytes in place (a run asks for each result): no `"@" + ref` made each time.
        let end = service.utf8.withContiguousStorageIfAvailable { name in
            ref.utf8.withContiguousStorageIfAvailable { ref -> Int? in
                let end = name.count - ref.count - 1
                guard end >= 0, name[end] == UInt8(ascii: "@"), name[(end + 1)...].elementsEqual(ref) else {
                    return nil
                }
                return end
            }
        }
        switch end {
        case .some(.some(let end?)): return String(decoding: service.utf8.prefix(end), as: UTF8.self)
        case .some(.some(nil)): return service
        default:  // a string not stored as UTF-8 (bridged on Darwin)
            guard service.hasSuffix("@" + ref) else { return service }
            return String(decoding: service.utf8.dropLast(ref.utf8.count + 1), as: UTF8.self)
        }
    }

    /// Copy on write, as the standard library's collections do: a storage no other contract holds is changed in
    /// place (a `--ref` run sets three fields of each contract of each version: 30,000 copies of the fields).
    private mutating func update(_ change: (inout Fields) -> Void) {
        if isKnownUniquelyReferenced(&storage) {
            change(&storage.fields)
        } else {
            var fields = storage.fields
            change(&fields)
            storage = Storage(fields)
        }
    }

    private mutating func updateSeldom(_ change: (inout Seldom) -> Void) {
        var seldom = storage.fields.seldom.fields
        change(&seldom)
        update { $0.seldom = .holding(seldom) }
    }

    /// Sets `ref` on each of a version's contracts (`--ref`), as its setter would. The contracts whose other seldom
    /// fields are the defaults share one box for it: the setter makes one a contract, comparing it with the defaults
    /// first (3 K instructions each).
    package static func setRef(_ ref: String, on contracts: inout [Contract]) {
        var shared: SeldomBox?
        for index in contracts.indices {
            guard contracts[index].storage.fields.seldom === SeldomBox.defaults else {
                contracts[index].ref = ref
                continue
            }
            let box = shared ?? .holding(Seldom(ref: ref))
            shared = box
            contracts[index].update { $0.seldom = box }
        }
    }

    /// The contract as the same target has it in another version of its manifest (`TargetReuse`): at `file`, `lines`
    /// further down, at `target.to` (`targets[7]`) where it was at `target.from`. Only for a target without steps
    /// whose body is in the manifest (a sample file's path would not move with it).
    package func moved(toManifest file: String, lines: Int, target: (from: String, to: String)) -> Contract {
        var contract = self
        contract.update { fields in
            fields.source = file
            if var place = fields.declaration {
                place.file = file
                place.line += lines
                fields.declaration = place
            }
            if var stub = fields.stubSource {
                stub.move(toManifest: file, lines: lines, target: target)
                fields.stubSource = stub
            }
        }
        return contract
    }

    /// Whether two targets that sent the same request are checked alike: the same stub (its text, when both keep
    /// one), status, headers, rules and expected statuses, and no steps. Their service, name and place may differ
    /// (versions). Compared in the fields' storage, with no copy of a field (a run at 5 refs asks it 8,000 times:
    /// 25 M instructions through the public properties). `sendingOneRequest`: the caller knows both send equal requests
    /// (the runner's share of one request, when nothing signs them), which are then not compared again.
    package func checksAlike(_ other: Contract, sendingOneRequest: Bool = false) -> Bool {
        let (a, b) = (storage, other.storage)
        let sameStub: Bool
        if case .json(let left) = a.fields.sampleData, case .json(let right) = b.fields.sampleData,
            let leftText = left.text, let rightText = right.text
        {
            sameStub = leftText == rightText
        } else {
            sameStub = a.fields.sampleData == b.fields.sampleData
        }
        guard sameStub, sendingOneRequest || a.fields.request == b.fields.request else { return false }
        let (left, right) = (a.fields.seldom, b.fields.seldom)
        if left.checksAsDefaults && right.checksAsDefaults { return true }
        guard left.fields.steps == nil, right.fields.steps == nil else { return false }
        return left === right
            || (left.fields.sampleResponse == right.fields.sampleResponse
                && left.fields.validStatusCodes == right.fields.validStatusCodes
                && left.fields.rules == right.fields.rules)
    }

    /// Calls `body` with the request's method, the stub's body and whether the stub is a network response (not an
    /// error), read in the fields' storage with no copy of the request or the stub response: `BodyCoverage` asks it
    /// of every target twice at the end of a run (1,000 instructions a target through the public properties).
    package func withStubBody<Result>(_ body: (_ method: String, _ sampleData: StubBody, _ isNetwork: Bool) -> Result)
        -> Result
    {
        let fields = storage
        let isNetwork = if case .network = fields.fields.seldom.fields.sampleResponse { true } else { false }
        return body(fields.fields.request.method, fields.fields.sampleData, isNetwork)
    }

    /// Whether a header of the request carries a credential (`HTTPHeader.isCredential`), read in place: `request`
    /// copies the whole request, and the redactor asks this of every contract of a run.
    package var hasCredentialHeader: Bool { storage.fields.request.headers.contains(where: \.isCredential) }

    /// The file that holds the stub's body (`stubSource?.file`), read in place: `stubSource` copies its four strings.
    package var stubFile: String? { storage.fields.stubSource?.file }

    /// Equal when every field is: the same storage is equal without comparing.
    public static func == (a: Contract, b: Contract) -> Bool {
        a.storage === b.storage || a.storage.fields == b.storage.fields
    }

    /// - Parameters: as the properties.
    public init(
        service: String, name: String, baseURL: String, request: HTTPRequest, sampleData: StubBody,
        sampleResponse: StubResponse = .network(statusCode: 200, headers: []), validStatusCodes: [Int]? = nil,
        source: String, secrets: [String] = [], rules: ContractRules = ContractRules(), stubSource: StubSource? = nil,
        stubBehavior: StubBehavior = .immediate, declaration: SourcePlace? = nil, isPending: Bool = false
    ) {
        storage = Storage(
            Fields(
                service: service,
                name: name,
                baseURL: baseURL,
                request: request,
                sampleData: sampleData,
                source: source,
                stubSource: stubSource,
                declaration: declaration,
                seldom: .holding(
                    Seldom(
                        sampleResponse: sampleResponse, validStatusCodes: validStatusCodes, secrets: secrets,
                        rules: rules, stubBehavior: stubBehavior, isPending: isPending))))
    }
}

extension HTTPHeader {
    /// `application/json; charset=utf-8` → `application/json`: what a `Content-Type` says, without its parameters.
    package static func mediaType(of value: String) -> String {
        (value.split(separator: ";", maxSplits: 1).first.map(String.init) ?? value).trimmingWhitespace()
            .lowercased()
    }

    /// Whether this header is called `name` (header names compare case-insensitively).
    ///
    /// Header names are ASCII (`isValidName`), so they are compared byte by byte with ASCII case folding; Foundation's
    /// `caseInsensitiveCompare` (kept for names that are not ASCII) cost more than libcurl's parsing of the header
    /// when run for every header of every response.
    public func isNamed(_ name: String) -> Bool {
        var ours = self.name.utf8.makeIterator()
        var theirs = name.utf8.makeIterator()
        while true {
            switch (ours.next(), theirs.next()) {
            case (nil, nil): return true
            case (let a?, let b?):
                guard a < 0x80, b < 0x80 else { return self.name.equalsIgnoringCase(name) }
                if a != b && a | 0x20 != b | 0x20 { return false }
                if a != b && !(UInt8(ascii: "a")...UInt8(ascii: "z")).contains(a | 0x20) { return false }
            default:
                return self.name.utf8.contains { $0 >= 0x80 } || name.utf8.contains { $0 >= 0x80 }
                    ? self.name.equalsIgnoringCase(name) : false
            }
        }
    }

    /// Whether this header carries a credential (`Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`):
    /// its value is a secret whatever its length, and is never printed.
    public var isCredential: Bool {
        // An ASCII name by its length, then byte by byte with ASCII case folding (`isNamed`): a run asks this of every
        // header of every contract, and lower-casing each name made a string each time.
        guard !name.utf8.contains(where: { $0 >= 0x80 }) else {
            return ["authorization", "proxy-authorization", "cookie", "set-cookie"].contains(name.lowercased())
        }
        switch name.utf8.count {
        case 6: return isNamed("cookie")
        case 10: return isNamed("set-cookie")
        case 13: return isNamed("authorization")
        case 19: return isNamed("proxy-authorization")
        default: return false
        }
    }

    /// Whether a header name can go on the wire as is: not empty, visible ASCII only (no space, no control byte),
    /// and no `:` (it would end the name early; HTTP/2's `:status` is no header of HTTP/1.1).
    /// - Parameter name: The header name.
    /// - Returns: `true` when every byte is in 0x21...0x7E and none is `:`.
    package static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") }
    }

    /// Whether a header value is safe to send: a line break or NUL in it would split the request and start another
    /// header.
    /// - Parameter value: The header value.
    /// - Returns: `true` when it holds no CR, LF or NUL.
    package static func isSafeValue(_ value: String) -> Bool {
        !value.utf8.contains { $0 == 0x0A || $0 == 0x0D || $0 == 0 }
    }
}

extension StubBody {
    /// The one rule for sample bytes, from files and from Swift targets alike: empty or only white space is no body,
    /// JSON when it parses (kept as its checked text), text otherwise (with the parse error, for callers where text
    /// is not acceptable).
    package static func classify(_ data: Data) -> (body: StubBody, parseError: JSONParseError?) {
        let isBlank = data.withUnsafeBytes { bytes in
            bytes.allSatisfy { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        }
        if isBlank { return (.none, nil) }
        do {
            try JSONReader().check(data)
            return (.json(JSONStub(checkedText: data)), nil)
        } catch {
            return (.text(data), error)
        }
    }
}

extension String {
    /// Whether a name says that its value is a secret (a captured variable, a query parameter): it contains `TOKEN`,
    /// `SECRET`, `PASSWORD`, `PASSWD`, `PWD`, `KEY`, `SESSION`, `COOKIE`, `AUTH`, `CREDENTIAL`, `SIGNATURE` or `JWT`,
    /// or is `SIG`, `CODE` (OAuth's) or `OTP`, in any case.
    package var namesASecret: Bool {
        let upper = uppercased()
        return ["SIG", "CODE", "OTP"].contains(upper)
            || [
                "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PWD", "KEY", "SESSION", "COOKIE", "AUTH", "CREDENTIAL",
                "SIGNATURE", "JWT",
            ].contains { upper.contains($0) }
    }
}

extension HTTPRequest {
    /// Whether `text` is an absolute http or https URL with a host: what a base URL must be.
    public static func isHTTPURL(_ text: String) -> Bool {
        // No space or control character anywhere: Foundation's parser takes `https://api github.com`, libcurl does not
        // ("URL using bad/illegal format"), and that would be a target's error at run time, not the file's.
        guard !text.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }),
            let url = URL(string: text), let scheme = url.scheme?.lowercased()
        else { return false }
        return (scheme == "http" || scheme == "https") && url.host != nil
    }

    /// The credentials written into a URL (`https://user:password@host/`, `https://TOKEN@host/`), which are secrets
    /// whatever their length, as a sensitive header's (`Redactor`): the whole user part (so the URL reads
    /// `https://<redacted>@host/`, and the `Authorization: Basic …` libcurl makes of it is hidden as base64 too), and
    /// the password alone; each as written and percent-decoded.
    /// - Parameter url: a base URL (or any URL).
    /// - Returns: the values to redact; none for a URL without `@` before its path.
    package static func credentials(in url: String) -> [String] {
        // On the bytes, with no generic call per byte: each redactor a run makes asks it of every base URL the run's
        // contracts have, and almost none has credentials.
        var url = url
        let userInfo: Range<Int>? = url.withUTF8 { bytes in
            var index = 0
            while index + 2 < bytes.count,
                !(bytes[index] == UInt8(ascii: ":") && bytes[index + 1] == UInt8(ascii: "/")
                    && bytes[index + 2] == UInt8(ascii: "/"))
            {
                index += 1
            }
            guard index + 2 < bytes.count else { return nil }
            let start = index + 3
            var at: Int?
            index = start
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
                if byte == UInt8(ascii: "@") { at = index }
                index += 1
            }
            return at.map { start..<$0 }
        }
        guard let userInfo, !userInfo.isEmpty else { return [] }
        let whole = String(decoding: Array(url.utf8)[userInfo], as: UTF8.self)
        var values: [String] = []
        for part in [whole, whole.firstIndex(of: ":").map { String(whole[whole.index(after: $0)...]) }] {
            guard let part, !part.isEmpty else { continue }
            values.append(part)
            if let decoded = part.percentDecoded, decoded != part, !decoded.isEmpty { values.append(decoded) }
        }
        return values
    }
}
