import Foundation
import TetherKit

/// What the command line asked for.
enum Command {
    case help(String)
    case version
    case verify(VerifyArguments)
    case record(RecordArguments)
    case mergeReports(paths: [String], out: String)
    case update(UpdateArguments)
    case learn(LearnArguments)
    case mock(harPath: String, port: Int)
    case serve(ServeArguments)
    case importHAR(harPath: String, service: String, host: String?, folder: String)
}

extension VerifyArguments {
    /// The paths, `--base-url`, `--mock` and `--filter`, as every command built on a run reads them.
    func inputs(environment: [String: String]) -> RunInputs {
        RunInputs(paths: paths, environment: environment, baseURLs: baseURLs, mockHAR: mockHAR, filter: filter)
    }
}

/// `tether verify`'s options, parsed and checked.
struct VerifyArguments {
    var paths: [String] = []
    var baseURLs = BaseURLOverrides()
    var mockHAR: String?
    var filter = ContractFilter(patterns: [])
    /// Report paths by format option (`junit`), as given (`""` for a flag format); formats not given use their
    /// default path, or the environment turns them on (`ReportFormat.selection`).
    var reportPaths: [String: String] = [:]
    /// `--junit-file-attributes`.
    var isJUnitFileAttributes = false
    var options = VerifyOptions()
    var color: Bool?
    /// `--shard K/N`.
    var shard: ContractShard?
    /// `--timings FILE`.
    var timingsReport: String?
    /// `--quiet`, `--verbose` (the last one given wins).
    var detail = ConsoleDetail.normal
    /// `--list`.
    var isListOnly = false
    /// `--fail-fast`.
    var isFailFast = false
    /// `--baseline FILE`.
    var baselinePath: String?
    /// `--update-baseline`.
    var isUpdatingBaseline = false

    /// Every report the run writes, with its path (`nil` for flags).
    func reports(environment: [String: String]) -> [(format: ReportFormat, path: String?)] {
        ReportFormat.selection(given: reportPaths, environment: environment)
    }
}

/// A command line that cannot be run: printed with a hint, exit code 2.
struct UsageError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Parses `tether`'s arguments (no swift-argument-parser on these machines: ours, from one table per command, with
/// suggestions for typos).
func parseCommand(_ arguments: [String], environment: [String: String]) throws(UsageError) -> Command {
    var rest = arguments[...]
    guard let first = rest.popFirst() else { return .help(Help.main) }
    guard let command = TetherCommand.named(first) else {
        let hint = didYouMean(first, in: TetherCommand.suggestions)
        throw UsageError("unknown command '\(first)'\(hint); run 'tether --help'")
    }
    return try command.parse(rest)
}

/// One of `tether`'s commands, declared once: its spellings, its usage line and summary in `tether --help`, and
/// how it reads the arguments after it.
struct TetherCommand: Sendable {
    /// The first is the main one; all are accepted and offered by "did you mean".
    var names: [String]
    /// `tether verify [PATH ...] [OPTIONS]`: the first line of its help and its row in `tether --help`.
    var usage: String
    /// What it does, beside its usage line in `tether --help`.
    var summary: String
    /// What `tether help NAME` prints; `nil` when there is nothing to say beyond its summary.
    var helpText: (@Sendable () -> String)?
    /// Reads the arguments after the command's name.
    var parse: @Sendable (ArraySlice<String>) throws(UsageError) -> Command

