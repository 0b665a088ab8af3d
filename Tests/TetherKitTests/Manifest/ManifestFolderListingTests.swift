import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// `ManifestLoader.jsonFiles` walks a folder itself on Linux: it must find exactly what Foundation's
/// `FileManager.enumerator(atPath:)` finds (the walk it replaced), in the same sorted order, on a tree with every
/// awkward case: hidden files and folders, symbolic links to files, folders, nowhere and back up, a folder named
/// `x.json`, a FIFO, letter case, names that sort differently by byte and by path.
@Suite struct ManifestFolderListingTests {
    /// The paths the enumerator gives for `folder`, as the loader built them before.
    static func enumerated(_ folder: String) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: folder) else { return [] }
        var files: [String] = []
        while let relative = enumerator.nextObject() as? String {
            if relative.hasSuffix(".json") { files.append((folder as NSString).appendingPathComponent(relative)) }
        }
        return files.sorted()
    }

    /// A tree of awkward entries, removed when the test ends.
    final class AwkwardTree {
        let path = NSTemporaryDirectory() + "tether-listing-" + UUID().uuidString

        init() throws {
            let files = [
                "a.json", "B.json", ".hidden.json", ".hiddendir/b.json", "sub/c.json", "sub/deeper/d.JSON",
                "sub/e.json.txt", "sub-z/f.json", "sub.json/g.json", "outside/h.json", "ä.json", "sub/ z.json",
            ]
            for file in files {
                let full = path + "/" + file
                try FileManager.default.createDirectory(
                    atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try Data("{}".utf8).write(to: URL(fileURLWithPath: full))
            }
            let links = [
                "linkdir": "sub", "linkfile.json": "a.json", "broken.json": "nowhere", "sub/up": "..",
                "absolute": path + "/outside", "linkdir.json": "sub",
            ]
            for (name, destination) in links {
                try FileManager.default.createSymbolicLink(atPath: path + "/" + name, withDestinationPath: destination)
            }
            #expect(mkfifo(path + "/fifo.json", 0o600) == 0)
        }

        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    @Test func aTreeOfAwkwardEntriesListsAsTheEnumeratorListsIt() throws {
        let tree = try AwkwardTree()
        let listed = try ManifestLoader.jsonFiles(in: tree.path)
        #expect(listed == Self.enumerated(tree.path))
        // Not only equal to the oracle: the cases themselves, so a change in Foundation shows here too.
        let names = listed.map { String($0.dropFirst(tree.path.count + 1)) }
        #expect(names.contains(".hiddendir/b.json") && names.contains("sub.json/g.json"))
        #expect(names.contains("linkfile.json") && names.contains("broken.json") && names.contains("fifo.json"))
        #expect(!names.contains { $0.hasPrefix("linkdir/") || $0.hasPrefix("sub/up/") || $0.hasPrefix("absolute/") })
        #expect(!names.contains("sub/deeper/d.JSON"))
        #expect(names == names.sorted())
    }

    /// The same folder spelled every way a user may type it. A folder given through a symbolic link is followed
    /// (the enumerator would list nothing there): it lists what the folder it leads to lists, under the given spelling.
    @Test func everySpellingOfTheFolderListsAsTheEnumeratorListsIt() throws {
        let tree = try AwkwardTree()
        let base = (tree.path as NSString).lastPathComponent
        let parent = (tree.path as NSString).deletingLastPathComponent
        let spellings = [
            tree.path, tree.path + "/", tree.path + "//", tree.path + "/.", tree.path + "/sub/..", tree.path + "/sub",
            tree.path + "/linkdir/.", tree.path + "/sub.json", parent + "/./" + base,
        ]
        for spelling in spellings {
            #expect(try ManifestLoader.jsonFiles(in: spelling) == Self.enumerated(spelling), "\(spelling)")
        }
        let sub = try ManifestLoader.jsonFiles(in: tree.path + "/sub")
        #expect(!sub.isEmpty)
        for link in [tree.path + "/linkdir", tree.path + "/linkdir/"] {
            let listed = try ManifestLoader.jsonFiles(in: link)
            #expect(
                listed
                    == sub.map { (link as NSString).appendingPathComponent(String($0.dropFirst(tree.path.count + 5))) })
        }
        let outside = try ManifestLoader.jsonFiles(in: tree.path + "/absolute")
        #expect(
            outside
                == Self.enumerated(tree.path + "/outside").map {
                    $0.replacingOccurrences(of: "/outside", with: "/absolute")
                })
    }

    /// A contracts folder reached through a symbolic link loads its manifests.
    @Test func aLinkedContractsFolderLoads() throws {
        let folder = try ContractFolder([
            "real/api.json": #"{"service": "S", "baseURL": "http://127.0.0.1:9", "targets": [{"name": "a"}]}"#
        ])
        try FileManager.default.createSymbolicLink(atPath: folder.file("link"), withDestinationPath: "real")
        let contracts = try ManifestLoader().load(paths: [folder.file("link")])
        #expect(contracts.map(\.name) == ["a"])
        #expect(contracts.first?.source == folder.file("link") + "/api.json")
    }

    /// A manifest named several ways in one run (itself, with `./` and `..`, through its folder, through a symbolic
    /// link to it or to its folder) is read once, under the first spelling.
    @Test func aManifestNamedSeveralWaysIsReadOnce() throws {
        let folder = try ContractFolder([
            "real/api.json": #"{"service": "S", "baseURL": "http://127.0.0.1:9", "targets": [{"name": "a"}]}"#,
            "real/other.json": #"{"service": "T", "baseURL": "http://127.0.0.1:9", "targets": [{"name": "b"}]}"#,
        ])
        try FileManager.default.createSymbolicLink(atPath: folder.file("folder-link"), withDestinationPath: "real")
        try FileManager.default.createSymbolicLink(
            atPath: folder.file("file-link.json"), withDestinationPath: "real/api.json")
        let contracts = try ManifestLoader().load(paths: [
            folder.file("real/api.json"), folder.file("real/./api.json"), folder.file("real/../real/api.json"),
            folder.file("real"), folder.file("folder-link"), folder.file("file-link.json"),
        ])
        #expect(contracts.map(\.name) == ["a", "b"])
        #expect(contracts.map(\.source) == [folder.file("real/api.json"), folder.file("real") + "/other.json"])
    }

    /// The paths keep the folder as it was given (`dir/../tree/a.json`): error messages name the file that way.
    @Test func theFolderKeepsItsSpellingInEveryPath() throws {
        let tree = try AwkwardTree()
        let spelling = tree.path + "/sub/../"
        let listed = try ManifestLoader.jsonFiles(in: spelling)
        #expect(listed == Self.enumerated(spelling))
        #expect(listed.contains(tree.path + "/sub/../a.json"), "\(listed)")
    }
}
