#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The baseline (`--baseline FILE`): the drifts a team has accepted for now, and which targets have passed once.
///
/// A small, sorted JSON file meant to be reviewed in a pull request. Each entry names a target by service and name,
/// says whether it has ever passed (what ends a pending contract's grace), and lists its known drifts by where
/// (`path`) and by which rule (`rule`: the rule and the stub's side of it, made from the finding's typed fields).
/// Nothing in it changes from run to run: no timings, no live values.
///
/// Version 2 (0.3) reads version 1 (0.2) files: the keys are the same words, except a few rules whose 0.2 key held
/// a live value (`"x" is not one of ["a"]`, `12 does not fit int32`, a parse error's line), which are read as the
/// value-free key they now have (`Drift.migrated`); `--update-baseline` writes the file as version 2.
///
/// ```json
/// {
///   "tetherBaseline": 1,
///   "targets": [
///     {
///       "service": "GitHub",
///       "target": "user",
///       "hasPassed": true,
///       "drifts": [
///         { "path": "$.id", "rule": "expected integer" }
///       ]
///     }
///   ]
/// }
/// ```
public struct BaselineFile: Sendable, Equatable {
    /// One known drift of a target: where, and which rule.
    public struct Drift: Sendable, Hashable, Comparable {
        /// `status`, `header Content-Type`, `body`, or a JSON path such as `$.items[3].price`.
        public var path: String
        /// The rule that found it, without live values: `expected integer`, `missing key`.
        public var rule: String

        /// - Parameters: as the properties.
        public init(path: String, rule: String) {
            self.path = path
            self.rule = rule
        }

        /// By path, then rule.
        public static func < (a: Drift, b: Drift) -> Bool { (a.path, a.rule) < (b.path, b.rule) }

        /// The rule of a body nested deeper than the parser's limit.
        public static let tooDeep = "nested too deep"
        /// The rule of a body too large for the JSON parser (or for memory).
        public static let tooLarge = "document too large for the JSON parser"
        /// The rule of child elements the stub has where the live element has text.
        public static let childElements = "expected child elements"

        /// A version 1 drift as version 2 keys it: the rules whose 0.2 key held a live value lose it
        /// (`"x" is not one of ["a"]` → `not one of ["a"]`, `"y" is not a uuid` → `not a uuid`, `12 does not fit
        /// int32` → `does not fit int32`, `nested deeper than 1024 levels around line 1, column 9` → `nested too
        /// deep`, `out of memory while parsing …` → the too-large rule, `expected child elements <a>, <b>` →
        /// `expected child elements`); every other key is the same in both versions.
        public var migrated: Drift {
            var drift = self
            let rule = self.rule
            let stringFormat = ContractRules.Format.allCases.first { format in
                !format.isInteger && rule.hasSuffix(" is not " + ContractRules.article(format))
            }
            if let range = rule.rangeOfText(" is not one of ") {
                drift.rule = "not one of " + rule[range.upperBound...]
            } else if let stringFormat {
                drift.rule = "not " + ContractRules.article(stringFormat)
            } else if let range = rule.rangeOfText(" does not fit "), Int(rule[..<range.lowerBound]) != nil {
                drift.rule = "does not fit " + rule[range.upperBound...]
            } else if rule.hasPrefix("nested deeper than ") {
                drift.rule = Self.tooDeep
            } else if rule.hasPrefix("out of memory while parsing ") {
                drift.rule = Self.tooLarge
            } else if rule.hasPrefix(Self.childElements + " <") {
                drift.rule = Self.childElements
            }
            return drift
        }
    }

    /// One target the baseline knows.
    public struct Target: Sendable, Equatable {
        /// The target's service.
        public var service: String
        /// The target's name.
        public var target: String
        /// Whether it has passed in a run that updated the baseline: a pending target fails the gate from then on.
        public var hasPassed: Bool
        /// Its known drifts, sorted.
        public var drifts: [Drift]

        /// - Parameters: as the properties.
        public init(service: String, target: String, hasPassed: Bool, drifts: [Drift] = []) {
            self.service = service
            self.target = target
            self.hasPassed = hasPassed
            self.drifts = drifts.sorted()
        }
    }

    /// The file format's version, the value of `tetherBaseline`: 2 since 0.3 (1 is read too, see above).
    public static let version = 2

    /// Every target known, sorted by service and name.
    public private(set) var targets: [Target]

