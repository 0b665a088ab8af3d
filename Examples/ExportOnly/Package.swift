// swift-tools-version:6.2
import PackageDescription

// What an iOS app's test target can do: link the Foundation-only product `TetherContracts` (no C, so it builds for
// the iOS simulator), and write its Moya targets out as contract files for the `tether` CLI to verify on a Linux or
// macOS runner. `scripts/test` runs this package's test, then `tether verify` on what it wrote.
let package = Package(
    name: "ExportOnly",
    platforms: [.iOS(.v16), .macOS(.v13)],
    products: [.library(name: "GitHubAPI", targets: ["GitHubAPI"])],
    // `../Tether`: the root package through links, as in Examples/GitHubExample (`../..` fails in a checkout whose
    // folder is called `ExportOnly`).
    dependencies: [.package(name: "Tether", path: "../Tether")],
    targets: [
        // The GitHub example's targets (the same file as Examples/GitHubExample's, through a symbolic link).
        .target(name: "GitHubAPI", dependencies: [.product(name: "TetherContracts", package: "Tether")]),
        .testTarget(
            name: "ExportOnlyTests",
            dependencies: ["GitHubAPI", .product(name: "TetherContracts", package: "Tether")]),
    ]
)
