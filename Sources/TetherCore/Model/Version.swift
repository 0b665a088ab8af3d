/// Tether's version, printed by `--version`, written into every JUnit suite's properties and exported manifests.
public let tetherVersion = "0.1.0"
