import Foundation
import Testing

@testable import TetherCore

/// The environment the command line reads (from `environ` on Linux) is Foundation's, variable for variable, and so is
/// the processor count it asks once.
@Suite struct EnvironmentTests {
    @Test func theProcessEnvironmentIsFoundations() {
        let variables = ProcessEnvironment.variables()
        #expect(variables == ProcessInfo.processInfo.environment)
        #expect(variables["PATH"] != nil)  // the test's process has one, as every process started by a shell
    }

    /// An entry splits at the first `=` character, as a search by characters finds it, though it is found by its byte:
    /// a `=` joined into a larger character (a combining mark after it, a prepended mark before it) is not one.
    @Test func anEntrySplitsWhereTheCharactersSayWhateverItsBytes() {
        let entries = [
            "A=B", "=B", "A=", "A", "", "A=B=C", "PATH=/usr/bin:/bin", "é=x", "x=é", "ключ=значение",
            "A\u{301}=B", "A=\u{301}B", "A=\u{301}=C", "\u{600}=B", "\u{600}=B=C", "A=\u{200D}B", "A==",
            "A=\r\nB", "😀=😀", "A=😀=B",
        ]
        for entry in entries {
            #expect(ProcessEnvironment.firstEquals(in: entry) == entry.firstIndex(of: "="), "\(entry.debugDescription)")
        }
        // The ones a byte alone would split wrongly: the characters find no `=` at that byte.
        #expect(ProcessEnvironment.firstEquals(in: "A=\u{301}B") == nil)
        #expect(
            ProcessEnvironment.firstEquals(in: "A=\u{301}=C").map {
                "A=\u{301}=C".utf8.distance(from: "A=\u{301}=C".startIndex, to: $0)
            } == 4)
    }

    @Test func theProcessorCountIsFoundations() {
        #expect(ProcessEnvironment.activeProcessorCount == ProcessInfo.processInfo.activeProcessorCount)
        #expect(ProcessEnvironment.activeProcessorCount >= 1)
    }
}
