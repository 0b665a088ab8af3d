// SPEC: the providers' OpenAPI documents the targets are checked against (verify).

#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

extension HelpSection {
    /// `--spec`, `--offline`, `--list-uncovered`.
    public static let spec = HelpSection(
        title: "SPEC",
        note: "Each target's method and path must match an operation of its service's document, its query, headers "
            + "and request body the operation's parameters and requestBody, its stub's status a documented response, "
            + "its stub's headers that response's headers, and its stub's body that response's schema as the app "
            + "reads it (a field the schema does not declare is a drift). Without --offline the live answer is "
            + "checked against the document too, and every finding says which side drifted: a stale stub, a service "
            + "that breaks its spec, or a spec out of date. See docs/openapi.md.")
}

extension SpecOptions: OptionGroup {
    /// `--spec FILE`, `--spec SERVICE=FILE`, `--offline`, `--list-uncovered`.
    public static let options: [Option<SpecOptions>] = [
        .value(
            "--spec", "[SERVICE=]FILE", section: .spec,
            help: "check targets against this OpenAPI document (2.0, 3.0 or 3.1; JSON or YAML); SERVICE= for one "
                + "service's targets",
            isRepeatable: true
        ) { $0.documents.append(Binding(argument: $1)) },
        .flag(
            "--offline", section: .spec,
            help: "send nothing: check each target's request and stub against its --spec document alone"
        ) { $0.isOffline = true },
        .value(
            "--fail-on", "CULPRITS", section: .spec,
            help: "which culprits' drifts fail the gate: a comma-separated list of stub, service, spec",
            defaultValue: "all"
        ) { (options: inout SpecOptions, text: String) throws(InvalidValue) in
            var culprits = Set<Finding.Culprit>()
            for word in text.split(separator: ",", omittingEmptySubsequences: false) {
                let name = word.trimmingWhitespace()
                guard let culprit = Finding.Culprit(rawValue: name) else {
                    throw InvalidValue(
                        "is not a list of culprits ('\(name)' is none): write stub, service or spec, separated by commas"
                    )
                }
                culprits.insert(culprit)
            }
            options.failingCulprits = culprits
        },
        .flag(
            "--list-uncovered", section: .spec,
            help: "after the run, list the operations and documented responses that no target covers"
        ) { $0.listsUncovered = true },
    ]
}
