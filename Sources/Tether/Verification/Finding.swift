/// One thing a check found: a drift (the contract does not hold) or a note (worth knowing, not failing).
public struct Finding: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        case drift
        case note
    }

    public var kind: Kind
    /// Where: `status`, `header Content-Type`, `body`, or a JSON path from the root such as `$.items[3].price`.
    public var path: String
    /// What, built next to the rule that found it: `expected string, got number 12`.
    public var message: String

    public init(_ kind: Kind, _ path: String, _ message: String) {
        self.kind = kind
        self.path = path
        self.message = message
    }

    public var isDrift: Bool { kind == .drift }
    public var description: String { "\(path): \(message)" }
}
