// SPEC: the providers' OpenAPI documents the targets are checked against (verify).

extension HelpSection {
    /// `--spec`, `--offline`, `--list-uncovered`.
    public static let spec = HelpSection(
        title: "SPEC",
        note: "With --spec and --offline, nothing is sent: each target's method and path must match an operation of "
            + "its service's document, its query, headers and request body the operation's parameters and "
            + "requestBody, its stub's status a documented response, and its stub's body that response's schema as the "
            + "app reads it (a field the schema does not declare is a drift). Every finding says which side is wrong. "
            + "See docs/openapi.md.")
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
        .flag(
            "--list-uncovered", section: .spec,
            help: "after the run, list the operations and documented responses that no target covers"
        ) { $0.listsUncovered = true },
    ]
}
