import Foundation
import Tether

/// What the command line asked for.
enum Command {
    case help(String)
    case version
    case verify(VerifyArguments)
    case mock(harPath: String, port: Int)
}

/// `tether verify`'s options, parsed and checked.
struct VerifyArguments {
    var paths: [String] = []
    var baseURLs = BaseURLOverrides()
    var mockHAR: String?
    var filter = ContractFilter(patterns: [])
    var junitPath = "reports/junit.xml"
    var options = VerifyOptions()
    var colour: Bool?
}

/// A command line that cannot be run: printed with a hint, exit code 2.
struct UsageError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

enum Help {
    static let main = """
        tether \(tetherVersion): check that your Moya stubs still match the real API.

        Tether takes each stub (sampleData, its status code, its headers) as a contract, calls the live service or a
        mock of it, compares the status code and the JSON structure (keys, types, nulls, array elements; not values),
        and writes JUnit XML for your CI dashboard.

        USAGE
          tether verify [PATH ...] [OPTIONS]   verify contract files (default: the contracts folder)
          tether mock FILE.har [--port N]      serve recorded responses from a HAR file on 127.0.0.1
          tether --version                     print the version
          tether help [verify | mock]          print help

        EXAMPLES
          tether verify                                   every manifest in contracts/, against the live services
          tether verify --mock contracts/github.har       offline, against responses recorded in a HAR file
          tether verify --base-url http://127.0.0.1:4010  every service against a local mock (Prism, WireMock, …)

        EXIT CODES
          0  every contract holds
          1  at least one stub drifted from the live service
          2  usage error or broken contract file (nothing was sent)
          3  no drift, but some targets could not be checked (connection refused, timeout, TLS, …)
          4  nothing was checked: every target was skipped or could not be checked
          130, 143  stopped by Ctrl-C or SIGTERM (the report holds what finished; Ctrl-C again quits at once)

        Run 'tether verify --help' for the options and the contract format.
        """

    static let verify = """
        USAGE
          tether verify [PATH ...] [OPTIONS]

        PATH is a contract manifest (a JSON file with "targets") or a folder searched for them; default: contracts.

        WHERE REQUESTS GO
          --base-url URL            send every service's requests to URL instead of its manifest's baseURL
          --base-url SERVICE=URL    the same for one service (repeatable; wins over the form above)
          --mock FILE.har           start an embedded server on 127.0.0.1 that replays the responses recorded in
                                    FILE.har (Proxyman, Charles, browsers) and verify against it

        WHICH TARGETS
          --filter PATTERN          only targets whose Service.target (or target) matches PATTERN; * and ? are
                                    wildcards; repeatable, e.g. --filter 'GitHub.user*' --filter zen

        RULES
          --strict                  keys the live body has and the stub lacks are drifts, not notes

        TRANSPORT
          --jobs N                  requests in flight at once (default 8)
          --timeout SECONDS         per request, start to last byte (default 30)
          --connect-timeout SECONDS per connection (default 10)
          --max-body BYTES          largest body accepted, e.g. 1048576, 512K, 64M (default 64M)
          --insecure                do not verify TLS certificates
          --cacert FILE             trust the CA certificates in FILE (PEM)
                                    Proxies come from http_proxy, https_proxy and no_proxy, as for curl.

        OUTPUT
          --junit FILE              where to write the JUnit XML report (default reports/junit.xml)
          --color, --no-color       force colour on or off (default: on for a terminal, off for TERM=dumb);
                                    NO_COLOR always wins

        CONTRACTS (contracts/github.json)
          {
            "service": "GitHub",
            "baseURL": "https://api.github.com",
            "headers": { "Authorization": "Bearer ${GITHUB_TOKEN}" },
            "targets": [
              { "name": "userRepositories", "method": "GET", "path": "/users/octocat/repos",
                "query": { "per_page": "2" },
                "sampleData": { "file": "samples/userRepositories.json" } },
              { "name": "unauthorized", "path": "/user", "headers": { "Authorization": null },
                "sampleData": { "json": { "message": "Requires authentication" } },
                "sampleResponse": { "networkResponse": { "statusCode": 401 } } }
            ]
          }
        sampleData: {"file": PATH} | {"json": VALUE} | {"text": "..."} | {"base64": "..."}; absent means Data().
        sampleResponse: {"networkResponse": {"statusCode": N}} (default 200) | {"response": {"statusCode": N,
          "headers": {...}}} | {"networkError": {"code": N, "description": "..."}} (reported as skipped).
        task: "requestPlain" | {"requestData": {"text"|"base64": ...}} | {"requestJSONEncodable": VALUE} |
          {"requestParameters": {"parameters": {...}, "encoding": "url"|"queryString"|"httpBody"|"json"}} |
          {"requestCompositeData": ...} | {"requestCompositeParameters": ...}
        ${VAR} (or ${VAR:-default}) expands from the environment; values of 6+ characters and credentials in
        Authorization, Cookie and similar headers are shown as <redacted> in every report.
        """

