// swift-tools-version:6.2
import PackageDescription

// The benchmark program, apart from the product so that `swift build` at the root builds the product only.
// `bench/run` builds it (release) and runs it beside curl. The root package is reached through `Tether/` (links to its
// Package.swift and Sources), not `..`: SwiftPM names a path dependency after its folder, and in a checkout called
// `bench` the dependency `..` would be this package itself (Fuzz/Package.swift says more).
let package = Package(
    name: "TetherBench",
    platforms: [.macOS(.v13), .iOS(.v16)],  // the root's (PlatformFloorTests)
    dependencies: [.package(name: "Tether", path: "Tether")],
    targets: [
        .executableTarget(
            name: "tether-bench", dependencies: [.product(name: "TetherKit", package: "Tether")], path: "TetherBench"),
        // The schema check beside openapi-schema-validator: bench/schema-check builds and runs it.
        .executableTarget(
            name: "schema-bench", dependencies: [.product(name: "TetherKit", package: "Tether")], path: "SchemaBench"),
    ]
)