    /// `tether verify`: checks contracts against the live services or a mock.
    static let verify: TetherCommand = .init(
        names: ["verify"], usage: "tether verify [PATH ...] [OPTIONS]",
        summary: "verify contract files (default: the contracts folder)", helpText: { Help.verify }, parse: parseVerify)
    /// `tether mock`: serves a HAR file's responses.
    static let mock: TetherCommand = .init(
        names: ["mock"], usage: "tether mock FILE.har [--port N]",
        summary: "serve recorded responses from a HAR file on 127.0.0.1", helpText: { Help.mock }, parse: parseMock)
    /// `tether serve`: serves the stubs as a mock service.
    static let serve: TetherCommand = .init(
        names: ["serve"], usage: "tether serve [PATH ...] [--port N] [--host ADDRESS] [--har FILE]",
        summary: "serve the stubs (or a HAR file) as a mock service on 127.0.0.1", helpText: { Help.serve },
        parse: parseServe)
    /// `tether --version`.
    static let version: TetherCommand = .init(
        names: ["--version", "-V", "version"], usage: "tether --version", summary: "print the version",
        helpText: nil, parse: { _ in .version })
    /// `tether help [COMMAND]`, also `tether --help`.
    static let help: TetherCommand = .init(
        names: ["help", "--help", "-h"],
        usage: "tether help [verify | record | update | learn | mock | serve | import | merge-reports]",
        summary: "print help",
        helpText: { Help.main }, parse: parseHelp)

    /// In the order `tether --help` lists them.
    static let all: [TetherCommand] = [
        verify, record, update, learn, mock, serve, importHAR, mergeReports, version, help,
    ]

    /// The command spelled `name`, if any.
    static func named(_ name: String) -> TetherCommand? { all.first { $0.names.contains(name) } }

    /// Every spelling of more than one letter: what "did you mean" chooses from.
    static var suggestions: [String] { all.flatMap(\.names).filter { $0.count > 2 } }
}

private func parseHelp(_ arguments: ArraySlice<String>) throws(UsageError) -> Command {
    var rest = arguments
    guard let topic = rest.popFirst() else { return .help(Help.main) }
    guard let help = TetherCommand.named(topic)?.helpText else {
        let topics = TetherCommand.all.filter { $0.helpText != nil && $0.names[0] != "help" }.map { $0.names[0] }
        let hint = didYouMean(topic, in: topics)
        throw UsageError(
            "no help on '\(topic)'\(hint): the commands are "
                + "\(topics.dropLast().joined(separator: ", ")) and \(topics.last ?? ""); "
                + "run 'tether --help'")
    }
    if let extra = rest.first {
        throw UsageError("tether help takes one command, got '\(extra)' after '\(topic)'; run 'tether help \(topic)'")
    }
    return .help(help())
}

private func parseVerify(_ arguments: ArraySlice<String>) throws(UsageError) -> Command {
    switch try verifyOptions.parse(arguments, into: VerifyArguments()) {
    case .help: return .help(Help.verify)
    case .parsed(var result):
        if result.paths.isEmpty { result.paths = ["contracts"] }
        return .verify(result)
    }
}

/// `tether mock`'s arguments while they are read.
struct MockArguments {
    /// The HAR file to serve.
    var harPath: String?
    /// 0 lets the system choose a free port.
    var port = 0
}

private func parseMock(_ arguments: ArraySlice<String>) throws(UsageError) -> Command {
    switch try mockOptions.parse(arguments, into: MockArguments()) {
    case .help: return .help(Help.mock)
    case .parsed(let result):
        guard let path = result.harPath else {
            throw UsageError("tether mock needs a HAR file, e.g. tether mock contracts/github.har")
        }
        return .mock(harPath: path, port: result.port)
    }
}

/// `tether serve`'s arguments.
struct ServeArguments {
    /// Manifests or folders of them (default: contracts).
    var paths: [String] = []
    /// 0 lets the system choose a free port.
    var port = 0
    /// The IPv4 address to listen on.
    var host = "127.0.0.1"
    /// A HAR file to serve instead of the stubs.
    var harPath: String?
}

