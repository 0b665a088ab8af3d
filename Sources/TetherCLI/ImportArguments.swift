import TetherKit

/// `tether import`'s arguments while they are read.
struct ImportArguments {
    /// The HAR file to import.
    var harPath: String?
    /// The service name (`--service`).
    var service: String?
    /// The host whose entries to import (`--host`); `nil` takes the most common one.
    var host: String?
    /// Where the manifest and its sample files go (`--out`).
    var folder = "contracts"
}

extension TetherCommand {
    /// `tether import`: contracts from a HAR file.
    static let importHAR: TetherCommand = .init(
        names: ["import"], usage: "tether import FILE.har --service NAME [--out DIR] [--host HOST]",
        summary: "write contracts from traffic recorded in a HAR file (browsers, Charles, Proxyman, mitmproxy)",
        helpText: { Help.importHAR }, parse: parseImport)
}

private func parseImport(_ arguments: ArraySlice<String>) throws(UsageError) -> Command {
    switch try importOptions.parse(arguments, into: ImportArguments()) {
    case .help: return .help(Help.importHAR)
    case .parsed(let result):
        guard let path = result.harPath else {
            throw UsageError("tether import needs a HAR file, e.g. tether import traffic.har --service GitHub")
        }
        guard let service = result.service else {
            throw UsageError("tether import needs --service NAME, e.g. tether import \(path) --service GitHub")
        }
        return .importHAR(harPath: path, service: service, host: result.host, folder: result.folder)
    }
}

/// Every option of `tether import`.
let importOptions = OptionTable<ImportArguments>(
    command: "import",
    options: [
        .value("--service", "NAME", section: .options, help: "the service's name: the manifest's service and file name")
        {
            $0.service = $1
        },
        .value(
            "--out", "DIR", section: .options, help: "the folder for the manifest and its samples",
            defaultValue: "contracts"
        ) {
            $0.folder = $1
        },
        .value(
            "--host", "HOST", section: .options, help: "import the entries of HOST (or HOST:PORT)",
            defaultValue: "the most common host"
        ) { $0.host = $1 },
        .help,
    ],
    operand: { arguments, path throws(UsageError) in
        if let first = arguments.harPath {
            throw UsageError("tether import reads one HAR file; got '\(first)' and '\(path)'")
        }
        arguments.harPath = path
    })

extension Help {
    /// `tether import --help`.
    static let importHAR: String = """
        USAGE
          \(TetherCommand.importHAR.usage)

        Writes DIR/<service>.json and DIR/samples/<service>/: one target per distinct method and path of the most
        common host, with the entry's query, its recorded status as sampleResponse and its body, byte for byte, as
        the sample file. Entries without a response, with status 0, 1xx or a redirect, and entries of other hosts
        are skipped with a message; a repeated request keeps its first recorded answer, the one --mock replays.
        Only the Accept request header is copied: never credentials, cookies or HTTP/2 pseudo-headers; credentials
        found in a recorded body are written as <redacted>. Then: tether verify DIR --mock FILE.har

        \(importOptions.helpSections())
        """
}
