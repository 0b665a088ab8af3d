// Benchmarks of the library's hot paths, run in a release build:
//   swift build -c release --package-path bench && bench/.build/release/tether-bench --json-only
// Options: --json-only (the JSON benchmarks only; the only ones so far), --size-mb N (body size, default 20),
// --runs N (best of N, default 5); --spec FOLDER: loading a large OpenAPI document instead (SpecBench.swift);
// --api BASE_URL [--targets N] [--junit PATH]: N targets through the Swift API instead (APIBench.swift).
import Foundation
@_spi(Testing) import TetherKit

#if canImport(Glibc)
    import Glibc
#endif

struct Options {
    var sizeMB = 20.0
    var runs = 5
    /// Internal: measure one phase and print `RESULT seconds peakBytes`.
    var phase: String?
    /// `--spec FOLDER`: measure loading `FOLDER/large.json` and `large.yaml` (SpecBench.swift) instead.
    var specFolder: String?
    /// `--api BASE_URL`: verify `targets` targets through `ContractVerifier` (APIBench.swift) instead.
    var apiBaseURL: String?
    var targets = 2000
    var junit: String?

    init(_ arguments: [String]) {
        var rest = arguments.dropFirst()
        while let argument = rest.popFirst() {
            switch argument {
            case "--json-only": break
            case "--size-mb": sizeMB = rest.popFirst().flatMap(Double.init) ?? sizeMB
            case "--runs": runs = max(1, rest.popFirst().flatMap(Int.init) ?? runs)
            case "--phase": phase = rest.popFirst()
            case "--spec": specFolder = rest.popFirst()
            case "--api": apiBaseURL = rest.popFirst()
            case "--targets": targets = max(1, rest.popFirst().flatMap(Int.init) ?? targets)
            case "--junit": junit = rest.popFirst()
            default:
                FileHandle.standardError.write(Data("tether-bench: unknown option \(argument)\n".utf8))
                exit(2)
            }
        }
    }
}

/// A small deterministic generator (SplitMix64), so that every run benchmarks the same bytes.
struct SplitMix64 {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
}

enum Corpus {
    static let words = [
        "swift", "json", "contract", "tether", "moya", "network", "client", "server", "api", "kit", "core", "data",
        "stub", "mock", "async", "stream", "parser", "fast", "simple", "tool", "app", "ios", "mobile", "cloud",
    ]
    static let languages = ["Swift", "Objective-C", "Rust", "Go", "Python", "TypeScript", "C++", "Kotlin"]
    static let licenses = [("mit", "MIT License"), ("apache-2.0", "Apache License 2.0"), ("bsd-3-clause", "BSD 3")]

    static func word(_ random: inout SplitMix64) -> String { words[random.below(words.count)] }

    static func date(_ random: inout SplitMix64) -> String {
        String(
            format: "20%02d-%02d-%02dT%02d:%02d:%02dZ", 10 + random.below(16), 1 + random.below(12),
            1 + random.below(28), random.below(24), random.below(60), random.below(60))
    }

