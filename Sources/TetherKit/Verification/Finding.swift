/// One thing a check found: a drift (the contract does not hold) or a note (worth knowing, not failing).
public struct Finding: Sendable, Equatable, CustomStringConvertible {
    /// Whether a finding breaks the contract or only informs.
    public enum Kind: Sendable, Equatable {
        case drift
        case note
    }

    /// A drift (the contract does not hold) or a note.
    public var kind: Kind
    /// Where: `status`, `header Content-Type`, `body`, or a JSON path from the root such as `$.items[3].price`.
    public var path: String
    /// What, built next to the rule that found it: `expected string, got number 12`.
    public var message: String
    /// What the stub asked for, for tools (`--json`): `string`, `200`, `absent`; `nil` when the rule has no
    /// two sides (a note, a body that is not JSON).
    public var expected: String?
    /// What the live answer had: `number 12`, `404`, `absent`, `null`.
    public var actual: String?

    /// - Parameters:
    ///   - kind: Drift or note.
    ///   - path: Where (`$.items[3].price`, `status`, `header Content-Type`, `body`).
    ///   - message: What and what to do, lower case.
    ///   - expected: What the stub asked for, when the rule compares two sides.
    ///   - actual: What the live answer had.
    public init(_ kind: Kind, _ path: String, _ message: String, expected: String? = nil, actual: String? = nil) {
        self.kind = kind
        self.path = path
        self.message = message
        self.expected = expected
        self.actual = actual
    }

    /// Whether this finding breaks the contract.
    public var isDrift: Bool { kind == .drift }
    /// `$.items[0].id: expected integer, got string "7": …`.
    public var description: String { "\(path): \(message)" }
}

extension Finding {
    /// The findings as reports print them: each one repeated across array (or repeated-element) items carries
    /// `… and in N more elements`, then its hint (`: make the property optional, or fix the stub`). The JSON and XML
    /// structure walks both count repeats and keep hints apart from the message until the walk ends.
    /// - Parameters:
    ///   - findings: The findings, in the order found.
    ///   - repeats: For each finding, how many further items it was found in.
    ///   - hints: For each finding, what to do, or `nil`.
    /// - Returns: The findings with their messages completed.
    static func completed(_ findings: [Finding], repeats: [Int], hints: [String?]) -> [Finding] {
        var result = findings
        for (offset, count) in repeats.enumerated() where count > 0 {
            result[offset].message += " … and in \(count) more element\(count == 1 ? "" : "s")"
        }
        for (offset, hint) in hints.enumerated() {
            if let hint { result[offset].message += ": " + hint }
        }
        return result
    }
}
