#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What `--baseline FILE` does to a run: which drifts are known, which targets are pending, which recorded drifts
/// are fixed, and the file `--update-baseline` writes. The one home of the baseline's policy; the exit code reads the
/// marks it puts on each result (`ContractResult.failsGate`).
///
/// - A drift is known when the baseline lists its target with the same `drift(of:)` key: its place with array
///   indices as `[*]` (which element drifts first depends on the live data) and its rule with the stub's side
///   (`expected integer`, `missing key`), both read from the finding's typed fields, never from its message, and
///   never holding a live value.
/// - A target is pending, reported but never failing, when the manifest says `"pending": true` and the baseline has
///   not seen it pass, or when a baseline is given and does not list it at all (new since the baseline). Without
///   `--baseline` a `"pending": true` target stays pending: nothing remembers its first pass.
/// - "Passed once" is remembered in the baseline (`hasPassed`), written by `--update-baseline`.
public struct BaselineGate: Sendable, Equatable {
    /// The baseline read from `--baseline FILE`; `nil` when none was given (only manifest `pending` applies).
    public var file: BaselineFile?

    /// - Parameter file: The baseline, or `nil` for none.
    public init(file: BaselineFile? = nil) {
        self.file = file
    }

    /// The baseline key of a drift: stable across runs, no timings, no live values, and no secrets (the file is
    /// an output like any report, so the contract's secrets are redacted from it).
    /// - Parameters:
    ///   - finding: A drift.
    ///   - contract: Its contract, whose secrets are redacted.
    /// - Returns: Its place (array indices as `[*]`) and rule.
    public static func drift(of finding: Finding, in contract: Contract) -> BaselineFile.Drift {
        let redactor = Redactor(contracts: [contract])
        return BaselineFile.Drift(
            path: redactor.redact(finding.location.anyElement), rule: redactor.redact(rule(of: finding)))
    }

    /// The keys of a result's drifts.
    static func drifts(of result: ContractResult) -> Set<BaselineFile.Drift> {
        Set(result.findings.filter(\.isDrift).map { drift(of: $0, in: result.contract) })
    }

    /// The rule part of a drift's key: the rule and the stub's side of it, in words (`expected integer`, `missing
    /// key`, `not one of ["open", "closed"]`), the same words 0.2 wrote for every rule whose key held no live value
    /// (`BaselineFile` migrates the others).
    static func rule(of finding: Finding) -> String {
        let expected = finding.expected ?? ""
        switch finding.rule {
        case .status, .type: return "expected \(expected)"
        case .allowedStatus, .value: return "not \(expected)"
        case .validationType: return "outside validationType"
        case .missingHeader: return "missing"
        case .header: return "expected " + (expected == Redactor.marker ? expected : "\"\(expected)\"")
        case .notJSON: return "expected a JSON body"
        case .tooDeep: return BaselineFile.Drift.tooDeep
        case .numberOutOfRange: return "number out of range"
        case .tooLarge: return BaselineFile.Drift.tooLarge
        case .emptyBody: return "expected a non-empty body"
        case .unexpectedJSON: return "expected a body that is not JSON"
        case .noBodyContract: return "no body contract"
        case .integer: return "expected integer"
        case .null: return "unexpected null"
        case .missingKey: return "missing key"
        case .extraKey: return "key not in stub"
        case .repeatedKey: return "key twice in the stub"
        case .format:
            guard let format = ContractRules.Format(rawValue: expected) else { return "format \(expected)" }
            return format.isInteger ? "does not fit \(expected)" : "not \(ContractRules.article(format))"
        case .stubNotXML: return "the stub is not XML"
        case .notXML: return "expected an XML body"
        case .xmlEntities: return "the XML body declares entities in its DTD"
        case .rootElement: return "expected root element <\(Self.elementName(of: finding.location))>"
        case .missingAttribute: return "missing attribute"
        case .extraAttribute: return "attribute not in stub"
        case .content: return expected == "text" ? "expected text" : BaselineFile.Drift.childElements
        case .namespace: return "expected <\(Self.elementName(of: finding.location))>"
        case .missingElement: return "missing element"
        case .extraElement: return "element not in stub"
        case .decode: return "\(expected) does not decode"
        case .notVerified: return "not verified"
        case .specOperation: return "no such operation in the spec"
        case .specParameter: return "parameter \(expected)"
        case .specRequestBody: return "request body \(expected)"
        case .specStatus: return "status not in the spec"
        case .specHeader: return "response header \(expected)"
        case .specMediaType: return "media type not in the spec"
        case .specSchema:
            // The keyword the stub (or the answer) breaks: the last token of its place in the spec.
            let keyword = finding.specPlace.map { $0.pointer.split(separator: "/").last.map(String.init) ?? "" }
            return "breaks the spec's \(keyword ?? "schema")"
        case .notCompared, .stubNull, .emptyStubArray, .specNotChecked: return finding.rule.rawValue
        }
    }

