extension Option {
    /// `--redact-json PATH` of `record` and `update`: personal data hidden in the bodies they keep. Declared once,
    /// shown in each command's own section.
    /// - Parameters:
    ///   - section: Where the command's help lists it.
    ///   - patterns: Where the command keeps the patterns.
    /// - Returns: The option.
    public static func redactJSON(
        section: HelpSection, into patterns: WritableKeyPath<Parsed, [JSONPathPattern]> & Sendable
    ) -> Option {
        .value(
            "--redact-json", "PATH", section: section,
            help: "also hide this JSON path's values in live bodies, keeping their type: "
                + "--redact-json '$.email' --redact-json '$.items[*].owner.name'",
            isRepeatable: true
        ) { arguments, text throws(InvalidValue) in
            do throws(JSONPathPatternError) {
                arguments[keyPath: patterns].append(try JSONPathPattern(text))
            } catch {
                let syntax = #"paths are written $, .key, ["odd key"], [*], [n]"#
                throw InvalidValue("is not a JSON path (column \(error.column): expected \(error.problem)); \(syntax)")
            }
        }
    }
}
