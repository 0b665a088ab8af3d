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

    /// Real api.github.com recordings kept in the repository (`Tests/TetherTests/Fixtures/realworld/`, origins in
    /// its `SOURCES.md`).
    static let realWorld: URL = packageRoot.appendingPathComponent("Tests/TetherTests/Fixtures/realworld")

    /// `Tests/TetherTests/Fixtures/realworld/<name>`.
    static func realWorld(_ name: String) -> String {
        realWorld.appendingPathComponent(name).path
    }
}
