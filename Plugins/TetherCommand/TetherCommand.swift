import Foundation
import PackagePlugin

/// `swift package tether <command> [ARGUMENTS …]`: the `tether` command line, built with the package that depends on
/// Tether and run in that package's folder, so a Moya app's repository checks its contracts without installing
/// anything: `swift package --allow-network-connections all --allow-writing-to-package-directory tether verify
/// contracts`. The network permission is for the requests `verify`, `record`, `update` and `learn` send; writing to
/// the package folder is for the reports (`reports/`) and for the files `update`, `learn`, `record` and `import`
/// write. Tether's own exit code is printed when it is not 0, and the command then fails.
@main struct TetherCommand: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        let tether = try context.tool(named: "TetherCLI")  // the executable target behind the `tether` product
        let process = Process()
        process.executableURL = tether.url
        process.arguments = arguments
        process.currentDirectoryURL = context.package.directoryURL
        try process.run()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw TetherFailed(status: process.terminationStatus, arguments: arguments)
        }
    }
}

/// `tether verify … exited with 1` (1: a drift; 2: bad input; see the README's exit codes).
struct TetherFailed: Error, CustomStringConvertible {
    var status: Int32
    var arguments: [String]

    var description: String {
        "tether \(arguments.first ?? "") exited with \(status) (1: a drift; 2: bad input or usage, nothing sent; 3: some "
            + "targets not checked; 4: nothing checked; see the README's exit codes)"
    }
}
