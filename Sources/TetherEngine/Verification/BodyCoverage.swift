#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// How many targets assert a body, and the one home of what `--exhaustive` fails: TCA's `TestStore` fails a test that
/// leaves state unasserted; exhaustive mode fails a target whose stub leaves the body unasserted.
///
/// A target has a body contract when its stub has a body that says something about the live one: JSON with at least
/// one object key somewhere, XML, or text. It has none when the stub is Moya's `Data()` default (empty), or JSON with
/// no key at all (`{}`, `[]`, `[1, 2]`, `"ok"`: nothing that names a field). A `HEAD` target counts as covered (a
/// `HEAD` answer has no body to assert); a `networkError` stub counts as not covered and stays skipped (it is never
/// sent, so exhaustive mode has nothing to fail).
public struct BodyCoverage: Sendable, Equatable, CustomStringConvertible {
    /// Targets with a body contract.
    public var covered: Int
    /// All targets.
    public var total: Int

    /// - Parameters: as the properties.
    public init(covered: Int, total: Int) {
        self.covered = covered
        self.total = total
    }

    /// Counts the targets of `contracts` that have a body contract.
    /// - Parameter contracts: Every target of the run (or of one suite).
    public init<Contracts: Sequence>(_ contracts: Contracts) where Contracts.Element == Contract {
        var covered = 0
        var total = 0
        for contract in contracts {
            total += 1
            if Self.covers(contract) { covered += 1 }
            // Each stub's first bytes: a mapped manifest's pages go back to the page cache as they are read.
            MappedFiles.releaseReadPages(afterTarget: total - 1)
        }
        self.init(covered: covered, total: total)
    }

    /// Counts the results whose target has a body contract, as each result was told when it was made
    /// (`ContractResult.hasBodyContract`): a finished run's reports read no stub again.
    /// - Parameter results: Every result of the run (or of one suite).
    init(results: [ContractResult]) {
        var covered = 0
        for result in results where result.hasBodyContract { covered += 1 }
        self.init(covered: covered, total: results.count)
    }

    /// Whether `contract`'s target has a body contract: its stub answers (not `networkError`), and `gap` finds
    /// nothing missing.
    static func covers(_ contract: Contract) -> Bool {
        contract.withStubBody { method, sampleData, isNetwork in
            isNetwork && gap(method: method, sampleData: sampleData) == nil
        }
    }

    /// `3/4`: targets with a body contract / all targets.
    public var description: String { "\(covered)/\(total)" }

    /// The closing line of a console report: `coverage: 3/4 targets with a body contract`.
    public var line: String { "coverage: \(self) targets with a body contract" }

    /// Why a target has no body contract, or `nil` when it has one.
    /// - Parameter contract: The target.
    /// - Returns: `the stub has no body (…)` or `the stub's JSON has no key at all (…)`, or `nil`.
    public static func gap(in contract: Contract) -> String? {
        contract.withStubBody { method, sampleData, _ in gap(method: method, sampleData: sampleData) }
    }

    private static func gap(method: String, sampleData: StubBody) -> String? {
        if method == "HEAD" { return nil }
        switch sampleData {
        case .none: return "the stub has no body (sampleData is empty, Moya's Data() default)"
        case .json(let stub):
            if let text = stub.text, opensWithAKey(text) { return nil }
            let value = stub.value
            return hasKey(value) ? nil : "the stub's JSON has no key at all (\(JSONValue.describe(value)))"
        case .text: return nil
        }
    }

    /// The drift `--exhaustive` adds to a sent target with no body contract, or `nil`.
    /// - Parameter contract: The target.
    /// - Returns: A drift at `body` saying why and what to do.
    public static func exhaustiveFinding(for contract: Contract) -> Finding? {
        guard case .network = contract.sampleResponse, let gap = gap(in: contract) else { return nil }
        return Finding(
            .drift, .noBodyContract, at: .body,
            "no body contract: \(gap), so nothing about the body is asserted: "
                + "add sampleData with the fields the app reads, or drop --exhaustive", expected: "a body contract",
            actual: "none")
    }

    /// Whether a stub's text starts with an object that has a member, itself or as the first element of the root
    /// array (`{"id"`, `[{"id"`): then `hasKey` holds, and the text need not be parsed (most stubs). A false answer
    /// says nothing.
    private static func opensWithAKey(_ text: Data) -> Bool {
        // On the bytes in place: `Data`'s slicing and subscripts cost 1,600 instructions a stub, twice per target.
        text.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var at = 0
            func skipSpaces() { while at < bytes.count && JSONParser.isWhitespace(bytes[at]) { at += 1 } }
            skipSpaces()
            if at < bytes.count && bytes[at] == UInt8(ascii: "[") {
                at += 1
                skipSpaces()
            }
            guard at < bytes.count && bytes[at] == UInt8(ascii: "{") else { return false }
            at += 1
            skipSpaces()
            return at < bytes.count && bytes[at] == UInt8(ascii: "\"")
        }
    }

    private static func hasKey(_ value: JSONValue) -> Bool {
        switch value {
        case .object(let members): !members.isEmpty
        case .array(let elements): elements.contains(where: hasKey)
        default: false
        }
    }
}

extension JSONValue {
    /// A short text of a keyless JSON stub for messages: `{}`, `[]`, `array of 2`, `string`.
    fileprivate static func describe(_ value: JSONValue) -> String {
        switch value {
        case .object: "{}"
        case .array(let elements): elements.isEmpty ? "[]" : "an array with no object keys"
        default: "a bare \(value.typeName)"
        }
    }
}
