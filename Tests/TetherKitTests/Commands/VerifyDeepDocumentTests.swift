import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// Stubs and live bodies as deep as Tether accepts (1,024 nested arrays and objects; 1,020 inside a manifest, whose
/// own levels count), checked where Darwin gives every thread but the main one a 512 KB stack: on a Mac for real, and
/// here with every thread the process starts without a size of its own given 512 KB (`DarwinThreadStacks`). Before
/// the product's threads had a stack of their own (`DeepStack`), `--fail-fast` (checks on the transport's threads) and
/// the Swift API (checks on its verifying thread) overflowed it.
@Suite struct VerifyDeepDocumentTests {
    /// `depth` nested containers, arrays and objects in turn (`[{"a":[{"a":…1…}]}]`), around `1`.
    static func text(depth: Int) -> String {
        var open = ""
        var close = ""
        for level in 0..<depth {
            open += level % 2 == 0 ? "[" : #"{"a":"#
        }
        for level in (0..<depth).reversed() {
            close += level % 2 == 0 ? "]" : "}"
        }
        return open + "1" + close
    }

    /// A HAR whose entries answer `GET https://deep.example<path>` with `body` (JSON).
    static func har(_ entries: [(path: String, body: String)]) throws -> Data {
        let list: [JSONValue] = entries.map { entry in
            .object([
                JSONMember(
                    "request",
                    .object([
                        JSONMember("method", .string("GET")),
                        JSONMember("url", .string("https://deep.example" + entry.path)),
                        JSONMember("headers", .array([])),
                    ])),
                JSONMember(
                    "response",
                    .object([
                        JSONMember("status", .integer(200)),
                        JSONMember(
                            "headers",
                            .array([
                                .object([
                                    JSONMember("name", .string("Content-Type")),
                                    JSONMember("value", .string("application/json")),
                                ])
                            ])),
                        JSONMember(
                            "content",
                            .object([
                                JSONMember("mimeType", .string("application/json")),
                                JSONMember("text", .string(entry.body)),
                            ])),
                    ])),
            ])
        }
        return JSONValue.object([
            JSONMember(
                "log",
                .object([
                    JSONMember("version", .string("1.2")),
                    JSONMember(
                        "creator",
                        .object([JSONMember("name", .string("tether")), JSONMember("version", .string("1"))])),
                    JSONMember("entries", .array(list)),
                ]))
        ]).serialized()
    }

    /// A body of more than 8 MB that is one array of elements 1,023 levels deep: read in parts, on several threads.
    static let bigBody: String = {
        let element = text(depth: 1023)
        let count = (9 << 20) / element.utf8.count + 1
        return "[" + Array(repeating: element, count: count).joined(separator: ",") + "]"
    }()

    /// The stub and body of target `index` of 600: every 25th as deep as a manifest allows, the others shallow (the
    /// run stays light on a small machine; the deep ones are spread over the manifest's parts and the transport's
    /// loops alike).
    static func manyBody(_ index: Int) -> String { text(depth: index % 25 == 0 ? 1020 : 3) }

