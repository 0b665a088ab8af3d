// swift-tools-version:6.0
import PackageDescription

// libFuzzer targets for Tether's parsers and writers, apart from the product so that `swift build` at the root never
// builds them (an executable whose entry is `LLVMFuzzerTestOneInput` links only with `--sanitize=fuzzer`).
// Build and run them with `scripts/fuzz [SECONDS]`.
let fuzzers = ["FuzzManifest", "FuzzHAR", "FuzzStructure", "FuzzReports", "FuzzXML", "FuzzLearn", "FuzzSpec"]

let package = Package(
    name: "TetherFuzz",
    products: fuzzers.map { .executable(name: $0, targets: [$0]) },
    dependencies: [.package(name: "Tether", path: "..")],
    targets: [
        .target(name: "FuzzSupport", dependencies: [.product(name: "TetherKit", package: "Tether")])
    ]
        + fuzzers.map { name in
            .executableTarget(
                name: name, dependencies: ["FuzzSupport", .product(name: "TetherKit", package: "Tether")])
        }
)