    static let mock = """
        USAGE
          tether mock FILE.har [--port N]

        Serves the responses recorded in FILE.har on 127.0.0.1 (port N, default a free one) until interrupted.
        Requests match on method, path and query; anything unrecorded gets 404 with a JSON body naming it.
        """
}

/// Parses `tether`'s arguments (no swift-argument-parser on these machines: ours, with suggestions for typos).
func parseCommand(_ arguments: [String], environment: [String: String]) throws(UsageError) -> Command {
    var rest = arguments[...]
    guard let first = rest.popFirst() else { return .help(Help.main) }
    switch first {
    case "--help", "-h", "help":
        guard let topic = rest.popFirst() else { return .help(Help.main) }
        let topics = ["verify": Help.verify, "mock": Help.mock, "help": Help.main]
        guard let text = topics[topic] else {
            let hint = didYouMean(topic, in: ["verify", "mock"])
            throw UsageError("no help on '\(topic)'\(hint): the commands are verify and mock; run 'tether --help'")
        }
        if let extra = rest.first {
            throw UsageError(
                "tether help takes one command, got '\(extra)' after '\(topic)'; run 'tether help \(topic)'")
        }
        return .help(text)
    case "--version", "-V", "version": return .version
    case "verify": return try parseVerify(rest)
    case "mock": return try parseMock(rest)
    default:
        let hint = didYouMean(first, in: ["verify", "mock", "help", "--help", "--version"])
        throw UsageError("unknown command '\(first)'\(hint); run 'tether --help'")
    }
}

private let verifyOptions = [
    "--base-url", "--mock", "--filter", "--strict", "--jobs", "--timeout", "--connect-timeout", "--max-body",
    "--insecure", "--cacert",
    "--junit", "--color", "--no-color", "--help",
]

/// Splits `--name=value` and takes the value of `--name value`.
private struct OptionReader {
    var rest: ArraySlice<String>
    /// The command whose help a usage error points at: `verify`, `mock`.
    var command: String
    var inlineValue: String?
    var name = ""

    mutating func next() -> String? {
        guard let argument = rest.popFirst() else { return nil }
        if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
            name = String(argument[..<equals])
            inlineValue = String(argument[argument.index(after: equals)...])
        } else {
            name = argument
            inlineValue = nil
        }
        return name
    }

    mutating func value() throws(UsageError) -> String {
        if let inlineValue { return inlineValue }
        guard let value = rest.popFirst(), !value.hasPrefix("--") else {
            throw UsageError("\(name) needs a value; run 'tether \(command) --help'")
        }
        return value
    }

    mutating func number(in range: ClosedRange<Double>) throws(UsageError) -> Double {
        let text = try value()
        guard let number = Double(text), range.contains(number) else {
            throw UsageError(
                "\(name) takes a number from \(format(range.lowerBound)) to \(format(range.upperBound)), got '\(text)'; "
                    + "run 'tether \(command) --help'")
        }
        return number
    }

    private func format(_ number: Double) -> String {
        number == number.rounded() ? String(Int(number)) : String(number)
    }
}

