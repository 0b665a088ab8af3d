import TetherKit

/// Why an option's value was refused, after the option's name and the quoted value:
/// `--jobs: 'x'` + ` is not a whole number from 1 to 256`.
struct InvalidValue: Error {
    /// Starts with a verb (`is not a whole number from 1 to 256`) and, where it helps, says what to write instead.
    var reason: String
    init(_ reason: String) { self.reason = reason }
}

/// A titled group of options in a command's help (`TRANSPORT`), with an optional note below its rows.
struct HelpSection: Equatable, Sendable {
    /// The heading, in capitals: `WHERE REQUESTS GO`.
    var title: String
    /// A line printed after the section's rows, in their help column.
    var note: String?
}

/// One command-line option, declared once: its spellings, its value, its help line and what it does. Parsing, the
/// help text and "did you mean" all read it, as swift-argument-parser's `@Option` and `@Flag` do.
struct Option<Parsed>: Sendable {
    /// What giving the option does.
    enum Action: Sendable {
        /// A switch that takes no value: `--strict`.
        case flag(@Sendable (inout Parsed) -> Void)
        /// A switch and its inverse, `--color` and `--no-color`: the closure gets `false` for a `--no-` spelling.
        case toggle(@Sendable (inout Parsed, _ isOn: Bool) -> Void)
        /// Reads the value of `--jobs N` or `--jobs=N` into the result, or refuses it.
        case value(@Sendable (inout Parsed, String) throws(InvalidValue) -> Void)
        /// Stops parsing: the command's help is printed instead.
        case help
    }

    /// One way of writing the option in help: a value name (`N`, `SERVICE=URL`) and what it means.
    struct Form: Sendable {
        /// The placeholder after the name; `nil` for a switch.
        var value: String?
        /// What the option does, lower-case, without the default (that comes from `defaultValue`).
        var help: String
        /// The value used when the option is not given, shown as `(default 8)`.
        var defaultValue: String?
        /// Whether giving it several times adds up (`--filter`), rather than the last one winning.
        var isRepeatable = false
    }

    /// The spellings shown in help and offered by "did you mean", the first being the main one: `--help`, `-h`.
    var names: [String]
    /// Spellings accepted as well but never shown: `--colour`.
    var aliases: [String] = []
    /// Where help lists it; `nil` keeps it out of the option sections (`--help`).
    var section: HelpSection?
    /// One help row each; most options have one.
    var forms: [Form]
    var action: Action

    /// Whether the option reads a value.
    var takesValue: Bool {
        if case .value = action { return true }
        return false
    }

    /// `--jobs N`: an option with one value form.
    static func value(
        _ name: String, _ value: String, section: HelpSection, help: String, defaultValue: String? = nil,
        isRepeatable: Bool = false, read: @escaping @Sendable (inout Parsed, String) throws(InvalidValue) -> Void
    ) -> Option {
        Option(
            names: [name], section: section,
            forms: [Form(value: value, help: help, defaultValue: defaultValue, isRepeatable: isRepeatable)],
            action: .value(read))
    }

    /// `--strict`: a switch.
    static func flag(
        _ name: String, section: HelpSection, help: String, set: @escaping @Sendable (inout Parsed) -> Void
    ) -> Option {
        Option(names: [name], section: section, forms: [Form(value: nil, help: help)], action: .flag(set))
    }

    /// `-h, --help`: prints the command's help; not listed in its option sections.
    static var help: Option { Option(names: ["--help", "-h"], section: nil, forms: [], action: .help) }
}

extension Option {
    /// The same option for a command whose arguments hold this command's at `path` (`tether record` takes
    /// every option of `tether verify`).
    func lifted<Outer>(_ path: WritableKeyPath<Outer, Parsed> & Sendable) -> Option<Outer> {
        let action: Option<Outer>.Action =
            switch self.action {
            case .flag(let set): .flag { set(&$0[keyPath: path]) }
            case .toggle(let set): .toggle { set(&$0[keyPath: path], $1) }
            case .value(let read): .value { outer, text throws(InvalidValue) in try read(&outer[keyPath: path], text) }
            case .help: .help
            }
        return Option<Outer>(
            names: names, aliases: aliases, section: section,
            forms: forms.map {
                Option<Outer>.Form(
                    value: $0.value, help: $0.help, defaultValue: $0.defaultValue, isRepeatable: $0.isRepeatable)
            },
            action: action)
    }
}

/// A command's options, each declared once, and the parsing, help rows and suggestions that come from them.
struct OptionTable<Parsed>: Sendable {
    /// The command's name in messages: `verify` in `run 'tether verify --help'`.
    var command: String
    var options: [Option<Parsed>]
    /// Takes an argument that is not an option (a `PATH`), or refuses it.
    var operand: @Sendable (inout Parsed, String) throws(UsageError) -> Void

    /// What a command line asked for.
    enum Outcome {
        /// Every argument was read into the value.
        case parsed(Parsed)
        /// `--help` came before any error.
        case help
    }