private func parseServe(_ arguments: ArraySlice<String>) throws(UsageError) -> Command {
    switch try serveOptions.parse(arguments, into: ServeArguments()) {
    case .help: return .help(Help.serve)
    case .parsed(var result):
        if result.harPath != nil, !result.paths.isEmpty {
            throw UsageError(
                "tether serve serves the stubs of PATH or a HAR file (--har), not both; drop '\(result.paths[0])' or --har"
            )
        }
        if result.paths.isEmpty { result.paths = ["contracts"] }
        return .serve(result)
    }
}

/// Every option of `tether serve`.
let serveOptions = OptionTable<ServeArguments>(
    command: "serve",
    options: [
        .value("--port", "N", section: .options, help: "the port to serve on", defaultValue: "a free one") {
            arguments, text throws(InvalidValue) in
            arguments.port = try ValueReader.wholeNumber(text, in: 0...65535)
        },
        .value(
            "--host", "ADDRESS", section: .options,
            help: "the IPv4 address to listen on (0.0.0.0: every interface; localhost: 127.0.0.1)",
            defaultValue: "127.0.0.1"
        ) { arguments, text throws(InvalidValue) in
            let address = text == "localhost" ? "127.0.0.1" : text
            var parsed = in_addr()
            guard inet_pton(AF_INET, address, &parsed) == 1 else {
                throw InvalidValue("is not an IPv4 address such as 127.0.0.1 or 0.0.0.0 (or localhost)")
            }
            arguments.host = address
        },
        .value(
            "--har", "FILE.har", section: .options,
            help: "serve the responses recorded in FILE.har (the replay of verify --mock) instead of the stubs"
        ) { $0.harPath = $1 },
        .help,
    ],
    operand: { arguments, path in arguments.paths.append(path) })

/// The sections of `tether verify --help` and `tether mock --help`, in the order of their first option.
extension HelpSection {
    /// `--base-url`, `--mock`.
    static let whereRequestsGo = HelpSection(title: "WHERE REQUESTS GO")
    /// `--filter`.
    static let whichTargets = HelpSection(title: "WHICH TARGETS")
    /// `--strict`, and where the contract's own rules are.
    static let rules = HelpSection(
        title: "RULES",
        note: "A manifest's \"rules\" (per target, and top-level for the service) ignore, optional, nullable, maps, "
            + "strict, formats, values and status: see README, \"Rules\".")
    /// Concurrency, timeouts, body size, TLS.
    static let transport = HelpSection(
        title: "TRANSPORT", note: "Proxies come from http_proxy, https_proxy and no_proxy, as for curl.")
    /// Known drift, pending targets, flakiness: what fails the exit code.
    static let gate = HelpSection(
        title: "GATE",
        note: "A target new since the baseline, or marked \"pending\": true and never passed, is reported but does not "
            + "fail the gate until it has passed once (--update-baseline remembers the pass).")
    /// Reports and the console.
    static let output = HelpSection(
        title: "OUTPUT",
        note: "On GitHub Actions (GITHUB_ACTIONS=true) annotations are printed and the Markdown summary is appended "
            + "to $GITHUB_STEP_SUMMARY, without options. Secrets are <redacted> in every report.")
    /// A command with few options lists them under one heading.
    static let options = HelpSection(title: "OPTIONS")
}

