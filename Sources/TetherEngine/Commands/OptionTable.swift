#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A command line that cannot be run: printed with a hint, exit code 2.
public struct UsageError: Error, CustomStringConvertible, Equatable {
    /// The message, lower-case, naming the option or argument and what to write instead.
    public var description: String

    /// - Parameter description: The message.
    public init(_ description: String) { self.description = description }
}

/// A group of options that several commands take, declared once on the value they fill (`TransportOptions`,
/// `CheckOptions`): a command takes the group by the key path of its value (`OptionTable.group`), as
/// swift-argument-parser's `@OptionGroup` does.
public protocol OptionGroup {
    /// The group's options, in the order help lists them.
    static var options: [Option<Self>] { get }
}

extension Array {
    /// Every option of `Group`, for a command whose value holds the group where `get` and `set` reach it: one entry
    /// of `OptionTable(command:groups:operand:)`, `.group({ $0.plan.transport }, { $0.plan.transport = $1 })`.
    ///
    /// Two closures, not a key path: a key path's first use in a process makes its object and its classes' metadata
    /// (`verify`'s ten groups were 0.3 ms of every run's start, one tiny contract's run 16 ms in all).
    /// - Parameters:
    ///   - get: The group's value in the command's.
    ///   - set: Puts the group's value back.
    /// - Returns: The group's options, reading into the command's value.
    public static func group<Parsed, Group: OptionGroup>(
        _ get: @escaping @Sendable (Parsed) -> Group, _ set: @escaping @Sendable (inout Parsed, Group) -> Void
    ) -> [Option<Parsed>] where Element == Option<Parsed> {
        Group.options.map { $0.lifted(get, set) }
    }
}

/// Why an option's value was refused, after the option's name and the quoted value:
/// `--jobs: 'x'` + ` is not a whole number from 1 to 256`.
public struct InvalidValue: Error {
    /// Starts with a verb (`is not a whole number from 1 to 256`) and, where it helps, says what to write instead.
    public var reason: String
    /// - Parameter reason: Starts with a verb.
    public init(_ reason: String) { self.reason = reason }
}

/// A titled group of options in a command's help (`TRANSPORT`), with an optional note below its rows.
public struct HelpSection: Equatable, Sendable {
    /// The heading, in capitals: `WHERE REQUESTS GO`.
    public var title: String
    /// A line printed after the section's rows, in their help column.
    public var note: String?

    /// - Parameters: as the properties.
    public init(title: String, note: String? = nil) {
        self.title = title
        self.note = note
    }

    /// A command with few options lists them under one heading.
    public static let options = HelpSection(title: "OPTIONS")
}

/// One command-line option, declared once: its spellings, its value, its help line and what it does. Parsing, the
/// help text and "did you mean" all read it, as swift-argument-parser's `@Option` and `@Flag` do.
public struct Option<Parsed>: Sendable {
    /// What giving the option does.
    public enum Action: Sendable {
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
    public struct Form: Sendable {
        /// The placeholder after the name; `nil` for a switch.
        public var value: String?
        /// What the option does, lower-case, without the default (that comes from `defaultValue`).
        public var help: String
        /// The value used when the option is not given, shown as `(default 8)`.
        public var defaultValue: String?
        /// Whether giving it several times adds up (`--filter`), rather than the last one winning.
        public var isRepeatable = false

        /// - Parameters: as the properties.
        public init(value: String?, help: String, defaultValue: String? = nil, isRepeatable: Bool = false) {
            self.value = value
            self.help = help
            self.defaultValue = defaultValue
            self.isRepeatable = isRepeatable
        }
    }

    /// The spellings shown in help and offered by "did you mean", the first being the main one: `--help`, `-h`.
    public var names: [String]
    /// Spellings accepted as well but never shown: `--colour`.
    public var aliases: [String] = []
    /// Where help lists it; `nil` keeps it out of the option sections (`--help`).
    public var section: HelpSection?
    /// One help row each; most options have one.
    public var forms: [Form]
    /// What giving it does.
    public var action: Action

    /// - Parameters: as the properties.
    public init(
        names: [String], aliases: [String] = [], section: HelpSection?, forms: [Form], action: Action
    ) {
        self.names = names
        self.aliases = aliases
        self.section = section
        self.forms = forms
        self.action = action
    }

    /// Whether the option reads a value.
    public var takesValue: Bool {
        if case .value = action { return true }
        return false
    }

