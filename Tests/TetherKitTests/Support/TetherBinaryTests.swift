import Foundation
import Testing

/// The end-to-end tests run the `tether` that this very build made, however the tests were started.
@Suite struct TetherBinaryTests {
    /// Linux: the test executable is in the products folder, beside the resource bundle and `tether`.
    @Test func onLinuxTheProductsFolderIsFound() {
        let products = "/repo/.build/x86_64-unknown-linux-gnu/debug"
        let path = TetherBinary.locate(
            argument0: products + "/TetherPackageTests.xctest",
            moduleBundle: URL(fileURLWithPath: products + "/Tether_TetherKitTests.resources"),
            sourceRoot: URL(fileURLWithPath: "/repo")
        ) { $0 == products + "/tether" }
        #expect(path == products + "/tether")
    }

    /// macOS: `swift test` runs the bundle in `xctest` (or SwiftPM's testing helper), so `arguments[0]` is a tool of
    /// the toolchain; a release build or another scratch path has no `.build/debug/tether`, or an old one.
    @Test(arguments: [
        "/Applications/Xcode_26.2.app/Contents/Developer/usr/bin/xctest",
        "/Applications/Xcode_26.2.app/Contents/Developer/Toolchains/XcodeDefault.xctoolchain/usr/libexec/swift/pm/"
            + "swiftpm-testing-helper",
    ])
    func onMacOSTheProductsFolderIsFoundFromTheResourceBundle(argument0: String) {
        let products = "/tmp/scratch/arm64-apple-macosx/release"
        let stale = "/repo/.build/debug/tether"
        let path = TetherBinary.locate(
            argument0: argument0, moduleBundle: URL(fileURLWithPath: products + "/Tether_TetherKitTests.bundle"),
            sourceRoot: URL(fileURLWithPath: "/repo")
        ) { [products + "/tether", stale].contains($0) }
        #expect(path == products + "/tether")
    }

    /// Xcode puts the resource bundle inside the test bundle, in the products folder.
    @Test func underXcodeTheFolderAboveTheTestBundleIsFound() {
        let products = "/DerivedData/Tether/Build/Products/Debug"
        let path = TetherBinary.locate(
            argument0: "/Applications/Xcode.app/Contents/Developer/usr/bin/xctest",
            moduleBundle: URL(
                fileURLWithPath: products + "/TetherPackageTests.xctest/Contents/Resources/Tether_TetherKitTests.bundle"
            ),
            sourceRoot: URL(fileURLWithPath: "/repo")
        ) { $0 == products + "/tether" }
        #expect(path == products + "/tether")
    }

    /// Here: the binary found is the one `swift build` made beside this test executable.
    @Test func hereItIsTheBuiltBinary() {
        #expect(FileManager.default.isExecutableFile(atPath: TetherBinary.path))
        #expect(
            URL(fileURLWithPath: TetherBinary.path).deletingLastPathComponent().standardizedFileURL
                == Bundle.module.bundleURL.deletingLastPathComponent().standardizedFileURL)
    }
}
