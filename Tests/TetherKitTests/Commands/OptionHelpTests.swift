import Testing

@testable import TetherEngine

/// An option's help row ends with the notes the table adds from its declaration, `(default 8; repeatable)`: a help
/// text that says them again prints them twice (`--ref`'s row read "(repeatable) (repeatable)").
@Suite struct OptionHelpTests {
    @Test func noHelpTextRepeatsTheNotesTheTableAdds() {
        let commands = CommandLineTool.tether.commands
        #expect(commands.count == 8)
        let repeated = commands.flatMap { Self.repeatedNotes($0) }
        #expect(repeated == [])
        // The rows as printed: each note once.
        let help = VerifyCommand.options.helpSections()
        #expect(!help.contains("(repeatable) (repeatable)"))
        #expect(help.contains("sent once (repeatable)"))
    }

    /// The spellings of the options of `command` whose help text says "repeatable" or "default" itself.
    private static func repeatedNotes<C: Command>(_ command: C.Type) -> [String] {
        C.options.options.flatMap { option in
            option.forms.compactMap { form in
                form.help.contains("repeatable") || form.help.contains("(default") ? option.names[0] : nil
            }
        }
    }
}
