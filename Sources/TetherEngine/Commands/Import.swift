/// `tether import`: contracts and sample files from traffic recorded in a HAR file, or from an OpenAPI document's
/// examples (`--spec`).
public struct ImportCommand: Command {
    /// The HAR file to import.
    public var harPath: String?
    /// The OpenAPI document to import its examples from (`--spec`), instead of a HAR file.
    public var specPath: String?
    /// `--tag`: with `--spec`, only operations with one of these tags.
    public var tags: [String] = []
    /// `--base-url`: with `--spec`, the manifest's base URL instead of the document's first server.
    public var baseURL: String?
    /// The service name (`--service`).
    public var service: String?
    /// The host whose entries to import (`--host`); `nil` takes the most common one.
    public var host: String?
    /// Where the manifest and its sample files go (`--out`).
    public var folder = "contracts"

    /// Every option at its default.
    public init() {}

    /// `tether import`.
    public static let configuration = CommandConfiguration(
        names: ["import"],
        usage: "tether import FILE.har --service NAME [--out DIR] [--host HOST]\n"
            + "  tether import --spec FILE --service NAME [--out DIR] [--tag TAG ...]",
        summary: "write contracts from traffic recorded in a HAR file, or from an OpenAPI document's examples",
        help: { help })

    /// `--service`, `--out`, `--host`, and the HAR file.
    public static let options = OptionTable<ImportCommand>(
        command: "import",
        options: [
            .value(
                "--service", "NAME", section: .options, help: "the service's name: the manifest's service and file name"
            ) { $0.service = $1 },
            .value(
                "--out", "DIR", section: .options, help: "the folder for the manifest and its samples",
                defaultValue: "contracts"
            ) { $0.folder = $1 },
            .value(
                "--host", "HOST", section: .options, help: "import the entries of HOST (or HOST:PORT)",
                defaultValue: "the most common host"
            ) { $0.host = $1 },
            .value(
                "--spec", "FILE", section: .options,
                help: "import an OpenAPI document's examples instead of a HAR file: a target per operation and "
                    + "documented response with an example"
            ) { $0.specPath = $1 },
            .value(
                "--tag", "TAG", section: .options, help: "with --spec: only operations tagged TAG", isRepeatable: true
            ) { $0.tags.append($1) },
            .value(
                "--base-url", "URL", section: .options,
                help: "with --spec: the manifest's baseURL, for a document without an absolute server URL",
                defaultValue: "the document's first server"
            ) { $0.baseURL = $1 },
            .help,
        ],
        operand: { command, path throws(UsageError) in
            if let first = command.harPath {
                throw UsageError("tether import reads one HAR file; got '\(first)' and '\(path)'")
            }
            command.harPath = path
        })

    /// The HAR file and `--service` are required.
    public func validate() throws(UsageError) {
        if let spec = specPath {
            if let har = harPath {
                throw UsageError("tether import reads a HAR file or --spec FILE, not both: '\(har)'")
            }
            guard service != nil else {
                throw UsageError(
                    "tether import needs --service NAME, e.g. tether import --spec \(spec) --service GitHub")
            }
            return
        }
        if !tags.isEmpty || baseURL != nil {
            throw UsageError("--tag and --base-url are for --spec FILE's import; add --spec")
        }
        guard let path = harPath else {
            throw UsageError("tether import needs a HAR file, e.g. tether import traffic.har --service GitHub")
        }
        guard service != nil else {
            throw UsageError("tether import needs --service NAME, e.g. tether import \(path) --service GitHub")
        }
    }

    /// Imports: exit 0 with the manifest written, 2 when nothing could be.
    public func run(_ context: CommandContext) -> ExitCode {
        if let specPath { return importSpec(specPath, context) }
        do {
            let (imported, manifestPath) = try HARImport.run(
                harPath: harPath ?? "", service: service ?? "", host: host, folder: folder)
            context.write(imported.messages.map { "note: \($0)\n" }.joined())
            let samples =
                imported.manifest.samples.count == 1
                ? "1 sample file" : "\(imported.manifest.samples.count) sample files"
            let count = imported.targetNames.count == 1 ? "1 target" : "\(imported.targetNames.count) targets"
            context.write("wrote \(manifestPath): \(count) of \(imported.baseURL), \(samples)\n")
            return .success
        } catch {
            context.write(error.messages.map { "note: \($0)\n" }.joined())
            context.error(error.description)
            return .usage
        }
    }

    /// `tether import --spec`: exit 0 with the manifest written, 2 when nothing could be.
    private func importSpec(_ path: String, _ context: CommandContext) -> ExitCode {
        do {
            let (imported, manifestPath) = try SpecImport.run(
                specPath: path, service: service ?? "", tags: tags, baseURL: baseURL, folder: folder)
            context.write(imported.messages.map { "note: \($0)\n" }.joined())
            let count = imported.targetNames.count == 1 ? "1 target" : "\(imported.targetNames.count) targets"
            context.write(
                "wrote \(manifestPath): \(count) of \(imported.baseURL) from the examples of \(path)\n"
                    + "then: tether verify \(folder) --spec \(path) --offline\n")
            return .success
        } catch {
            context.write(error.messages.map { "note: \($0)\n" }.joined())
            if case .spec(let problems) = error {
                // In the compiler's form, then counted, as `verify --spec` prints a broken document.
                let broken = BrokenSpec(file: path, diagnostics: problems.problems.map(\.diagnostic))
                context.writeError(broken.diagnostics.map { $0 + "\n" }.joined())
                context.error("\(broken.summary); nothing was written")
            } else {
                context.error(error.description)
            }
            return .usage
        }
    }

    /// `tether import --help`.
    static var help: String {
        """
        USAGE
          \(configuration.usage)

        Writes DIR/<service>.json and DIR/samples/<service>/: one target per distinct method and path of the most
        common host, with the entry's query, its recorded status as sampleResponse and its body, byte for byte, as
        the sample file. Entries without a response, with status 0, 1xx or a redirect, and entries of other hosts
        are skipped with a message; a repeated request keeps its first recorded answer, the one --mock replays.
        Only the Accept request header is copied: never credentials, cookies or HTTP/2 pseudo-headers; credentials
        found in a recorded body are written as <redacted>. A query parameter named as a credential (api_key,
        access_token) keeps its value, which the replay matches; a note says to write it as ${VAR} before you
        commit. Then: tether verify DIR --mock FILE.har

        With --spec FILE instead of a HAR file: one target per operation and documented response that has an
        example (example, examples, 2.0 examples), the example as its sample file and the response's status; each
        required parameter and a required request body from their examples (those named as the response's
        example first, so that a 404 example gets a request of its own). What has no example is listed, not
        invented. Then: tether verify DIR --spec FILE --offline

        \(options.helpSections())
        """
    }
}
