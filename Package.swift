// swift-tools-version:6.2
// 6.2: `nonisolated(nonsending)` (TetherTesting) and access-level imports.
import PackageDescription

let package = Package(
    name: "Tether",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        // Foundation only, no C anywhere below it: the Moya-shaped types, and the contract model, manifests and
        // export (TetherCore, re-exported). An iOS test target can link it (and write contract files for the CLI to
        // verify).
        .library(name: "TetherContracts", targets: ["TetherContracts"]),
        // The engine on macOS and Linux (TetherEngine: transport, checks, mock server and reports) with TetherContracts
        // and the Swift API, all re-exported.
        // Named TetherKit, not Tether: a Mac's disk folds case, and the command is `tether` (no two targets, products
        // or paths may differ only in case: `Tether.build` and `tether.build` would be one folder).
        .library(name: "TetherKit", targets: ["TetherKit"]),
        .executable(name: "tether", targets: ["TetherCLI"]),
        // Test helpers for Swift Testing and XCTest; apart, so that TetherKit and tether never link XCTest.
        .library(name: "TetherTesting", targets: ["TetherTesting"]),
        // `swift package tether verify …` in a package that depends on this one.
        .plugin(name: "TetherCommand", targets: ["TetherCommand"]),
    ],
    targets: [
        // C libraries from Debian (apt) and Homebrew (brew) packages, each wrapped in exactly one place.
        .systemLibrary(
            name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]),
        .systemLibrary(
            name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"]), .brew(["libxml2"])]),
        .systemLibrary(
            name: "CMicroHTTPD", pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"]), .brew(["libmicrohttpd"])]),
        // libyaml's event parser, for OpenAPI documents written in YAML (Spec/YAMLReader.swift).
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"]), .brew(["libyaml"])]),
        .systemLibrary(
            name: "CSimdJSONLibrary", pkgConfig: "simdjson",
            providers: [.apt(["libsimdjson-dev"]), .brew(["simdjson"])]),
        // libxml2, libmicrohttpd and libyaml opened at their first use, not at start-up (Linux; loader.c says why
        // and how).
        .target(
            name: "CLibraryLoader", dependencies: ["CLibXML2", "CMicroHTTPD", "CYAML"],
            linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // simdjson is C++; this shim gives it a plain C API so that no importer needs C++ interoperability.
        .target(name: "CSimdJSON", dependencies: ["CSimdJSONLibrary"]),
        // The contract model, manifests and export (Foundation only), and the Moya-shaped types above it. The command
        // line links the model without the Moya types, whose `HTTPURLResponse` would bring FoundationNetworking into
        // its start-up.
        .target(name: "TetherCore"),
        .target(name: "TetherContracts", dependencies: ["TetherCore"]),
        // The engine: transport, checks, mock server, reports and the commands; TetherKit adds the Swift API for apps
        // (ContractVerifier, which takes Moya-shaped targets).
        .target(
            name: "TetherEngine",
            dependencies: ["TetherCore", "CCurl", "CLibXML2", "CLibraryLoader", "CMicroHTTPD", "CSimdJSON", "CYAML"],
            // ICU's regular expressions (Spec/ECMARegex.swift), as the toolchain builds ICU for Foundation.
            linkerSettings: [.linkedLibrary("_FoundationICU", .when(platforms: [.linux]))]),
        .target(name: "TetherKit", dependencies: ["TetherContracts", "TetherEngine"]),
        // The executable's arguments as glibc hands them over, in place of the Swift runtime's search for them (Linux;
        // arguments.c says why).
        .target(name: "CArguments"),
        .executableTarget(name: "TetherCLI", dependencies: ["TetherEngine", "CArguments"]),
        .target(name: "TetherTesting", dependencies: ["TetherKit"]),
        .plugin(
            name: "TetherCommand",
            capability: .command(
                intent: .custom(verb: "tether", description: "run the tether command line on this package's contracts"),
                permissions: [
                    .allowNetworkConnections(
                        scope: .all(), reason: "tether verify, record, update and learn send each contract's request"),
                    .writeToPackageDirectory(
                        reason: "tether writes its reports (reports/) and, with update, learn, record or import, files"),
                ]),
            dependencies: ["TetherCLI"]),
        .testTarget(name: "TetherContractsTests", dependencies: ["TetherContracts", "TetherCore"]),
        .testTarget(
            name: "TetherKitTests",
            dependencies: ["TetherKit", "TetherContracts", "TetherCore", "TetherEngine", "CArguments"],
            resources: [.copy("Fixtures")]),
        .testTarget(name: "TetherTestingTests", dependencies: ["TetherTesting", "TetherKit", "TetherEngine"]),
    ],
    cxxLanguageStandard: .cxx17
)
