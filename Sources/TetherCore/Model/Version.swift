/// Tether's version: printed by `--version`, sent as `User-Agent: tether/…`, written into every report (JUnit, CTRF,
/// HTML, HAR) and exported manifest; the release a package depends on (`from: "0.3.0"`, docs/command-line.md).
public let tetherVersion = "0.3.0"
