import Foundation

/// Where test files live, found from this file's own path (no working-directory assumptions).
enum FixturePaths {
    /// The package root: `Tests/TetherTests/Support/FixturePaths.swift` is four levels below it.
    static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url
    }()

    /// `Tests/TetherTests/Fixtures/<relative>`.
    static func fixture(_ relative: String) -> String {
        packageRoot.appendingPathComponent("Tests/TetherTests/Fixtures").appendingPathComponent(relative).path
    }

    /// The shared, read-only real-world recordings (`../shared/fixtures/realworld/` from the package root).
    static let realWorld: URL = packageRoot.appendingPathComponent("../shared/fixtures/realworld").standardizedFileURL

    /// Whether the real-world folder is present (tests that need it are skipped, with that reason, when it is not).
    static var hasRealWorld: Bool {
        FileManager.default.fileExists(atPath: realWorld.appendingPathComponent("github.har").path)
    }

    /// `../shared/fixtures/realworld/<name>`.
    static func realWorld(_ name: String) -> String {
        realWorld.appendingPathComponent(name).path
    }
}
