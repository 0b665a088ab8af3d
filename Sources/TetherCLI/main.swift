import Foundation
import TetherKit

// The thin executable: parse the arguments, call the library, map the outcome to an exit code.

func fail(_ message: String, code: Int32 = 2) -> Never {
    FileHandle.standardError.write(Data("tether: error: \(message)\n".utf8))
    exit(code)
}

/// Writes `text` to standard output at once, past stdio's buffer: a CI log (a pipe) shows each result as it comes.
/// One `write` of the string's own bytes (a `Data` copy and `FileHandle` per line cost 2 % of a 2,000-target run);
/// a closed or full output stops the writing, as before.
func emit(_ text: String) {
    guard !text.isEmpty else { return }
    var text = text
    _ = text.withUTF8 { ReportFile.writeAll(STDOUT_FILENO, UnsafeRawBufferPointer($0)) }
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
    let waiter = StopWaiter()
    do {
        let (server, archive) = try MockServer.replaying(harFile: harPath, port: port)
        let count = archive.entries.count == 1 ? "1 recorded response" : "\(archive.entries.count) recorded responses"
        emit("serving \(count) from \(harPath) on \(server.baseURL) (Ctrl-C stops)\n")
        waiter.serveUntilStopped(server, then: "mock server stopped")
    } catch {
        fail("\(error)")
    }
case .serve(let arguments):
    let waiter = StopWaiter()
    let server: MockServer
    do {
        if let harPath = arguments.harPath {
            let archive: HARArchive
            (server, archive) = try MockServer.replaying(
                harFile: harPath, host: arguments.host, port: arguments.port, onLine: { emit($0 + "\n") })
            emit("\(server.baseURL)\n")
            for note in archive.notes { FileHandle.standardError.write(Data("note: \(note)\n".utf8)) }
        } else {
            let routes: StubRoutes
            do {
                routes = try StubRoutes.load(paths: arguments.paths, environment: environment)
            } catch {
                FileHandle.standardError.write(Data((error.description + "\n").utf8))
                fail("\(error.countText); nothing is served")
            }
            server = try MockServer(
                host: arguments.host, port: arguments.port, onFinish: { emit(routes.line(for: $0) + "\n") },
                handler: { routes.response(for: $0) })
            emit("\(server.baseURL)\n")
            for note in routes.notes { FileHandle.standardError.write(Data("note: \(note)\n".utf8)) }
            let count = routes.routes.count == 1 ? "1 stub" : "\(routes.routes.count) stubs"
            FileHandle.standardError.write(Data("tether: serving \(count) on \(server.baseURL) (Ctrl-C stops)\n".utf8))
        }
    } catch {
        fail("\(error)")
    }
    waiter.serveUntilStopped(server, then: "stopped serving")
case .importHAR(let harPath, let service, let host, let folder):
    do {
        let (imported, manifestPath) = try HARImport.run(
            harPath: harPath, service: service, host: host, folder: folder)
        emit(imported.messages.map { "note: \($0)\n" }.joined())
        let samples =
            imported.manifest.samples.count == 1 ? "1 sample file" : "\(imported.manifest.samples.count) sample files"
        let count = imported.targetNames.count == 1 ? "1 target" : "\(imported.targetNames.count) targets"
        emit(
            "wrote \(manifestPath): \(count) of \(imported.baseURL), \(samples)\n")
    } catch {
        emit(error.messages.map { "note: \($0)\n" }.joined())
        fail(error.description)
    }
case .update(let arguments):
    runWritingNothingOnStop(arguments.verify) { inputs, options, isStopped throws(VerifyCommandError) in
        try UpdateCommand(
            inputs: inputs, options: options, isDryRun: arguments.isDryRun, isReplace: arguments.isReplace,
            redactJSON: arguments.redactJSON
        ).run(write: emit, isStopped: isStopped).exitCode
    }
case .learn(let arguments):
    runWritingNothingOnStop(arguments.verify) { inputs, options, isStopped throws(VerifyCommandError) in
        try LearnCommand(
            inputs: inputs, options: options, samples: arguments.sampleCount, pause: arguments.pause,
            harFiles: arguments.harFiles, isWriting: arguments.isWriting
        ).run(write: emit, isStopped: isStopped).exitCode
    }
case .verify(let arguments):
    runVerify(arguments)
case .mergeReports(let paths, let out):
    do {
        let merged = try ReportMerge.merge(paths)
        try ReportFile.write(merged.data, to: out, durability: .report)
        let counts = merged.counts
        let errors = counts.errors == 1 ? "1 error" : "\(counts.errors) errors"
        emit(
            "merged \(paths.count == 1 ? "1 report" : "\(paths.count) reports") into \(out): "
                + "\(counts.passed) passed, \(counts.drifted) failed, \(errors), \(counts.skipped) skipped "
                + merged.shape + "\n")
        exit(counts.exitCode)
    } catch let error as JUnitReadError {
        fail("\(error)")
    } catch {
        fail("--out \(error)")
    }
case .record(let arguments):
    runVerify(
        arguments.verify, tap: ResponseTap.recording(to: arguments.out ?? "", redactingJSON: arguments.redactJSON))
}