    /// The local name of the element an XML finding is at (`entry` for `/feed/atom:entry[2]`).
    private static func elementName(of location: Finding.Location) -> String {
        guard case .xml(let place) = location, let last = place.steps.last else { return "" }
        return last.localName
    }

    /// `result` with its known drifts and pending mark set.
    /// - Parameter result: A result as the checks made it.
    /// - Returns: The same result, marked.
    public func mark(_ result: ContractResult) -> ContractResult {
        // Without a baseline file a result is pending only when its target says so: most need no copy.
        if file == nil && result.isPending == result.contract.isPending { return result }
        var marked = result
        let entry = file?.target(service: result.contract.service, name: result.contract.name)
        let isNew = file != nil && entry == nil
        marked.isPending = isNew || (result.contract.isPending && entry?.hasPassed != true)
        if let entry {
            let known = Set(entry.drifts)
            marked.knownDrifts = result.findings.filter {
                $0.isDrift && known.contains(Self.drift(of: $0, in: result.contract))
            }
        }
        return marked
    }

    /// The baseline's drifts of targets checked in this run (passed or drifted) that did not come back.
    /// - Parameter results: The run's results.
    /// - Returns: Sorted by service, target, path and rule.
    public func fixed(in results: [ContractResult]) -> [FixedDrift] {
        guard let file else { return [] }
        var fixed: [FixedDrift] = []
        for result in results where result.outcome == .passed || result.outcome == .drifted {
            guard let entry = file.target(service: result.contract.service, name: result.contract.name) else {
                continue
            }
            let now = Self.drifts(of: result)
            for drift in entry.drifts where !now.contains(drift) {
                fixed.append(FixedDrift(service: entry.service, target: entry.target, drift: drift))
            }
        }
        return fixed.sorted {
            ($0.service, $0.target, $0.drift.path, $0.drift.rule) < (
                $1.service, $1.target, $1.drift.path, $1.drift.rule
            )
        }
    }

    /// The baseline `--update-baseline` writes after `results`: every target checked (passed or drifted) with its
    /// drifts now (new ones become known, fixed ones are pruned) and whether it has passed once; targets not checked
    /// this run (filtered out, errors, skips) keep their entries; a new target that could not be checked is not
    /// added, so it stays pending. An entry of a service that was loaded but no longer declares the target is
    /// dropped (a target renamed or deleted); entries of services not loaded this run are kept.
    /// - Parameters:
    ///   - results: The run's results.
    ///   - declared: Every contract loaded for the run, before `--filter`; `nil` keeps every entry.
    /// - Returns: The new baseline.
    public func updated(with results: [ContractResult], declared: [Contract]? = nil) -> BaselineFile {
        var targets = file?.targets ?? []
        if let declared {
            let services = Set(declared.map(\.service))
            let names = Set(declared.map { $0.service + "\u{0}" + $0.name })
            targets.removeAll { services.contains($0.service) && !names.contains($0.service + "\u{0}" + $0.target) }
        }
        for result in results where result.outcome == .passed || result.outcome == .drifted {
            let old = file?.target(service: result.contract.service, name: result.contract.name)
            let drifts = Self.drifts(of: result)
            targets.removeAll { $0.service == result.contract.service && $0.target == result.contract.name }
            targets.append(
                BaselineFile.Target(
                    service: result.contract.service, target: result.contract.name,
                    hasPassed: old?.hasPassed == true || result.outcome == .passed, drifts: Array(drifts)))
        }
        return BaselineFile(targets: targets)
    }
}
