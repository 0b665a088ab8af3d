import TetherEngine

#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// The thin executable: parse the arguments, run the command, exit with its code (the commands are
// `CommandLineTool.tether`'s).
StopSignals.block()  // before any thread starts, so that every thread inherits it
let tool = CommandLineTool.tether
let arguments = Array(CommandLine.arguments.dropFirst())
tool.startUp(for: arguments)  // libcurl's set-up on the other core from here, before the environment is read
ZeroedData.populate()  // before the first read of most of its pages: see ZeroedData
let code = tool.run(arguments, context: .process()).rawValue
// Everything is written by now (the console and the reports are written as they are made, each report file closed
// and renamed into place): the libraries' clean-up at exit (OpenSSL's, about 0.2 ms of a one-contract run) is
// skipped, after anything a library left in a stdio buffer.
fflush(nil)
_exit(code)