    /// `tether verify` as a user runs it, with Darwin's thread stacks: the deepest stub from a file and inside a
    /// manifest, and a large body read in parts (`ShapeCheck`'s threads); then 600 such targets with `--fail-fast`,
    /// whose checks run on the transport's threads (a manifest this long is also read in parts, on threads).
    @Test func theCLIChecksTheDeepestDocumentsOnDarwinsThreadStacks() async throws {
        let stacks = try DarwinThreadStacks.environment.get()
        let folder = try ContractFolder([
            "deep.json": Self.text(depth: 1024),
            "big.json": Self.bigBody,
            "manifest.json": """
            {"service": "Deep", "baseURL": "https://deep.example", "targets": [
              {"name": "file", "path": "/file", "sampleData": {"file": "deep.json"}},
              {"name": "big", "path": "/big", "sampleData": {"file": "big.json"}},
              {"name": "inline", "path": "/inline", "sampleData": {"json": \(Self.text(depth: 1020))}}]}
            """,
            "many.json": """
            {"service": "Many", "baseURL": "https://deep.example", "targets": [\((0..<600).map {
                #"{"name": "t\#($0)", "path": "/t/\#($0)", "sampleData": {"json": \#(Self.manyBody($0))}}"#
            }.joined(separator: ","))]}
            """,
        ])
        try Self.har([
            ("/file", Self.text(depth: 1024)), ("/big", Self.bigBody), ("/inline", Self.text(depth: 1020)),
        ]).write(to: URL(fileURLWithPath: folder.file("deep.har")))
        try Self.har((0..<600).map { ("/t/\($0)", Self.manyBody($0)) })
            .write(to: URL(fileURLWithPath: folder.file("many.har")))

        let plainArguments = ["verify", folder.file("manifest.json"), "--mock", folder.file("deep.har"), "--no-color"]
        let plain = try await offPool { try TetherBinary.run(plainArguments, environment: stacks, deadline: 300) }
        #expect(plain.exitCode == 0, "\(plain.stdout.prefix(2000))\(plain.stderr.prefix(2000))")
        #expect(plain.stdout.contains("3 passed, 0 failed, 0 errors, 0 skipped"), "\(plain.stdout.prefix(2000))")

        let failFastArguments = [
            "verify", folder.file("many.json"), "--mock", folder.file("many.har"), "--fail-fast", "--jobs", "16",
            "--no-color",
        ]
        let failFast = try await offPool { try TetherBinary.run(failFastArguments, environment: stacks, deadline: 300) }
        #expect(failFast.exitCode == 0, "\(failFast.stdout.suffix(2000))\(failFast.stderr.suffix(2000))")
        #expect(
            failFast.stdout.contains("600 passed, 0 failed, 0 errors, 0 skipped"), "\(failFast.stdout.suffix(2000))")
    }

    /// The Swift API from a test's task, as an app's test target calls it: on Linux in a child process, this test
    /// executable again with Darwin's thread stacks (the cooperative pool's threads get 512 KB too, as on a Mac).
    @Test func theSwiftAPIChecksTheDeepestDocumentsOnDarwinsThreadStacks() async throws {
        #if canImport(Darwin)
            // The child test below runs in this very process, where the stacks are Darwin's own.
        #else
            var environment = try DarwinThreadStacks.environment.get()
            environment["TETHER_DARWIN_STACKS_CHILD"] = "1"
            try await ChildProcess.runTest("swiftAPIOnDarwinsStacks", environment: environment)
        #endif
    }

    static var isChild: Bool {
        #if canImport(Darwin)
            true
        #else
            ProcessInfo.processInfo.environment["TETHER_DARWIN_STACKS_CHILD"] == "1"
        #endif
    }

    @Test(.enabled(if: isChild, "runs in the child of theSwiftAPIChecksTheDeepestDocumentsOnDarwinsThreadStacks"))
    func swiftAPIOnDarwinsStacks() async throws {
        let folder = try ContractFolder(["README": "deep bodies for swiftAPIOnDarwinsStacks"])
        try Self.har([("/file", Self.text(depth: 1024))]).write(to: URL(fileURLWithPath: folder.file("deep.har")))
        let target = TestTarget(
            name: "file", baseURL: literalURL("https://deep.example"), path: "/file",
            sampleData: Data(Self.text(depth: 1024).utf8))
        let report = await ContractVerifier(mockHAR: folder.file("deep.har")).verify([target])
        #expect(report.results.map(\.outcome) == [.passed], "\(report.results.map(\.findings))")
    }
}

/// Darwin's thread stacks on Linux, for a child process: a library preloaded into it (compiled here, once, with the
/// toolchain's clang) makes 512 KB the default stack of every thread it starts, as Darwin's is for every thread but
/// the main one (whose 8 MB stays). On Darwin, nothing to do.
enum DarwinThreadStacks {
    static let source = """
        #define _GNU_SOURCE
        #include <pthread.h>
        // Darwin's default for secondary threads, for every thread this process starts without a size of its own.
        __attribute__((constructor)) static void darwin_thread_stacks(void) {
            pthread_attr_t attributes;
            pthread_attr_init(&attributes);
            pthread_attr_setstacksize(&attributes, 512 * 1024);
            pthread_setattr_default_np(&attributes);
            pthread_attr_destroy(&attributes);
        }
        """

    struct Unavailable: Error, CustomStringConvertible {
        var description: String
    }

    /// The environment a child needs (`LD_PRELOAD`), or why it cannot be had.
    static let environment: Result<[String: String], Unavailable> = {
        #if canImport(Darwin)
            return .success([:])
        #else
            guard let clang = executableOnPath("clang") else {
                return .failure(Unavailable(description: "no clang on PATH (the Swift toolchain has one)"))
            }
            // One place, replaced whole (a rename) by each build: runs do not pile copies up in the temporary folder.
            let folder = NSTemporaryDirectory() + "tether-darwin-stacks"
            let fresh = folder + "/" + UUID().uuidString
            defer { try? FileManager.default.removeItem(atPath: fresh + ".c") }
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                try Data(source.utf8).write(to: URL(fileURLWithPath: fresh + ".c"))
                let run = try ChildProcess.run(
                    clang, ["-shared", "-fPIC", "-O1", "-o", fresh + ".so", fresh + ".c"], deadline: 120)
                guard run.status == 0, rename(fresh + ".so", folder + "/stacks.so") == 0 else {
                    return .failure(Unavailable(description: "\(clang) failed: \(run.stderrText)"))
                }
            } catch {
                return .failure(Unavailable(description: "cannot build the preload library: \(error)"))
            }
            return .success(["LD_PRELOAD": folder + "/stacks.so"])
        #endif
    }()
}