    /// One GitHub-repository-like object: 28 keys, a nested owner, nulls, strings, integers, fractions, booleans.
    /// With `filled`, every nullable value is present; with `nulls`, every one is null (for the stub's 2 elements).
    static func repository(_ random: inout SplitMix64, id: Int, nullable: Bool?) -> JSONValue {
        func maybe(_ value: JSONValue) -> JSONValue {
            switch nullable {
            case .some(true): .null
            case .some(false): value
            case .none: random.chance(25) ? .null : value
            }
        }
        let owner = word(&random) + String(random.below(10_000))
        let name = word(&random) + "-" + word(&random)
        let license = licenses[random.below(licenses.count)]
        let topics = (0..<random.below(5)).map { _ in JSONValue.string(word(&random)) }
        return .object([
            JSONMember("id", .integer(Int64(id))),
            JSONMember("node_id", .string("MDEwOlJlcG9zaXRvcnk\(id)")),
            JSONMember("name", .string(name)),
            JSONMember("full_name", .string("\(owner)/\(name)")),
            JSONMember("private", .bool(random.chance(10))),
            JSONMember(
                "owner",
                .object([
                    JSONMember("login", .string(owner)),
                    JSONMember("id", .integer(Int64(random.below(90_000_000)))),
                    JSONMember("avatar_url", .string("https://avatars.example.com/u/\(random.below(90_000_000))?v=4")),
                    JSONMember("gravatar_id", maybe(.string(""))),
                    JSONMember("type", .string(random.chance(80) ? "User" : "Organization")),
                    JSONMember("site_admin", .bool(random.chance(2))),
                ])),
            JSONMember("html_url", .string("https://github.example.com/\(owner)/\(name)")),
            JSONMember(
                "description",
                maybe(.string((0..<(3 + random.below(12))).map { _ in word(&random) }.joined(separator: " ")))),
            JSONMember("fork", .bool(random.chance(20))),
            JSONMember("url", .string("https://api.github.example.com/repos/\(owner)/\(name)")),
            JSONMember("created_at", .string(date(&random))),
            JSONMember("updated_at", .string(date(&random))),
            JSONMember("pushed_at", maybe(.string(date(&random)))),
            JSONMember("homepage", maybe(.string("https://\(name).example.org"))),
            JSONMember("size", .integer(Int64(random.below(500_000)))),
            JSONMember("stargazers_count", .integer(Int64(random.below(100_000)))),
            JSONMember("watchers_count", .integer(Int64(random.below(100_000)))),
            JSONMember("language", maybe(.string(languages[random.below(languages.count)]))),
            JSONMember("has_issues", .bool(random.chance(90))),
            JSONMember("has_wiki", .bool(random.chance(50))),
            JSONMember("forks_count", .integer(Int64(random.below(20_000)))),
            JSONMember("open_issues_count", .integer(Int64(random.below(2_000)))),
            JSONMember("score", .double(Double(random.below(1_000_000)) / 1000 + 0.5)),
            JSONMember(
                "license",
                maybe(
                    .object([
                        JSONMember("key", .string(license.0)), JSONMember("name", .string(license.1)),
                        JSONMember("spdx_id", .string(license.0.uppercased())),
                    ]))),
            JSONMember("topics", .array(topics.isEmpty && nullable != nil ? [.string("swift")] : topics)),
            JSONMember("default_branch", .string(random.chance(70) ? "main" : "master")),
            JSONMember("archived", .bool(random.chance(5))),
            JSONMember("visibility", .string("public")),
        ])
    }

    /// A JSON array of repositories of about `bytes` bytes, and a stub of two elements that it satisfies.
    static func make(bytes target: Int) -> (body: Data, stub: JSONValue, count: Int) {
        var random = SplitMix64(state: 0x7E7E_7E7E)
        var body = Data("[".utf8)
        body.reserveCapacity(target + 4096)
        var count = 0
        while body.count < target {
            if count > 0 { body.append(UInt8(ascii: ",")) }
            body.append(repository(&random, id: count + 1, nullable: nil).serialized())
            count += 1
        }
        body.append(UInt8(ascii: "]"))
        let stub = JSONValue.array([
            repository(&random, id: 1, nullable: false), repository(&random, id: 2, nullable: true),
        ])
        return (body, stub, count)
    }
}

extension JSONValue {
    var arrayElements: [JSONValue] {
        if case .array(let elements) = self { return elements }
        return []
    }
}

/// Peak resident memory since the last reset, in bytes: /proc's VmHWM after a reset through clear_refs, else
/// getrusage's ru_maxrss (a process-wide peak, so later phases that use less memory show no growth).
enum Memory {
    static func residentBytes() -> Int { statusField("VmRSS:") ?? 0 }

    static func resetPeak() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        do {
            try handle.write(contentsOf: Data("5".utf8))
            return true
        } catch {
            return false
        }
    }

    static func peakBytes() -> Int {
        if let peak = statusField("VmHWM:") { return peak }
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss * 1024
    }

    private static func statusField(_ name: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(name) {
            let digits = line.dropFirst(name.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first
            return digits.flatMap { Int($0) }.map { $0 * 1024 }
        }
        return nil
    }
}

struct Measurement {
    var name: String
    var bestSeconds: Double
    var peakBytes: Int
}

/// Runs `body` `runs` times; the best time, and the largest peak of resident memory above the resident size before.
func measure(_ name: String, runs: Int, _ body: () -> Void) -> Measurement {
    var best = Double.infinity
    var peak = 0
    for _ in 0..<runs {
        let before = Memory.residentBytes()
        _ = Memory.resetPeak()
        let start = DispatchTime.now().uptimeNanoseconds
        body()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        best = min(best, seconds)
        peak = max(peak, Memory.peakBytes() - before)
    }
    return Measurement(name: name, bestSeconds: best, peakBytes: peak)
}

/// The phases measured, each in a process of its own (the bench runs itself with `--phase NAME`), so that one phase's
/// freed but still resident memory does not hide the next one's peak.
let phases: [(name: String, label: String)] = [
    ("foundation", "Foundation JSONSerialization"),
    ("parse", "simdjson parse"),
    ("check", "simdjson parse + structure check"),
    ("partial", "  same, stub with 6 of 28 keys"),
    ("reused", "  same, parser kept between bodies"),
    ("transport", "  same, a body as the transport's"),
    ("tree", "JSONValue.parse (JSONReader, Swift tree)"),
    ("simdtree", "  same tree through simdjson (JSONParser.parse)"),
]

