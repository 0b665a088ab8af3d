// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Tether",
    products: [
        .library(name: "Tether", targets: ["Tether"]),
        .executable(name: "tether", targets: ["tether"]),
        // Test helpers for Swift Testing and XCTest; apart, so that Tether and tether never link XCTest.
        .library(name: "TetherTesting", targets: ["TetherTesting"]),
    ],
    targets: [
        // C libraries from Debian packages, each wrapped in exactly one place.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        // simdjson is C++; this shim gives it a plain C API so that no importer needs C++ interoperability.
        .target(
            name: "CSimdJSON",
            cxxSettings: [.define("SIMDJSON_THREADS_ENABLED", to: "1")],
            linkerSettings: [.linkedLibrary("simdjson")]
        ),
        .target(name: "Tether", dependencies: ["CCurl", "CLibXML2", "CMicroHTTPD", "CSimdJSON"]),
        .executableTarget(name: "tether", dependencies: ["Tether"]),
        .executableTarget(name: "tether-bench", dependencies: ["Tether"], path: "bench/TetherBench"),
        .testTarget(name: "TetherTests", dependencies: ["Tether"], resources: [.copy("Fixtures")]),
        .target(name: "TetherTesting", dependencies: ["Tether"]),
        .testTarget(name: "TetherTestingTests", dependencies: ["TetherTesting", "Tether"]),
    ],
    cxxLanguageStandard: .cxx17
)
