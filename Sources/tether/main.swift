import Foundation
import Tether

// The thin executable: parse the arguments, call the library, map the outcome to an exit code.

func fail(_ message: String, code: Int32 = 2) -> Never {
    FileHandle.standardError.write(Data("tether: error: \(message)\n".utf8))
    exit(code)
}

/// Writes `text` to standard output at once, past stdio's buffer: a CI log (a pipe) shows each result as it comes.
func emit(_ text: String) {
    guard !text.isEmpty else { return }
    try? FileHandle.standardOutput.write(contentsOf: Data(text.utf8))
}

StopSignals.block()  // before any thread starts, so that every thread inherits it
let environment = ProcessInfo.processInfo.environment
let command: Command
do {
    command = try parseCommand(Array(CommandLine.arguments.dropFirst()), environment: environment)
} catch {
    fail(error.description)
}

switch command {
case .help(let text):
    print(text)
case .version:
    print("tether \(tetherVersion)")
case .mock(let harPath, let port):
    let stop = DispatchSemaphore(value: 0)
    let received = ReceivedSignal()
    StopSignals.handle { signal in
        received.record(signal)
        stop.signal()
    }
    do {
        let archive = try HARArchive.load(contentsOf: harPath)
        let server = try MockServer(replaying: archive, file: harPath, port: port)
        let count = archive.entries.count == 1 ? "1 recorded response" : "\(archive.entries.count) recorded responses"
        emit("serving \(count) from \(harPath) on \(server.baseURL) (Ctrl-C stops)\n")
        stop.wait()
        server.stop()
        let signal = received.value ?? SIGINT
        FileHandle.standardError.write(Data("tether: \(StopSignals.name(signal)): mock server stopped\n".utf8))
        exit(128 + signal)
    } catch {
        fail("\(error)")
    }
case .verify(let arguments):
    let cancellation = Cancellation()
    let received = ReceivedSignal()
    StopSignals.handle { signal in
        received.record(signal)
        cancellation.cancel()
        FileHandle.standardError.write(
            Data(
                "tether: \(StopSignals.name(signal)): stopping; the report holds what finished (again to quit at once)\n"
                    .utf8))
    }
    var options = arguments.options
    options.transport.cancellation = cancellation
    var overrides = arguments.baseURLs
    var server: MockServer?
    if let harPath = arguments.mockHAR {
        do {
            let mock = try MockServer(replaying: try HARArchive.load(contentsOf: harPath), file: harPath)
            overrides.all = mock.baseURL
            server = mock
        } catch {
            fail("\(error)")
        }
    }
    let contracts: [Contract]
    do {
        contracts = try ManifestLoader(environment: environment, baseURLOverrides: overrides).load(
            paths: arguments.paths)
    } catch {
        // Every contract error at once, in the compiler's form that editors and CI annotations read.
        FileHandle.standardError.write(Data((error.description + "\n").utf8))
        fail("\(error.countText); nothing was sent")
    }
    let selected = contracts.filter(arguments.filter.matches)
    guard !selected.isEmpty else {
        if contracts.isEmpty { fail("no targets in \(arguments.paths.joined(separator: ", ")): nothing to verify") }
        let among = contracts.count == 1 ? "the only target" : "the \(contracts.count) targets"
        fail(
            "--filter \(arguments.filter.patterns.joined(separator: " ")) matches none of \(among) (patterns match Service.target or target, with * and ?)"
        )
    }
    // The report path is checked before anything is sent: the exit code of a run always speaks of its contracts.
    do {
        try JUnitReport.checkWritable(arguments.junitPath)
    } catch {
        fail("--junit \(error); nothing was sent")
    }
    let colour = ConsoleReport.isColourOn(
        flag: arguments.colour, environment: environment, isTerminal: isatty(STDOUT_FILENO) == 1)
    var console = ConsoleReport.Stream(contracts: selected, colour: colour)
    let report = Verifier().run(selected, options: options) { index, result in
        emit(console.add(result, at: index))
    }
    withExtendedLifetime(server) {}
    emit(ConsoleReport.closing(for: report, colour: colour))
    do {
        try JUnitReport.write(report, to: arguments.junitPath)
    } catch {
        fail("\(error)")
    }
    emit("JUnit report: \(arguments.junitPath)\n")
    exit(report.exitCode(interruptedBy: received.value))
}
