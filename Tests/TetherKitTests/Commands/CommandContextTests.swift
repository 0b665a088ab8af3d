import Foundation
import Testing

@testable import TetherEngine
@testable import TetherKit

/// `CommandContext.keepUntilExit`: the executable leaves a run's values to its exit; a command run inside a longer
/// process (a test, an app) frees them as usual.
@Suite struct CommandContextTests {
    final class Marker {}

    /// Whether `value` is still alive after it is handed to `context.keepUntilExit` and its last own reference goes.
    static func survives(in context: CommandContext) -> Bool {
        weak var weak: Marker?
        do {
            let marker = Marker()
            weak = marker
            context.keepUntilExit([marker])
        }
        return weak != nil
    }

    @Test func aContextInsideAProcessFreesWhatItIsGiven() {
        let context = CommandContext(environment: [:], write: { _ in }, writeError: { _ in })
        #expect(!context.exitsAfterCommand)
        #expect(!Self.survives(in: context))
    }

    @Test func theExecutablesContextLeavesItToTheExit() {
        let context = CommandContext.process()
        #expect(context.exitsAfterCommand)
        #expect(Self.survives(in: context))  // one small object left to this test process's exit
    }
}