/// Every option of `tether verify`, in the order its help lists them.
let verifyOptions = OptionTable<VerifyArguments>(
    command: "verify",
    options: [
        Option(
            names: ["--base-url"], section: .whereRequestsGo,
            forms: [
                .init(value: "URL", help: "send every service's requests to URL instead of its manifest's baseURL"),
                .init(
                    value: "SERVICE=URL", help: "the same for one service; wins over the form above",
                    isRepeatable: true),
            ],
            action: .value { arguments, text throws(InvalidValue) in try arguments.baseURLs.add(text) }),
        .value(
            "--mock", "FILE.har", section: .whereRequestsGo,
            help: "start an embedded server on 127.0.0.1 that replays the responses recorded in FILE.har "
                + "(Proxyman, Charles, browsers) and verify against it"
        ) { $0.mockHAR = $1 },
        .value(
            "--filter", "PATTERN", section: .whichTargets,
            help: "only targets whose Service.target (or target) matches PATTERN; * and ? are wildcards: "
                + "--filter 'GitHub.user*' --filter zen",
            isRepeatable: true
        ) { $0.filter.patterns.append($1) },
        .value(
            "--shard", "K/N", section: .whichTargets,
            help: "run part K of N (a CI matrix job), every target in exactly one part; join the parts' reports with "
                + "tether merge-reports"
        ) { arguments, text throws(InvalidValue) in
            guard let shard = ContractShard(text) else {
                throw InvalidValue("is not a shard such as 1/4 (K from 1 to N, N from 1 to 10000)")
            }
            arguments.shard = shard
        },
        .value(
            "--timings", "FILE", section: .whichTargets,
            help: "balance --shard by the test times of this earlier JUnit report instead of by count "
                + "(without --shard it is not read)",
            defaultValue: "by count"
        ) { arguments, text throws(InvalidValue) in
            arguments.timingsReport = try ValueReader.readableFile(text)
        },
        .flag(
            "--strict", section: .rules,
            help: "keys the live body has and the stub lacks are drifts, not notes (a target's \"strict\" rule, "
                + "true or false, wins over this flag)"
        ) {
            $0.options.isStrict = true
        },
        .flag(
            "--exhaustive", section: .rules,
            help: "a target whose stub asserts no body (Moya's empty Data(), or JSON with no key such as {} or []) "
                + "drifts; the console and JUnit always show coverage: targets with a body contract / all targets"
        ) { $0.options.isExhaustive = true },
        .value(
            "--baseline", "FILE", section: .gate,
            help: "drifts recorded in FILE are reported as known and do not fail the gate; new drifts do; recorded "
                + "drifts that are gone are reported as fixed"
        ) { $0.baselinePath = $1 },
        .flag(
            "--update-baseline", section: .gate,
            help: "write the --baseline FILE after the run: record new drifts, prune fixed ones, remember passes"
        ) { $0.isUpdatingBaseline = true },
        .flag(
            "--fail-on-flaky", section: .gate,
            help: "a target that passed only after a retry fails the gate (exit code 3)"
        ) { $0.options.failsOnFlaky = true },
        .value(
            "--jobs", "N", section: .transport, help: "requests in flight at once",
            defaultValue: String(TransportOptions().jobs)
        ) { arguments, text throws(InvalidValue) in
            arguments.options.transport.jobs = try ValueReader.wholeNumber(text, in: 1...256)
        },
        .value(
            "--jobs-per-host", "N", section: .transport, help: "requests in flight at once to one host",
            defaultValue: "as --jobs"
        ) { arguments, text throws(InvalidValue) in
            arguments.options.transport.hostLimits.jobsPerHost = try ValueReader.wholeNumber(text, in: 1...256)
        },
        .value(
            "--rate", "N/s", section: .transport, help: "start at most N requests a second to one host (retries count)",
            defaultValue: "no limit"
        ) { arguments, text throws(InvalidValue) in
            arguments.options.transport.hostLimits.requestsPerSecond = try ValueReader.rate(text)
        },
        .value(
            "--retries", "N", section: .transport,
            help: "send again after a transport error, a 5xx or a 429 (never a 4xx or a drift), up to N times, "
                + "backing off from \(ValueReader.text(seconds: RetryPolicy().baseDelay))s with jitter and honouring "
                + "Retry-After up to \(ValueReader.text(seconds: RetryPolicy().maxDelay))s",
            defaultValue: String(RetryPolicy().retries)
        ) { arguments, text throws(InvalidValue) in
            arguments.options.transport.retry.retries = try ValueReader.wholeNumber(text, in: 0...10)
        },
        .value(
            "--timeout", "SECONDS", section: .transport, help: "per request, start to last byte",
            defaultValue: ValueReader.text(seconds: TransportOptions().timeout)
        ) { arguments, text throws(InvalidValue) in
            arguments.options.transport.timeout = try ValueReader.seconds(text, in: 0.001...86_400)
        },
        .value(
            "--connect-timeout", "SECONDS", section: .transport, help: "per connection",
            defaultValue: ValueReader.text(seconds: TransportOptions().connectTimeout)
        ) { arguments, text throws(InvalidValue) in
            arguments.options.transport.connectTimeout = try ValueReader.seconds(text, in: 0.001...86_400)
        },
        .value(
            "--max-body", "BYTES", section: .transport, help: "largest body accepted, e.g. 1048576, 512K, 64M",
            defaultValue: ValueReader.text(bytes: TransportOptions().maxBodyBytes)
        ) { arguments, text throws(InvalidValue) in
            arguments.options.transport.maxBodyBytes = try ValueReader.byteCount(text)
        },
        .flag("--insecure", section: .transport, help: "do not verify TLS certificates") {
            $0.options.transport.isInsecure = true
        },
        .value("--cacert", "FILE", section: .transport, help: "trust the CA certificates in FILE (PEM)") {
            arguments, text throws(InvalidValue) in
            arguments.options.transport.caCertificatePath = try ValueReader.readableFile(text)
        },
    ]
        // One option per report file format, from the formats' own registry.
        + ReportFormat.all.map { format in
            switch format.value {
            case .none:
                .flag("--\(format.option)", section: .output, help: format.help) { $0.reportPaths[format.option] = "" }
            case .file, .fileOrStandardOutput:
                .value(
                    "--\(format.option)", format.value == .file ? "FILE" : "FILE|-", section: .output,
                    help: format.help, defaultValue: format.defaultPath
                ) {
                    $0.reportPaths[format.option] = $1
                }
            }
        }
        + [
            .flag(
                "--junit-file-attributes", section: .output,
                help: "add file and line (the target's name in its manifest) to each JUnit <testcase>, for GitLab, "
                    + "CircleCI and action-junit-report; the strict schemas (Jenkins xUnit junit-10, Ant) reject them"
            ) { $0.isJUnitFileAttributes = true },
            Option(
                names: ["--quiet", "-q"], section: .output,
                forms: [.init(value: nil, help: "print only drifts, errors and the summary")],
                action: .flag { $0.detail = .quiet }),
            Option(
                names: ["--verbose", "-v"], section: .output,
                forms: [.init(value: nil, help: "print every target's request line and all of its notes")],
                action: .flag { $0.detail = .verbose }),
            .flag("--list", section: .output, help: "print the targets that would run and their requests; send nothing")
            {
                $0.isListOnly = true
            },
            .flag(
                "--fail-fast", section: .output,
                help: "stop sending at the first drift; the targets not run are reported as skipped"
            ) { $0.isFailFast = true },
            Option(
                names: ["--color", "--no-color"], aliases: ["--colour", "--no-colour"], section: .output,
                forms: [
                    .init(
                        value: nil, help: "force color on or off; NO_COLOR always wins",
                        defaultValue: "on for a terminal, off for TERM=dumb")
                ],
                action: .toggle { $0.color = $1 }),
            .help,
        ],
    operand: { arguments, path in arguments.paths.append(path) })

