import Foundation
import Testing

@testable import TetherCore

/// The path operations of `Platform/Paths.swift` give what Foundation's NSString gives.
@Suite struct PathsTests {
    static let samples = [
        "", "/", "//", "a", "/a", "a/", "/a/", "a/b", "/a/b", "a/b/", "a//b", "//a//b//", "./a", "../a", "a/./b",
        "a/../b", ".", "..", "/.", "a/.", "ab/cd//", "/ab",
    ]

    static var paths: [String] {
        var generator = SeededGenerator(seed: 7)
        // ASCII: swift-corelibs-foundation 6.3 crashes on some paths with other characters (nonASCIIPaths).
        let parts = ["a", "bc", "/", "//", ".", ".."]
        return samples
            + (0..<2_000).map { _ in
                (0..<Int.random(in: 0...6, using: &generator)).map { _ in parts.randomElement(using: &generator)! }
                    .joined()
            }
    }

    /// Compared with Foundation's on paths without a run of slashes (on which swift-corelibs-foundation 6.3 gives
    /// odd answers, `bc/./` for `bc/.//a`): those are in `runsOfSlashes`.
    @Test func partsAreFoundations() {
        for path in Self.paths where !path.contains("//") {
            #expect(path.pathLastComponent == (path as NSString).lastPathComponent, "\(path.debugDescription)")
            // swift-corelibs-foundation 6.3 crashes on a relative path of one character (`a`, `a/`): "" on Darwin.
            var stripped = path
            while stripped.count > 1, stripped.hasSuffix("/") { stripped.removeLast() }
            if stripped.utf16.count == 1 && stripped != "/" {
                #expect(path.pathDeletingLastComponent == "")
            } else {
                #expect(
                    path.pathDeletingLastComponent == (path as NSString).deletingLastPathComponent,
                    "\(path.debugDescription)")
            }
            // Appending as swift-corelibs-foundation does, which the command line has always run with on Linux:
            // Darwin's Foundation also collapses and drops slashes around the component (`a` + `x/` is `a/x` there),
            // which Tether's callers never pass (a folder and a relative path).
            #if !canImport(Darwin)
                for component in ["", "x", "x/", "/x", "x/y", "."] {
                    #expect(
                        path.pathAppending(component) == (path as NSString).appendingPathComponent(component),
                        "\(path.debugDescription) + \(component.debugDescription)")
                }
            #endif
            #expect(
                path.pathAppending("x/y") == (path.isEmpty ? "x/y" : path.hasSuffix("/") ? path + "x/y" : path + "/x/y")
            )
        }
    }

    /// Ours (swift-corelibs-foundation 6.3 answers some of these oddly, and Darwin's collapses the runs).
    /// Below a folder, not the folder itself nor a sibling that shares its name's start; the root holds every path.
    @Test func aPathIsInsideAFolderBelowIt() {
        #expect("/a/b".isInside("/a") && "/a/b".isInside("/a/") && "/x".isInside("/"))
        #expect(!"/a".isInside("/a") && !"/ab".isInside("/a") && !"/a".isInside("/a/b"))
    }

    /// `.` and `..` resolved by the text: a relative path keeps its leading `..`, an absolute one drops those at the
    /// root; a relative path is made absolute from the current folder first.
    @Test func aPathIsNormalizedAndMadeAbsolute() {
        #expect("a/./b/../c".lexicallyNormalized == "a/c" && "../../a/./b/".lexicallyNormalized == "../../a/b")
        #expect("/../a//b/../../c".lexicallyNormalized == "/c" && "/".lexicallyNormalized == "/")
        #expect("/x/../y".absolutePath == "/y")
        #expect("a/../b".absolutePath == (FileManager.default.currentDirectoryPath + "/b").lexicallyNormalized)
    }

    @Test func runsOfSlashes() {
        #expect("//a//b//".pathLastComponent == "b")
        #expect("//a//b//".pathDeletingLastComponent == "/a")
        #expect("a//b".pathDeletingLastComponent == "a")
        #expect("//".pathLastComponent == "")
        #expect("a//".pathAppending("x") == "a//x")
    }

    /// What Darwin's Foundation gives (Linux's crashes on some of these).
    @Test func nonASCIIPaths() {
        #expect("é/ü".pathLastComponent == "ü")
        #expect("é/ü".pathDeletingLastComponent == "é")
        #expect("/😀/x/".pathDeletingLastComponent == "/😀")
        #expect("é".pathAppending("ü") == "é/ü")
    }

    @Test func theTemporaryFolderIsFoundations() {
        #expect(String.temporaryFolder == NSTemporaryDirectory())
    }

    @Test func aFileAndALinkToItResolveAlike() throws {
        let folder = NSTemporaryDirectory() + "tether-paths-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder + "/sub", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(FileManager.default.createFile(atPath: folder + "/sub/file.json", contents: Data()))
        try FileManager.default.createSymbolicLink(atPath: folder + "/link", withDestinationPath: folder + "/sub")
        #expect((folder + "/link/file.json").resolvedPath == (folder + "/sub/../sub/file.json").resolvedPath)
        #expect((folder + "/link/file.json").resolvedPath?.hasSuffix("/sub/file.json") == true)
        #expect("/no/such/file".resolvedPath == nil)
        #expect((folder + "/link").fileKind == (true, true))
        #expect((folder + "/sub/file.json").fileKind == (true, false))
        #expect((folder + "/none").fileKind == (false, false))
        // As Foundation says, for every kind of path (`stat(2)` on Linux).
        try FileManager.default.createSymbolicLink(atPath: folder + "/file-link", withDestinationPath: "sub/file.json")
        try FileManager.default.createSymbolicLink(atPath: folder + "/dangling", withDestinationPath: "none")
        let paths = [
            folder, folder + "/", folder + "/sub", folder + "/sub/", folder + "/sub/file.json",
            folder + "/sub/file.json/",
            folder + "/link", folder + "/link/", folder + "/file-link", folder + "/dangling", folder + "/none",
            folder + "/sub/./../sub", "", "/", ".", "/no/such/file",
        ]
        for path in paths {
            var isFolder: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isFolder)
            #expect(path.fileKind == (exists, exists && isFolder.boolValue), "\(path)")
        }
    }

    @Test func fileErrorsSayTheSystemsReason() {
        do {
            _ = try Data(contentsOf: URL(fileURLWithPath: "/no/such/file"))
            Issue.record("read a file that is not there")
        } catch {
            #expect(fileErrorReason(error) == "no such file")
        }
        do {
            _ = try Data(contentsOf: URL(fileURLWithPath: NSTemporaryDirectory()))
            Issue.record("read a folder as a file")
        } catch {
            #expect(fileErrorReason(error) == "is a directory", "\(error)")
        }
    }
}
