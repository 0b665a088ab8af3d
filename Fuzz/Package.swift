// swift-tools-version:6.0
import PackageDescription

// libFuzzer targets for Tether's parsers and writers, apart from the product so that `swift build` at the root never
// builds them (an executable whose entry is `LLVMFuzzerTestOneInput` links only with `--sanitize=fuzzer`).
// Build and run them with `scripts/fuzz [SECONDS]`.
//
// The root package is reached through `Tether/`, a folder of two links (its Package.swift and Sources), not as `..`.
// SwiftPM names a path dependency after its folder, and a root package stands in for a dependency of the same name:
// in a checkout whose folder is called `fuzz` or `Fuzz`, `..` was this package itself, and `TetherKit` was not found.
// Through `Tether/` the dependency is `tether` whatever the checkout's folder is called. (A link to `..` would do the
// same, but it makes a loop that tools walking the tree follow without end.)
let fuzzers = [
    "FuzzManifest", "FuzzHAR", "FuzzStructure", "FuzzReports", "FuzzConsole", "FuzzStream", "FuzzXML", "FuzzLearn",
    "FuzzSpec",
]

let package = Package(
    name: "TetherFuzz",
    platforms: [.macOS(.v13), .iOS(.v16)],  // the root's: SwiftPM on Darwin refuses an older package depending on it
    products: fuzzers.map { .executable(name: $0, targets: [$0]) },
    dependencies: [.package(name: "Tether", path: "Tether")],
    targets: [
        .target(name: "FuzzSupport", dependencies: [.product(name: "TetherKit", package: "Tether")])
    ]
        + fuzzers.map { name in
            .executableTarget(
                name: name, dependencies: ["FuzzSupport", .product(name: "TetherKit", package: "Tether")])
        }
)
