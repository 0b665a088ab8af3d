// swift-tools-version:6.2
import PackageDescription

// The benchmark program, apart from the product so that `swift build` at the root builds the product only.
// `bench/run` builds it (release) and runs it beside curl.
let package = Package(
    name: "TetherBench",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "Tether", path: "..")],
    targets: [
        .executableTarget(
            name: "tether-bench", dependencies: [.product(name: "TetherKit", package: "Tether")], path: "TetherBench"),
        // The schema check beside openapi-schema-validator: bench/schema-check builds and runs it.
        .executableTarget(
            name: "schema-bench", dependencies: [.product(name: "TetherKit", package: "Tether")], path: "SchemaBench"),
    ]
)