func runPhase(_ phase: String, body: Data, shape: JSONShape, runs: Int) -> Measurement {
    switch phase {
    case "foundation":
        return measure(phase, runs: runs) { _ = try? JSONSerialization.jsonObject(with: body) }
    case "parse":
        return measure(phase, runs: runs) {
            do { try JSONValue.validate(body) } catch { print("tether-bench: \(error)") }
        }
    case "check":
        return measure(phase, runs: runs) {
            if shape.findings(live: body).contains(where: \.isDrift) { print("tether-bench: unexpected drift") }
        }
    case "partial":
        return measure(phase, runs: runs) {
            if partialShape.findings(live: body).contains(where: \.isDrift) { print("tether-bench: unexpected drift") }
        }
    case "reused":
        // One parser for all runs, as a caller checking many bodies would keep it: its buffers are reused.
        guard let parser = try? JSONParser() else { return Measurement(name: phase, bestSeconds: 0, peakBytes: 0) }
        return measure(phase, runs: runs) {
            if shape.findings(live: body, parser: parser).contains(where: \.isDrift) {
                print("tether-bench: unexpected drift")
            }
        }
    case "transport":
        // In a buffer as libcurl's write callback fills it: parsed in place and, being an array, element by element.
        let padded = JSONParser.paddedCopy(of: body)
        return measure(phase, runs: runs) {
            if shape.findings(live: padded).contains(where: \.isDrift) { print("tether-bench: unexpected drift") }
        }
    case "simdtree":
        guard let parser = try? JSONParser() else { return Measurement(name: phase, bestSeconds: 0, peakBytes: 0) }
        return measure(phase, runs: runs) { _ = try? parser.parse(body) }
    default:
        return measure(phase, runs: runs) { _ = try? JSONValue.parse(body) }
    }
}

let options = Options(CommandLine.arguments)
if let folder = options.specFolder {
    runSpecBench(folder: folder, runs: options.runs)
    exit(0)
}
if let baseURL = options.apiBaseURL {
    exit(await runAPIBench(baseURL: baseURL, targets: options.targets, junit: options.junit))
}
let megabyte = 1_000_000.0
let (body, stub, count) = Corpus.make(bytes: Int(options.sizeMB * megabyte))
let shape = JSONShape(stub: stub)
/// A stub that, as Moya stubs often do, lists only some keys: the other 22 become notes, reported once each.
let partialShape = JSONShape(
    stub: .array(
        (stub.arrayElements).map { element in
            guard case .object(let members) = element else { return element }
            return .object(members.filter { ["id", "name", "owner", "private", "score", "topics"].contains($0.key) })
        }))
let bodyMB = Double(body.count) / megabyte

if let phase = options.phase {
    let result = runPhase(phase, body: body, shape: shape, runs: options.runs)
    print("RESULT \(result.bestSeconds) \(result.peakBytes)")
    exit(0)
}

// Sanity: the generated body must hold against its stub, or the timings below would measure error paths.
let sanity = shape.findings(live: body)
guard !sanity.contains(where: \.isDrift) else {
    print("tether-bench: the generated body drifts from its stub: \(sanity.prefix(3))")
    exit(1)
}

print(
    "tether-bench json: body \(String(format: "%.1f", bodyMB)) MB, \(count) objects, best of \(options.runs), "
        + "stub of \(stub.serialized().count) bytes")
print("benchmark".padding(toLength: 34, withPad: " ", startingAt: 0) + "    MB/s   best ms   peak MB   peak/body")
let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
for phase in phases {
    let process = Process()
    process.executableURL = executable
    process.arguments = ["--phase", phase.name, "--size-mb", String(options.sizeMB), "--runs", String(options.runs)]
    let pipe = Pipe()
    process.standardOutput = pipe
    do {
        try process.run()
    } catch {
        print("tether-bench: cannot run \(executable.path): \(error)")
        exit(1)
    }
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    let fields = output.split(separator: "\n").last { $0.hasPrefix("RESULT ") }?.split(separator: " ") ?? []
    guard fields.count == 3, let seconds = Double(fields[1]), let peak = Int(fields[2]) else {
        print("tether-bench: phase \(phase.name) failed: \(output)")
        exit(1)
    }
    print(
        phase.label.padding(toLength: 34, withPad: " ", startingAt: 0)
            + String(
                format: "%8.0f  %8.1f  %8.1f  %9.2fx", bodyMB / seconds, seconds * 1000, Double(peak) / megabyte,
                Double(peak) / Double(body.count)))
}
