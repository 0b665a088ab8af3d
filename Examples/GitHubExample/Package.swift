// swift-tools-version:6.0
import PackageDescription

// An app's API layer as Moya's documentation writes it, verified by Tether from `swift test`.
let package = Package(
    name: "GitHubExample",
    // The root's platforms (or newer): SwiftPM on Darwin refuses a dependency on a product that needs a newer macOS
    // than the package itself declares, and without `platforms` that is SwiftPM's oldest (macOS 12).
    platforms: [.macOS(.v13), .iOS(.v16)],
    // An app would name Tether's repository here. `../Tether` is this checkout's root package seen through links (its
    // Package.swift and Sources), not `../..`: SwiftPM names a path dependency after its folder, so a checkout whose
    // folder is called `GitHubExample` would make `../..` this package itself.
    dependencies: [.package(name: "Tether", path: "../Tether")],
    targets: [
        // The API layer needs only the Moya-shaped types: the Foundation-only product, as an app target would use.
        .target(name: "GitHubExample", dependencies: [.product(name: "TetherContracts", package: "Tether")]),
        .testTarget(
            name: "GitHubExampleTests",
            dependencies: [
                "GitHubExample",
                .product(name: "TetherKit", package: "Tether"),
                .product(name: "TetherTesting", package: "Tether"),
            ],
            resources: [.copy("github.har")]
        ),
    ]
)