/// Every option of `tether mock`.
let mockOptions = OptionTable<MockArguments>(
    command: "mock",
    options: [
        .value(
            "--port", "N", section: .options, help: "the port on 127.0.0.1 to serve on", defaultValue: "a free one"
        ) { arguments, text throws(InvalidValue) in
            arguments.port = try ValueReader.wholeNumber(text, in: 0...65535)
        },
        .help,
    ],
    operand: { arguments, path throws(UsageError) in
        if let first = arguments.harPath {
            throw UsageError("tether mock serves one HAR file; got '\(first)' and '\(path)'")
        }
        arguments.harPath = path
    })

extension BaseURLOverrides {
    /// `--base-url URL` (every service) or `--base-url SERVICE=URL` (one service: the part before `=` has no `/` or
    /// `:`, so a URL with `=` in its query is still a URL).
    mutating func add(_ text: String) throws(InvalidValue) {
        if let equals = text.firstIndex(of: "="), !text[..<equals].contains("/"), !text[..<equals].contains(":") {
            let url = String(text[text.index(after: equals)...])
            try ValueReader.checkHTTPURL(url)
            byService[String(text[..<equals])] = url
        } else {
            try ValueReader.checkHTTPURL(text)
            all = text
        }
    }
}

/// Reads option values, each refusal worded to follow `--name: 'value'`.
enum ValueReader {
    /// `4` → 4, when it lies in `range`.
    static func wholeNumber(_ text: String, in range: ClosedRange<Int>) throws(InvalidValue) -> Int {
        guard let number = Int(text), range.contains(number) else {
            throw InvalidValue("is not a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    /// `10/s`, `0.5/s` or `10` → requests a second, above 0 and at most 10,000.
    static func rate(_ text: String) throws(InvalidValue) -> Double {
        let number = text.hasSuffix("/s") ? String(text.dropLast(2)) : text
        guard let rate = Double(number), rate.isFinite, rate > 0, rate <= 10_000 else {
            throw InvalidValue("is not a rate such as 10/s or 0.5/s (requests a second, above 0, at most 10000)")
        }
        return rate
    }

    /// `2.5` → 2.5 seconds, when it lies in `range`.
    static func seconds(_ text: String, in range: ClosedRange<Double>) throws(InvalidValue) -> Double {
        guard let number = Double(text), range.contains(number) else {
            throw InvalidValue(
                "is not a number of seconds from \(Self.text(seconds: range.lowerBound)) "
                    + "to \(Self.text(seconds: range.upperBound))")
        }
        return number
    }

    /// `1048576`, `512K`, `64M`, `1G` (a trailing `B` allowed, any case) → bytes.
    static func byteCount(_ text: String) throws(InvalidValue) -> Int {
        var digits = text.uppercased()
        var multiplier = 1
        if digits.hasSuffix("B") { digits.removeLast() }
        if let last = digits.last, let unit = byteUnits.first(where: { $0.suffix == last }) {
            multiplier = unit.bytes
            digits.removeLast()
        }
        guard let number = Int(digits), number > 0, number <= Int.max / multiplier else {
            throw InvalidValue("is not a size in bytes such as 1048576, 512K or 64M")
        }
        return number * multiplier
    }

    /// A path `FileManager` can read.
    static func readableFile(_ path: String) throws(InvalidValue) -> String {
        guard FileManager.default.isReadableFile(atPath: path) else { throw InvalidValue("is not a readable file") }
        return path
    }

    /// Refuses anything but an `http://` or `https://` URL.
    static func checkHTTPURL(_ text: String) throws(InvalidValue) {
        guard HTTPRequest.isHTTPURL(text) else {
            throw InvalidValue("is not an http or https URL (write --base-url URL or --base-url SERVICE=URL)")
        }
    }

    /// `30` for 30.0, `0.001` for 0.001: as a user would type it.
    static func text(seconds: Double) -> String {
        seconds == seconds.rounded() && abs(seconds) < 1e15 ? String(Int(seconds)) : String(seconds)
    }

    /// `64M` for 67108864: the largest unit that divides it.
    static func text(bytes: Int) -> String {
        for unit in byteUnits.reversed() where bytes > 0 && bytes % unit.bytes == 0 {
            return "\(bytes / unit.bytes)\(unit.suffix)"
        }
        return String(bytes)
    }

    private static let byteUnits: [(suffix: Character, bytes: Int)] = [("K", 1 << 10), ("M", 1 << 20), ("G", 1 << 30)]
}