    /// - Parameter targets: The targets, in any order (they are sorted; a repeated service and name keeps the last).
    public init(targets: [Target] = []) {
        var byName: [String: Target] = [:]
        for target in targets { byName[target.service + "\u{0}" + target.target] = target }
        self.targets = byName.values.sorted { ($0.service, $0.target) < ($1.service, $1.target) }
    }

    /// The entry of `service`'s `target`, if the baseline knows it.
    public func target(service: String, name: String) -> Target? {
        targets.first { $0.service == service && $0.target == name }
    }

    /// Reads a baseline file.
    /// - Parameter path: The file.
    /// - Returns: The baseline.
    /// - Throws: `ContractError` naming the file (with line and column where there is one) and saying what to do:
    ///   unreadable, not JSON, an unknown or missing key, a value of the wrong type, a repeated target.
    public static func load(path: String) throws(ContractError) -> BaselineFile {
        guard let data = FileManager.default.contents(atPath: path) else {
            let exists = FileManager.default.fileExists(atPath: path)
            throw ContractError(
                file: path,
                exists
                    ? "cannot read the baseline file"
                    : "no baseline file here (run once with --update-baseline to write it)")
        }
        let document: JSONDocument
        do {
            document = try JSONReader().document(data)
        } catch {
            throw ContractError(
                file: path, line: error.line, column: error.column, "not a baseline file: \(error.detail)")
        }
        let root = ManifestNode(root: document, file: path)
        let keys = try root.members(allowed: ["tetherBaseline", "targets"])
        guard let versionNode = keys["tetherBaseline"] else {
            throw root.error("missing key \"tetherBaseline\" (a baseline file starts {\"tetherBaseline\": 1, …})")
        }
        let version = try versionNode.integer(in: 1...Int(Int32.max))
        guard version <= Self.version else {
            throw versionNode.error("baseline format \(version) is newer than this tether reads (\(Self.version))")
        }
        var targets: [Target] = []
        var seen: [String: String] = [:]
        for node in try keys["targets"]?.array() ?? [] {
            let members = try node.members(allowed: ["service", "target", "hasPassed", "drifts"])
            func required(_ key: String) throws(ContractError) -> ManifestNode {
                guard let value = members[key] else { throw node.error("missing key \"\(key)\"") }
                return value
            }
            let service = try required("service").string()
            let name = try required("target").string()
            let hasPassedNode = try required("hasPassed")
            guard case .bool(let hasPassed) = hasPassedNode.value else {
                throw hasPassedNode.error("expected true or false, got \(hasPassedNode.value.typeName)")
            }
            var drifts: [Drift] = []
            for driftNode in try members["drifts"]?.array() ?? [] {
                let driftKeys = try driftNode.members(allowed: ["path", "rule"])
                guard let pathNode = driftKeys["path"], let ruleNode = driftKeys["rule"] else {
                    throw driftNode.error("a drift needs \"path\" and \"rule\"")
                }
                let drift = Drift(path: try pathNode.string(), rule: try ruleNode.string())
                drifts.append(version == 1 ? drift.migrated : drift)
            }
            let key = service + "\u{0}" + name
            if let first = seen[key] {
                throw node.error("target '\(service).\(name)' is listed twice (first at \(first)); keep one entry")
            }
            seen[key] = node.location
            targets.append(Target(service: service, target: name, hasPassed: hasPassed, drifts: drifts))
        }
        return BaselineFile(targets: targets)
    }

    /// The file's text: sorted, two-space indented, one drift per line, ending with a newline.
    public func serialized() -> Data {
        func string(_ text: String) -> String {
            String(decoding: JSONValue.string(text).serialized(), as: UTF8.self)
        }
        var lines = ["{", "  \"tetherBaseline\": \(Self.version),"]
        if targets.isEmpty {
            lines.append("  \"targets\": []")
        } else {
            lines.append("  \"targets\": [")
            for (position, target) in targets.enumerated() {
                lines.append("    {")
                lines.append("      \"service\": \(string(target.service)),")
                lines.append("      \"target\": \(string(target.target)),")
                lines.append("      \"hasPassed\": \(target.hasPassed),")
                if target.drifts.isEmpty {
                    lines.append("      \"drifts\": []")
                } else {
                    lines.append("      \"drifts\": [")
                    let drifts = target.drifts.map {
                        "        { \"path\": \(string($0.path)), \"rule\": \(string($0.rule)) }"
                    }
                    lines.append(drifts.joined(separator: ",\n"))
                    lines.append("      ]")
                }
                lines.append(position == targets.count - 1 ? "    }" : "    },")
            }
            lines.append("  ]")
        }
        lines.append("}")
        return Data((lines.joined(separator: "\n") + "\n").utf8)
    }
}