    /// Reads `arguments` in order into `start`: `--name value`, `--name=value`, switches, operands, and `--`, after
    /// which every argument is an operand (a path that starts with `-`).
    /// - Throws: A `UsageError` naming the option: unknown (with a suggestion from this table), a missing value, a
    ///   value given to a switch, a value its option refuses.
    func parse(_ arguments: ArraySlice<String>, into start: Parsed) throws(UsageError) -> Outcome {
        var parsed = start
        var rest = arguments
        while let argument = rest.popFirst() {
            if argument == "--" {
                for operand in rest { try self.operand(&parsed, operand) }
                break
            }
            guard argument.hasPrefix("-") else {
                try operand(&parsed, argument)
                continue
            }
            var name = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            guard let option = option(named: name) else {
                let hint = didYouMean(name, in: suggestions)
                throw UsageError("unknown option '\(name)'\(hint); \(helpPointer)")
            }
            if !option.takesValue, let inlineValue {
                throw UsageError("\(name) takes no value, got '\(inlineValue)'; \(helpPointer)")
            }
            switch option.action {
            case .help: return .help
            case .flag(let set): set(&parsed)
            case .toggle(let set): set(&parsed, !name.hasPrefix("--no-"))
            case .value(let read):
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else if let next = rest.first, !next.hasPrefix("--") {
                    value = next
                    rest.removeFirst()
                } else {
                    throw UsageError("\(name) needs a value; \(helpPointer)")
                }
                do throws(InvalidValue) {
                    try read(&parsed, value)
                } catch {
                    throw UsageError("\(name): '\(value)' \(error.reason)")
                }
            }
        }
        return .parsed(parsed)
    }

    /// The option sections of the command's help: each section's title, its options' rows aligned in one column
    /// for the whole table, wrapped to `width`.
    func helpSections(width: Int = HelpLayout.width) -> String {
        var sections: [HelpSection] = []
        for option in options {
            if let section = option.section, !sections.contains(section) { sections.append(section) }
        }
        let rows = sections.map { section in
            options.filter { $0.section == section }.flatMap { option in
                option.forms.map { form in
                    HelpLayout.Row(label: label(option, form), text: text(form))
                }
            }
        }
        let column = HelpLayout.column(for: rows.flatMap { $0 })
        return zip(sections, rows).map { section, rows in
            var lines = [section.title]
            lines += rows.flatMap { HelpLayout.lines(for: $0, column: column, width: width) }
            if let note = section.note {
                lines += HelpLayout.wrap(note, width: width - column).map { String(repeating: " ", count: column) + $0 }
            }
            return lines.joined(separator: "\n")
        }.joined(separator: "\n\n")
    }

    /// Every shown spelling of more than one letter: what "did you mean" chooses from.
    var suggestions: [String] { options.flatMap(\.names).filter { $0.count > 2 } }

    private var helpPointer: String { "run 'tether \(command) --help'" }

    private func option(named name: String) -> Option<Parsed>? {
        options.first { $0.names.contains(name) || $0.aliases.contains(name) }
    }

    private func label(_ option: Option<Parsed>, _ form: Option<Parsed>.Form) -> String {
        option.names.joined(separator: ", ") + (form.value.map { " " + $0 } ?? "")
    }

    private func text(_ form: Option<Parsed>.Form) -> String {
        let notes = [form.defaultValue.map { "default \($0)" }, form.isRepeatable ? "repeatable" : nil]
            .compactMap { $0 }
        return notes.isEmpty ? form.help : "\(form.help) (\(notes.joined(separator: "; ")))"
    }
}

/// Two-column help rows (a label, then its text in an aligned column) and word wrapping.
enum HelpLayout {
    /// The widest a help line may be.
    static let width = 120
    /// Labels start here.
    static let indent = 2
    /// Spaces between the widest label and the text column.
    static let gap = 2
    /// A label wider than this puts its text on the next line, so one long label does not push every row right.
    static let widestLabel = 40

    /// A label (`--jobs N`, `tether mock FILE.har [--port N]`) and the text beside it.
    struct Row {
        var label: String
        var text: String
    }

    /// The column the texts of `rows` start in: after the widest label that is not too wide.
    static func column(for rows: [Row]) -> Int {
        indent + min(rows.map(\.label.count).max() ?? 0, widestLabel) + gap
    }

    /// `row` as lines: the label, its text from `column` on, wrapped to `width` and indented to `column`.
    static func lines(for row: Row, column: Int, width: Int = width) -> [String] {
        let label = String(repeating: " ", count: indent) + row.label
        let margin = String(repeating: " ", count: column)
        let text = wrap(row.text, width: width - column)
        guard label.count + gap <= column else { return [label] + text.map { margin + $0 } }
        let first = label + String(repeating: " ", count: column - label.count) + (text.first ?? "")
        return [first] + text.dropFirst().map { margin + $0 }
    }

    /// `rows` laid out in one aligned column.
    static func table(_ rows: [Row], width: Int = width) -> String {
        let column = column(for: rows)
        return rows.flatMap { lines(for: $0, column: column, width: width) }.joined(separator: "\n")
    }

    /// `text` broken at spaces into lines of at most `width` characters (a longer word keeps a line of its own).
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if line.isEmpty {
                line = String(word)
            } else if line.count + 1 + word.count <= width {
                line += " " + word
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        if !line.isEmpty || lines.isEmpty { lines.append(line) }
        return lines
    }
}
