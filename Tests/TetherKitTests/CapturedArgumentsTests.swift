import CArguments
import Testing

/// The executable's own `_swift_stdlib_getUnsafeArgvArgc` (Sources/CArguments) answers with the arguments glibc
/// handed its constructors. The test process links the Swift runtime as a shared library, whose `CommandLine` finds
/// them its own way: both must agree.
@Suite struct CapturedArgumentsTests {
    @Test func theCapturedArgumentsAreTheCommandLines() throws {
        var count: Int32 = -1
        let captured = tether_captured_arguments(&count)
        #if os(Linux) && canImport(Glibc)
            let argv = try #require(captured)
            let arguments = (0..<Int(count)).map { String(cString: argv[$0]!) }
            #expect(arguments == CommandLine.arguments)
            #expect(argv[Int(count)] == nil)
        #else
            #expect(captured == nil)
            #expect(count == 0)
        #endif
    }
}