    /// `--jobs N`: an option with one value form.
    public static func value(
        _ name: String, _ value: String, section: HelpSection, help: String, defaultValue: String? = nil,
        isRepeatable: Bool = false, read: @escaping @Sendable (inout Parsed, String) throws(InvalidValue) -> Void
    ) -> Option {
        Option(
            names: [name], section: section,
            forms: [Form(value: value, help: help, defaultValue: defaultValue, isRepeatable: isRepeatable)],
            action: .value(read))
    }

    /// `--strict`: a switch.
    public static func flag(
        _ name: String, section: HelpSection, help: String, set: @escaping @Sendable (inout Parsed) -> Void
    ) -> Option {
        Option(names: [name], section: section, forms: [Form(value: nil, help: help)], action: .flag(set))
    }

    /// `-h, --help`: prints the command's help; not listed in its option sections.
    public static var help: Option { Option(names: ["--help", "-h"], section: nil, forms: [], action: .help) }
}

extension Option {
    /// The same option for a command whose value holds this option's value where `get` and `put` reach it (how a
    /// command takes a group: `Array.group`).
    public func lifted<Outer>(
        _ get: @escaping @Sendable (Outer) -> Parsed, _ put: @escaping @Sendable (inout Outer, Parsed) -> Void
    ) -> Option<Outer> {
        let action: Option<Outer>.Action =
            switch self.action {
            case .flag(let set):
                .flag { outer in
                    var inner = get(outer)
                    set(&inner)
                    put(&outer, inner)
                }
            case .toggle(let set):
                .toggle { outer, isOn in
                    var inner = get(outer)
                    set(&inner, isOn)
                    put(&outer, inner)
                }
            case .value(let read):
                .value { outer, text throws(InvalidValue) in
                    var inner = get(outer)
                    try read(&inner, text)
                    put(&outer, inner)
                }
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
public struct OptionTable<Parsed>: Sendable {
    /// The command's name in messages: `verify` in `run 'tether verify --help'`.
    public var command: String
    /// Every option, in the order help lists them.
    public var options: [Option<Parsed>]
    /// Takes an argument that is not an option (a `PATH`), or refuses it.
    public var operand: @Sendable (inout Parsed, String) throws(UsageError) -> Void

    /// - Parameters: as the properties.
    public init(
        command: String, options: [Option<Parsed>],
        operand: @escaping @Sendable (inout Parsed, String) throws(UsageError) -> Void
    ) {
        self.command = command
        self.options = options
        self.operand = operand
    }

    /// A table made of groups (`.group({ $0.plan.transport }, { $0.plan.transport = $1 })`) and the command's own
    /// options, in help's order.
    /// - Parameters:
    ///   - command: The command's name in messages.
    ///   - groups: The groups and lists of options, in order.
    ///   - operand: Takes an argument that is not an option.
    public init(
        command: String, groups: [[Option<Parsed>]],
        operand: @escaping @Sendable (inout Parsed, String) throws(UsageError) -> Void
    ) {
        self.init(command: command, options: groups.flatMap { $0 }, operand: operand)
    }

    /// What a command line asked for.
    public enum Outcome {
        /// Every argument was read into the value.
        case parsed(Parsed)
        /// `--help` came before any error.
        case help
    }

    /// Reads `arguments` in order into `start`: `--name value`, `--name=value`, switches, operands, and `--`, after
    /// which every argument is an operand (a path that starts with `-`).
    /// - Throws: A `UsageError` naming the option: unknown (with a suggestion from this table), a missing value, a
    ///   value given to a switch, a value its option refuses.
    public func parse(_ arguments: ArraySlice<String>, into start: Parsed) throws(UsageError) -> Outcome {
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
    public func helpSections(width: Int = HelpLayout.width) -> String {
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
    public var suggestions: [String] { options.flatMap(\.names).filter { $0.count > 2 } }

    private var helpPointer: String { "run 'tether \(command) --help'" }

    private func option(named name: String) -> Option<Parsed>? {
        // By index, not `first(where:)`: that generic call, unspecialized here, had the runtime look up the array's
        // conformances by name at its first use in a process (0.15 ms of a one-contract run).
        for index in options.indices where options[index].names.contains(name) || options[index].aliases.contains(name)
        {
            return options[index]
        }
        return nil
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
public enum HelpLayout {
    /// The widest a help line may be.
    public static let width = 120
    /// Labels start here.
    public static let indent = 2
    /// Spaces between the widest label and the text column.
    public static let gap = 2
    /// A label wider than this puts its text on the next line, so one long label does not push every row right.
    public static let widestLabel = 40

    /// A label (`--jobs N`, `tether mock FILE.har [--port N]`) and the text beside it.
    public struct Row {
        /// `--jobs N`.
        public var label: String
        /// What it does.
        public var text: String

        /// - Parameters: as the properties.
        public init(label: String, text: String) {
            self.label = label
            self.text = text
        }
    }

    /// The column the texts of `rows` start in: after the widest label that is not too wide.
    public static func column(for rows: [Row]) -> Int {
        indent + min(rows.map(\.label.count).max() ?? 0, widestLabel) + gap
    }

    /// `row` as lines: the label, its text from `column` on, wrapped to `width` and indented to `column`.
    public static func lines(for row: Row, column: Int, width: Int = width) -> [String] {
        let label = String(repeating: " ", count: indent) + row.label
        let margin = String(repeating: " ", count: column)
        let text = wrap(row.text, width: width - column)
        guard label.count + gap <= column else { return [label] + text.map { margin + $0 } }
        let first = label + String(repeating: " ", count: column - label.count) + (text.first ?? "")
        return [first] + text.dropFirst().map { margin + $0 }
    }

    /// `rows` laid out in one aligned column.
    public static func table(_ rows: [Row], width: Int = width) -> String {
        let column = column(for: rows)
        return rows.flatMap { lines(for: $0, column: column, width: width) }.joined(separator: "\n")
    }

    /// `text` broken at spaces into lines of at most `width` characters (a longer word keeps a line of its own).
    public static func wrap(_ text: String, width: Int) -> [String] {
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

/// Reads option values, each refusal worded to follow `--name: 'value'`.
public enum ValueReader {
    /// `4` → 4, when it lies in `range`.
    public static func wholeNumber(_ text: String, in range: ClosedRange<Int>) throws(InvalidValue) -> Int {
        guard let number = Int(text), range.contains(number) else {
            throw InvalidValue("is not a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    /// `10/s`, `0.5/s` or `10` → requests a second, above 0 and at most 10,000.
    public static func rate(_ text: String) throws(InvalidValue) -> Double {
        let number = text.hasSuffix("/s") ? String(text.dropLast(2)) : text
        guard let rate = Double(number), rate.isFinite, rate > 0, rate <= 10_000 else {
            throw InvalidValue("is not a rate such as 10/s or 0.5/s (requests a second, above 0, at most 10000)")
        }
        return rate
    }

    /// `2.5` → 2.5 seconds, when it lies in `range`.
    public static func seconds(_ text: String, in range: ClosedRange<Double>) throws(InvalidValue) -> Double {
        guard let number = Double(text), range.contains(number) else {
            throw InvalidValue(
                "is not a number of seconds from \(Self.text(seconds: range.lowerBound)) "
                    + "to \(Self.text(seconds: range.upperBound))")
        }
        return number
    }

    /// `1048576`, `512K`, `64M`, `1G` (a trailing `B` allowed, any case) → bytes.
    public static func byteCount(_ text: String) throws(InvalidValue) -> Int {
        var digits = text.uppercased()
        var multiplier = 1
        if digits.hasSuffix("B") { digits.removeLast() }
        if let last = digits.last, let unit = byteUnits.first(where: { $0.suffix == last }) {
            multiplier = unit.bytes
            digits.removeLast()
        }
        guard let number = Int(digits), number > 0, number <= Int.max / multiplier else {
            throw InvalidValue("is not a size in bytes such as 1048576, 512K or 64M")
        }
        return number * multiplier
    }

    /// A path `FileManager` can read.
    public static func readableFile(_ path: String) throws(InvalidValue) -> String {
        guard FileManager.default.isReadableFile(atPath: path) else { throw InvalidValue("is not a readable file") }
        return path
    }

    /// Refuses anything but an `http://` or `https://` URL.
    public static func checkHTTPURL(_ text: String) throws(InvalidValue) {
        guard HTTPRequest.isHTTPURL(text) else {
            throw InvalidValue("is not an http or https URL (write --base-url URL or --base-url SERVICE=URL)")
        }
    }

    /// `30` for 30.0, `0.001` for 0.001: as a user would type it.
    public static func text(seconds: Double) -> String {
        seconds == seconds.rounded() && abs(seconds) < 1e15 ? String(Int(seconds)) : String(seconds)
    }

    /// `64M` for 67108864: the largest unit that divides it.
    public static func text(bytes: Int) -> String {
        for unit in byteUnits.reversed() where bytes > 0 && bytes % unit.bytes == 0 {
            return "\(bytes / unit.bytes)\(unit.suffix)"
        }
        return String(bytes)
    }

    private static let byteUnits: [(suffix: Character, bytes: Int)] = [("K", 1 << 10), ("M", 1 << 20), ("G", 1 << 30)]
}
