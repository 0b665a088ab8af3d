import Testing

@testable import TetherEngine

/// An option's help row ends with the notes the table adds from its declaration, `(default 8; repeatable)`: a help
/// text that says them again prints them twice (`--ref`'s row read "(repeatable) (repeatable)").
@Suite struct OptionHelpTests {
    @Test func noHelpTextRepeatsTheNotesTheTableAdds() {
        let repeated =
            Self.repeatedNotes(VerifyCommand.options) + Self.repeatedNotes(RecordCommand.options)
            + Self.repeatedNotes(UpdateCommand.options) + Self.repeatedNotes(LearnCommand.options)
            + Self.repeatedNotes(MockCommand.options) + Self.repeatedNotes(ServeCommand.options)
            + Self.repeatedNotes(ImportCommand.options) + Self.repeatedNotes(MergeReportsCommand.options)
        #expect(repeated == [])
        // The rows as printed: each note once.
        let help = VerifyCommand.options.helpSections()
        #expect(!help.contains("(repeatable) (repeatable)"))
        #expect(help.contains("sent once (repeatable)"))
    }

    /// The spellings of the options of `table` whose help text says "repeatable" or "default" itself.
    private static func repeatedNotes<Parsed>(_ table: OptionTable<Parsed>) -> [String] {
        table.options.flatMap { option in
            option.forms.compactMap { form in
                form.help.contains("repeatable") || form.help.contains("(default") ? option.names[0] : nil
            }
        }
    }
}
