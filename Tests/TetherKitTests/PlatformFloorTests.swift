import Foundation
import Testing

/// The package supports macOS 13 and iOS 16 (`platforms:` in Package.swift). Nothing here runs on a Mac, and on Linux
/// the compiler checks no availability: what can be found mechanically is checked here instead.
@Suite struct PlatformFloorTests {
    private static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url
    }()

    /// An API newer than the platforms the package declares, as a pattern over a line of Swift (comments removed).
    private struct NewerAPI {
        /// Text every match holds (a cheap test before the pattern's).
        var word: String
        var pattern: String
        var name: String
        /// The first macOS that has it.
        var macOS: Int
    }

    private static let newerAPIs = [
        NewerAPI(
            word: "Synchronization",
            pattern: #"^\s*(@\w+\s+)*((public|package|internal|private|fileprivate)\s+)?import\s+Synchronization\b"#,
            name: "the Synchronization module", macOS: 15),
        NewerAPI(
            word: "Mutex", pattern: #"\bMutex\s*[<(]"#, name: "Mutex (Synchronization)", macOS: 15),
        NewerAPI(
            word: "Atomic", pattern: #"\b(Atomic|AtomicLazyReference)\s*[<(]"#, name: "Atomic (Synchronization)",
            macOS: 15),
        NewerAPI(
            word: "Int128", pattern: #"\b(U?Int128)\b"#, name: "Int128 and UInt128", macOS: 15),
        NewerAPI(
            word: "TaskExecutor", pattern: #"\bwithTaskExecutorPreference\b|\bTaskExecutor\b"#, name: "task executors",
            macOS: 15),
        NewerAPI(
            word: "DiscardingTaskGroup", pattern: #"\bwith(Throwing)?DiscardingTaskGroup\b"#,
            name: "discarding task groups", macOS: 14),
        NewerAPI(
            word: "Observ", pattern: #"\bimport\s+Observation\b|@Observable\b"#, name: "Observation", macOS: 14),
        NewerAPI(
            word: "#Predicate", pattern: #"#Predicate\b"#, name: "Foundation's #Predicate", macOS: 14),
        NewerAPI(
            word: "DispatchSerialQueue", pattern: #"\bDispatchSerialQueue\b"#, name: "DispatchSerialQueue", macOS: 14),
        NewerAPI(
            word: "InlineArray", pattern: #"\bInlineArray\b"#, name: "InlineArray", macOS: 26),
        NewerAPI(
            word: "pan", pattern: #"\b(Raw|Mutable|MutableRaw|Output|UTF8)?Span\b|\.span\b(?!\s*\()"#, name: "Span",
            macOS: 26),
        NewerAPI(
            word: "Task", pattern: #"\bTask\.immediate\b|\bTask\s*\(\s*name:"#, name: "Task.immediate and named tasks",
            macOS: 26),
        NewerAPI(
            word: "deinit", pattern: #"\bisolated\s+deinit\b"#, name: "isolated deinit", macOS: 26),
    ]

    /// Every Swift file of the package, its tests, examples, benchmarks and fuzzers (no build folders).
    private static func swiftFiles() -> [URL] {
        let skipped: Set<String> = [".build", ".swiftpm", "Fixtures"]
        guard
            let walk = FileManager.default.enumerator(
                at: root, includingPropertiesForKeys: [.isDirectoryKey], options: [.skipsHiddenFiles])
        else { return [] }
        var files: [URL] = []
        for case let url as URL in walk {
            if skipped.contains(url.lastPathComponent) {
                walk.skipDescendants()
            } else if url.pathExtension == "swift" {
                files.append(url)
            }
        }
        return files
    }

    /// A check that could not be made (the helpers below run off the test's task, where `#expect` has no test).
    private struct Unchecked: Error, CustomStringConvertible {
        var description: String
    }

    /// The macOS version the root package declares (`.macOS(.v13)`).
    private static func declaredMacOS() throws -> Int {
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        guard let match = manifest.firstMatch(of: /\.macOS\(\.v(\d+)\)/), let version = Int(match.1) else {
            throw Unchecked(description: "Package.swift: no .macOS(.vN) in `platforms:`")
        }
        return version
    }

    @Test func noSwiftFileUsesAnAPINewerThanThePlatforms() async throws {
        // (Off the cooperative pool: reading every file takes seconds, and async tests wait for its threads.)
        let (files, found) = try await offPool { try Self.newerAPIsInUse() }
        let floor = try Self.declaredMacOS()
        #expect(floor == 13, "Package.swift declares macOS \(floor): update this test's table for the new floor")
        #expect(files > 100, "found only \(files) Swift files under \(Self.root.path)")
        #expect(
            found.isEmpty,
            """
            the package supports macOS \(floor) (Package.swift), and a test target cannot raise its own platform: \
            use what macOS \(floor) has (the tests' Locked box instead of Mutex)
            \(found.joined(separator: "\n"))
            """)
    }

    /// How many Swift files were read, and `file:line: API needs macOS N` for each use of an API newer than the
    /// declared macOS.
    private static func newerAPIsInUse() throws -> (files: Int, found: [String]) {
        let floor = try Self.declaredMacOS()
        let checks = try Self.newerAPIs.filter { $0.macOS > floor }.map { ($0, try Regex($0.pattern)) }
        let files = Self.swiftFiles()
        var found: [String] = []
        for file in files where file.lastPathComponent != "PlatformFloorTests.swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                // The code only: a comment may name anything.
                let code = line.firstRange(of: "//").map { line[..<$0.lowerBound] } ?? line[...]
                for (api, regex) in checks where code.contains(api.word) && code.contains(regex) {
                    let path = file.path.replacingOccurrences(of: Self.root.path + "/", with: "")
                    found.append("\(path):\(number + 1): \(api.name) needs macOS \(api.macOS)")
                }
            }
        }
        return (files.count, found)
    }

    /// The Swift each Xcode carries, for the Xcodes that carry 6.2 (Apple's Xcode support table: "Xcode 26.2 …
    /// Swift 6.2.3"; 26.4 carries 6.3).
    private static let swiftOfXcode = [
        "26.0": "6.2", "26.0.1": "6.2", "26.1": "6.2.1", "26.1.1": "6.2.1", "26.2": "6.2.3", "26.3": "6.2.3",
    ]

    /// The jobs of .github/workflows/ci.yml by name, each with its lines (indented two spaces under `jobs:`).
    private static func workflowJobs() throws -> [String: String] {
        let text = try String(
            contentsOf: root.appendingPathComponent(".github/workflows/ci.yml"), encoding: .utf8)
        var jobs: [String: String] = [:]
        var current: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if let match = line.wholeMatch(of: #/  ([A-Za-z0-9_-]+):\s*/#) {
                current = String(match.1)
            } else if let current, line.hasPrefix("   ") || line.isEmpty || line.hasPrefix("    #") {
                jobs[current, default: ""] += line + "\n"
            } else if !line.hasPrefix(" ") {
                current = nil
            }
        }
        return jobs
    }

    /// A macOS runner's default Xcode is its newest (a newer Swift than the manifest's 6.2, and maybe no iOS simulator
    /// runtime): every macOS job pins an Xcode that carries the manifest's Swift, checks it, and the job that runs the
    /// tests gives them a Python with jsonschema (`PythonServer.python` reads `TETHER_TEST_PYTHON`).
    @Test func theMacOSJobsPinAnXcodeWithTheManifestsSwift() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let tools = try #require(manifest.firstMatch(of: /swift-tools-version:\s*(\d+\.\d+)/)?.1)
        let jobs = try Self.workflowJobs().filter { $0.value.contains("runs-on: macos") }
        #expect(jobs.count >= 2, "macOS jobs found: \(jobs.keys.sorted())")
        for (name, job) in jobs {
            let pin = job.firstMatch(of: /DEVELOPER_DIR: \/Applications\/Xcode_([0-9.]+)\.app\/Contents\/Developer/)
            guard let pin else {
                Issue.record(
                    """
                    ci.yml: job \(name) runs on the image's default Xcode: set DEVELOPER_DIR to an Xcode with Swift \
                    \(tools)
                    """)
                continue
            }
            let swift = Self.swiftOfXcode[String(pin.1)] ?? "other than 6.2"
            #expect(
                swift == tools || swift.hasPrefix(tools + "."),
                "ci.yml: job \(name) pins Xcode \(pin.1), which carries Swift \(swift), not the manifest's \(tools)")
            let check = "Swift version " + tools.replacingOccurrences(of: ".", with: "\\.")
            #expect(job.contains(check), "ci.yml: job \(name) does not check the Swift it runs ('\(check)')")
        }
        let testing = jobs.filter { $0.value.contains("swift test") }
        #expect(!testing.isEmpty)
        for (name, job) in testing {
            #expect(
                job.contains("jsonschema") && job.contains("TETHER_TEST_PYTHON="),
                "ci.yml: job \(name) runs the tests without a Python that has jsonschema (TETHER_TEST_PYTHON)")
        }
        for (name, job) in jobs where job.contains("iOS Simulator") {
            #expect(
                job.contains("simctl list runtimes"),
                "ci.yml: job \(name) does not make sure of an iOS simulator runtime")
        }
    }

    /// Tools that a Mac keeps elsewhere or in another flavour are found, not named: /bin/gzip is /usr/bin/gzip there,
    /// and /usr/bin/openssl is LibreSSL (`OpenSSL` finds an OpenSSL 3, preferring Homebrew's).
    @Test func noTestNamesAToolWhereOnlyDebianHasIt() async throws {
        let found = try await offPool {
            try Self.swiftFiles().filter { !["OpenSSL.swift", "OpenSSLTests.swift"].contains($0.lastPathComponent) }
                .flatMap { file in
                    let text = try String(contentsOf: file, encoding: .utf8)
                    return text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap {
                        number, line -> String? in
                        let code = line.firstRange(of: "//").map { line[..<$0.lowerBound] } ?? line[...]
                        guard code.contains("\"/bin/gzip\"") || code.contains("\"/usr/bin/openssl\"") else {
                            return nil
                        }
                        return "\(file.lastPathComponent):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))"
                    }
                }
        }
        #expect(
            found.isEmpty,
            "find gzip on PATH (executableOnPath) and openssl with OpenSSL.path:\n\(found.joined(separator: "\n"))")
    }

    /// What `swift package dump-package` says of a manifest, as far as this test reads it.
    private struct Manifest: Decodable {
        struct Platform: Decodable {
            var platformName: String
            var version: String
        }
        struct Dependency: Decodable {
            struct Local: Decodable { var path: String }
            var fileSystem: [Local]?
        }
        var platforms: [Platform]
        var dependencies: [Dependency]
    }

    /// The manifest of the package at `folder`, read by SwiftPM itself.
    private static func dumpPackage(_ folder: URL) throws -> Manifest {
        // A scratch path and TMPDIR of its own: the test run holds the package's .build, and SwiftPM's lock files go
        // to TMPDIR, so that removing the folder leaves nothing behind.
        let scratch = NSTemporaryDirectory() + "tether-platforms-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let run = try ChildProcess.run(
            "/usr/bin/env",
            ["swift", "package", "--package-path", folder.path, "--scratch-path", scratch + "/build", "dump-package"],
            environment: ProcessInfo.processInfo.environment.merging(["TMPDIR": scratch]) { _, new in new })
        guard run.status == 0 else {
            throw Unchecked(description: "swift package dump-package failed in \(folder.path): \(run.stderrText)")
        }
        return try JSONDecoder().decode(Manifest.self, from: run.stdout)
    }

    /// "13.0" → [13, 0].
    private static func version(_ text: String) -> [Int] { text.split(separator: ".").map { Int($0) ?? 0 } }

    /// SwiftPM on Darwin refuses a target that depends on a product whose platform is newer than the target's own
    /// (BuildPlan's `productRequiresHigherPlatformVersion`), and a manifest without `platforms` has SwiftPM's oldest
    /// (macOS 12): every package here that depends on the root declares each of the root's platforms, as new or newer.
    @Test func everyPackageThatDependsOnTheRootDeclaresItsPlatforms() async throws {
        let problems = try await offPool { try Self.platformProblems() }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    /// What is wrong with the `platforms:` of the packages that depend on the root.
    private static func platformProblems() throws -> [String] {
        let rootManifest = try Self.dumpPackage(Self.root)
        guard !rootManifest.platforms.isEmpty else { return ["Package.swift: no `platforms:`"] }
        var others: [URL] = []
        if let walk = FileManager.default.enumerator(
            at: Self.root, includingPropertiesForKeys: nil, options: [.skipsHiddenFiles])
        {
            for case let url as URL in walk {
                if url.lastPathComponent == ".build" || url.lastPathComponent == "Fixtures" {
                    walk.skipDescendants()
                } else if url.lastPathComponent == "Package.swift", url.deletingLastPathComponent() != Self.root {
                    others.append(url.deletingLastPathComponent())
                }
            }
        }
        var problems: [String] = []
        if others.count < 4 { problems.append("found only \(others.map(\.path)): where are the others?") }
        for folder in others {
            let manifest = try Self.dumpPackage(folder)
            let dependsOnRoot = manifest.dependencies.contains { dependency in
                (dependency.fileSystem ?? []).contains {
                    URL(fileURLWithPath: $0.path).standardizedFileURL.path == Self.root.standardizedFileURL.path
                }
            }
            guard dependsOnRoot else { continue }
            let name = folder.path.replacingOccurrences(of: Self.root.path + "/", with: "") + "/Package.swift"
            for platform in rootManifest.platforms {
                let declared = manifest.platforms.first { $0.platformName == platform.platformName }
                if let declared,
                    Self.version(declared.version).lexicographicallyPrecedes(
                        Self.version(platform.version))
                {
                    problems.append(
                        "\(name): \(platform.platformName) \(declared.version) is older than the root's "
                            + "\(platform.version): declare \(platform.version) or newer")
                } else if declared == nil {
                    problems.append(
                        "\(name): no \(platform.platformName) in `platforms:` (the root declares "
                            + "\(platform.platformName) \(platform.version)): declare it, as the root's or newer")
                }
            }
        }
        return problems
    }
}