private func parseVerify(_ arguments: ArraySlice<String>) throws(UsageError) -> Command {
    var result = VerifyArguments()
    var reader = OptionReader(rest: arguments, command: "verify")
    while let argument = reader.next() {
        guard argument.hasPrefix("-") else {
            result.paths.append(argument)
            continue
        }
        switch argument {
        case "--help", "-h": return .help(Help.verify)
        case "--base-url":
            let value = try reader.value()
            if let equals = value.firstIndex(of: "="), !value[..<equals].contains("/"), !value[..<equals].contains(":")
            {
                let service = String(value[..<equals])
                let url = String(value[value.index(after: equals)...])
                try checkURL(url, option: argument)
                result.baseURLs.byService[service] = url
            } else {
                try checkURL(value, option: argument)
                result.baseURLs.all = value
            }
        case "--mock": result.mockHAR = try reader.value()
        case "--filter": result.filter.patterns.append(try reader.value())
        case "--strict": result.options.isStrict = true
        case "--jobs": result.options.transport.jobs = Int(try reader.number(in: 1...256))
        case "--timeout": result.options.transport.timeout = try reader.number(in: 0.001...86_400)
        case "--connect-timeout": result.options.transport.connectTimeout = try reader.number(in: 0.001...86_400)
        case "--max-body": result.options.transport.maxBodyBytes = try byteCount(try reader.value())
        case "--insecure": result.options.transport.isInsecure = true
        case "--cacert":
            let path = try reader.value()
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw UsageError("--cacert: cannot read '\(path)'")
            }
            result.options.transport.caCertificatePath = path
        case "--junit": result.junitPath = try reader.value()
        case "--color", "--colour": result.colour = true
        case "--no-color", "--no-colour": result.colour = false
        default:
            let hint = didYouMean(argument, in: verifyOptions)
            throw UsageError("unknown option '\(argument)'\(hint); run 'tether verify --help'")
        }
    }
    if result.paths.isEmpty { result.paths = ["contracts"] }
    return .verify(result)
}

private func parseMock(_ arguments: ArraySlice<String>) throws(UsageError) -> Command {
    var path: String?
    var port = 0
    var reader = OptionReader(rest: arguments, command: "mock")
    while let argument = reader.next() {
        switch argument {
        case "--help", "-h": return .help(Help.mock)
        case "--port": port = Int(try reader.number(in: 0...65535))
        default:
            if argument.hasPrefix("-") {
                let hint = didYouMean(argument, in: ["--port", "--help"])
                throw UsageError("unknown option '\(argument)'\(hint); run 'tether mock --help'")
            }
            guard path == nil else {
                throw UsageError("tether mock serves one HAR file; got '\(path ?? "")' and '\(argument)'")
            }
            path = argument
        }
    }
    guard let path else { throw UsageError("tether mock needs a HAR file, e.g. tether mock contracts/github.har") }
    return .mock(harPath: path, port: port)
}

private func checkURL(_ text: String, option: String) throws(UsageError) {
    guard HTTPRequest.isHTTPURL(text) else {
        throw UsageError(
            "\(option): '\(text)' is not an http or https URL (write --base-url URL or --base-url SERVICE=URL)")
    }
}

/// `1048576`, `512K`, `64M`, `1G` → bytes.
private func byteCount(_ text: String) throws(UsageError) -> Int {
    let units: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
    var digits = text.uppercased()
    var multiplier = 1
    if digits.hasSuffix("B") { digits.removeLast() }
    if let last = digits.last, let unit = units[last] {
        multiplier = unit
        digits.removeLast()
    }
    guard let number = Int(digits), number > 0, number <= Int.max / multiplier else {
        throw UsageError("--max-body takes a size in bytes such as 1048576, 512K or 64M, got '\(text)'")
    }
    return number * multiplier
}