/// The commands that write files only once their run is over (`update`, `learn`): Ctrl-C and SIGTERM cancel the
/// requests in flight and the command then writes nothing; the exit code is 128 + the signal, else `run`'s.
/// - Parameter run: Runs the command with the inputs, the options (with the run's `Cancellation`) and whether a
///   signal came; returns its exit code.
func runWritingNothingOnStop(
    _ verify: VerifyArguments,
    _ run: (RunInputs, VerifyOptions, _ isStopped: () -> Bool) throws(VerifyCommandError) -> Int32
) -> Never {
    let cancellation = Cancellation()
    let received = ReceivedSignal()
    StopSignals.handle { signal in
        // Said first: once cancelled, the run may end and exit before a later write.
        FileHandle.standardError.write(Data("tether: \(StopSignals.name(signal)): stopping; nothing is written\n".utf8))
        received.record(signal)
        cancellation.cancel()
    }
    var options = verify.options
    options.transport.cancellation = cancellation
    do {
        let code = try run(verify.inputs(environment: environment), options, { received.value != nil })
        exit(received.value.map { 128 + $0 } ?? code)
    } catch {
        fail(error)
    }
}

/// Exits 2 (or the error's code) for an error before or around a run: every contract error first, in the
/// compiler's form that editors and CI annotations read, then the one-line message.
func fail(_ error: VerifyCommandError) -> Never {
    if case .contracts(let errors) = error {
        FileHandle.standardError.write(Data((errors.description + "\n").utf8))
    }
    fail(error.description)
}

/// `tether verify`, and the commands that are a verify run with more (`record`): Ctrl-C and SIGTERM stop the run
/// and the report keeps what finished; the exit code is the run's.
func runVerify(_ arguments: VerifyArguments, tap: @escaping ([Contract]) -> ResponseTap = { _ in ResponseTap() })
    -> Never
{
    let cancellation = Cancellation()
    let received = ReceivedSignal()
    StopSignals.handle { signal in
        // Said first: once cancelled, the run may end and exit before a later write (the message was lost so).
        FileHandle.standardError.write(
            Data(
                "tether: \(StopSignals.name(signal)): stopping; the report holds what finished (again to quit at once)\n"
                    .utf8))
        received.record(signal)
        cancellation.cancel()
    }
    var options = arguments.options
    options.transport.cancellation = cancellation
    let color = ConsoleWriter.isColorOn(
        flag: arguments.color, environment: environment, isTerminal: isatty(STDOUT_FILENO) == 1)
    var command = VerifyCommand(
        inputs: arguments.inputs(environment: environment), options: options,
        reports: arguments.reports(environment: environment), isJUnitFileAttributes: arguments.isJUnitFileAttributes,
        color: color, tap: tap)
    command.shard = arguments.shard
    command.timingsReport = arguments.timingsReport
    command.detail = arguments.detail
    command.isFailFast = arguments.isFailFast
    command.baselinePath = arguments.baselinePath
    command.isUpdatingBaseline = arguments.isUpdatingBaseline
    do {
        if arguments.isListOnly {
            _ = try command.list(write: emit)
            exit(0)
        }
        let report = try command.run(write: emit, writeError: { FileHandle.standardError.write(Data($0.utf8)) })
        exit(report.exitCode(interruptedBy: received.value))
    } catch {
        fail(error)
    }
}
