import Foundation

/// Where test files live, found from this file's own path (no working-directory assumptions).
enum FixturePaths {
    /// The package root: `Tests/TetherKitTests/Support/FixturePaths.swift` is four levels below it.
    static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url
    }()

    /// `Tests/TetherKitTests/Fixtures/<relative>`.
    static func fixture(_ relative: String) -> String {
        packageRoot.appendingPathComponent("Tests/TetherKitTests/Fixtures").appendingPathComponent(relative).path
    }

    /// Real api.github.com recordings kept in the repository (`Tests/TetherKitTests/Fixtures/realworld/`, origins in
    /// its `SOURCES.md`).
    static let realWorld: URL = packageRoot.appendingPathComponent("Tests/TetherKitTests/Fixtures/realworld")

    /// `Tests/TetherKitTests/Fixtures/realworld/<name>`.
    static func realWorld(_ name: String) -> String {
        realWorld.appendingPathComponent(name).path
    }
}
