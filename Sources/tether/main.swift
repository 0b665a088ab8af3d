import Foundation
import Tether

// The thin executable: parse the arguments, call the library, map the outcome to an exit code.

func fail(_ message: String, code: Int32 = 2) -> Never {
    FileHandle.standardError.write(Data("tether: error: \(message)\n".utf8))
    exit(code)
}

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
    do {
        let archive = try HARArchive.load(contentsOf: harPath)
        let server = try MockServer(replaying: archive, file: harPath, port: port)
        // Written at once, not through stdio's buffer: a script reads the URL from a pipe while the server runs.
        FileHandle.standardOutput.write(
            Data(
                "serving \(archive.entries.count) recorded responses from \(harPath) on \(server.baseURL) (Ctrl-C stops)\n"
                    .utf8))
        while true { sleep(3600) }
    } catch {
        fail("\(error)")
    }
case .verify(let arguments):
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
        fail(
            "--filter \(arguments.filter.patterns.joined(separator: " ")) matches none of the \(contracts.count) targets (patterns match Service.target or target, with * and ?)"
        )
    }
    let noColour = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
    let colour = !noColour && (arguments.colour ?? (isatty(STDOUT_FILENO) == 1))  // NO_COLOR wins, even over --color
    var console = ConsoleReport.Stream(contracts: selected, colour: colour)
    let report = Verifier().run(selected, options: arguments.options) { index, result in
        print(console.add(result, at: index), terminator: "")
    }
    withExtendedLifetime(server) {}
    print(ConsoleReport.totalsLine(for: report.results, colour: colour))
    do {
        try JUnitReport.write(report, to: arguments.junitPath)
    } catch {
        fail("\(error)")
    }
    print("JUnit report: \(arguments.junitPath)")
    exit(report.exitCode)
}
