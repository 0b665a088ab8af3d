/// Stub, spec and live together (`--spec` on a live run): which side drifted, for every finding.
///
/// Three checks meet at each place of the answer (the status, a JSON location, elements compared as `[*]`): the stub
/// against the live answer (`ContractCheck`), the stub against the spec (`SpecCheck.check(stubOf:)`) and the live
/// answer against the spec (`SpecCheck.check(live:of:)`). The culprit is decided so:
///
/// | stub vs live | stub vs spec | live vs spec | culprit |
/// | --- | --- | --- | --- |
/// | differ | any | fits | stub (a stale stub: `tether update` rewrites it) |
/// | differ | fits | breaks | service (it breaks the spec the stub follows) |
/// | differ | breaks | breaks | spec (neither side fits it) |
/// | same | breaks | breaks (the same rule, or a member neither declares) | spec (out of date) |
/// | same | breaks | fits | stub |
/// | – | – | breaks, where the stub has nothing to say | service |
///
/// A request the spec rejects, a target whose operation the spec lacks, and a key the stub has twice are the stub's
/// (drifts, whatever the service answered).
enum SpecTriangle {
    /// The run's findings for one target, each with its culprit.
    /// - Parameters:
    ///   - live: The stub against the live answer (drifts and notes).
    ///   - stub: The stub against the spec.
    ///   - service: The live answer against the spec.
    /// - Returns: `live`'s findings with their culprit, then the stub's and the service's breaks of the spec that
    ///   `live` does not already explain.
    static func judge(live: [Finding], stub: [Finding], service: [Finding]) -> [Finding] {
        func place(_ finding: Finding) -> String { finding.location.anyElement }
        var stubBreaks: [String: Finding] = [:]
        for finding in stub where finding.isDrift && finding.rule != .repeatedKey {
            stubBreaks[place(finding)] = stubBreaks[place(finding)] ?? finding
        }
        var serviceBreaks: [String: Finding] = [:]
        var serviceUndeclared = Set<String>()
        for finding in service {
            if finding.isDrift {
                serviceBreaks[place(finding)] = serviceBreaks[place(finding)] ?? finding
            } else if finding.expected == "undeclared" {
                serviceUndeclared.insert(place(finding))
            }
        }
        var judged: [Finding] = []
        var explained = Set<String>()
        // A key the stub has twice is the stub's, whatever the spec and the service say there; both the stub's
        // checks may name it, and it is reported once.
        var repeatedKeys = Set<String>()
        for var finding in live {
            guard finding.isDrift else {
                judged.append(finding)
                continue
            }
            if finding.rule == .repeatedKey {
                finding.culprit = .stub
                repeatedKeys.insert(place(finding))
                judged.append(finding)
                continue
            }
            let key = place(finding)
            let serviceBreak = serviceBreaks[key]
            finding.culprit = serviceBreak == nil ? .stub : (stubBreaks[key] == nil ? .service : .spec)
            finding.specPlace = (serviceBreak ?? stubBreaks[key])?.specPlace
            if let spec = finding.specPlace { finding.message += " (the spec: \(spec) \(spec.pointer))" }
            explained.insert(key)
            judged.append(finding)
        }
        for var finding in stub where !explained.contains(place(finding)) {
            if finding.rule == .repeatedKey {
                if !repeatedKeys.contains(place(finding)) { judged.append(finding) }
                continue
            }
            let key = place(finding)
            if finding.isDrift, serviceBreaks[key] != nil || serviceUndeclared.contains(key) {
                finding.culprit = .spec
                finding.message = "stub and service agree, the spec does not: " + finding.message
                explained.insert(key)
            }
            judged.append(finding)
        }
        for finding in service where finding.isDrift && !explained.contains(place(finding)) {
            judged.append(finding)
        }
        return judged
    }
}
