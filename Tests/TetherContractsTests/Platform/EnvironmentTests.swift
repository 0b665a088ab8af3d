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

    @Test func theProcessorCountIsFoundations() {
        #expect(ProcessEnvironment.activeProcessorCount == ProcessInfo.processInfo.activeProcessorCount)
        #expect(ProcessEnvironment.activeProcessorCount >= 1)
    }
}
