import Foundation
import Testing

@testable import TetherEngine
@testable import TetherKit

/// `--ref` writes each version's files out of git with one `git cat-file --batch` (`GitObjects`): what it writes must
/// be what the commit holds, folders, names past ASCII, links and all, in SHA-1 and SHA-256 repositories alike.
@Suite struct GitObjectsTests {
    /// A repository with one commit, tagged `v1`, in a scratch folder removed at the end.
    final class Repository {
        let path = NSTemporaryDirectory() + "tether-objects-test-" + UUID().uuidString
        static let files = [
            "contracts/shop.json": #"{"service": "Shop"}"# + "\n",
            "contracts/sub folder/dépôt ✓.json": "[1, 2]\n",
            "contracts/deeper/a/b/c.json": String(repeating: "x", count: 200_000),  // past the reader's buffer
            "contracts/empty.json": "",
            "README": "top\n",
        ]

        init(objectFormat: String) throws {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            try git(["init", "-q", "--object-format=\(objectFormat)"])
            for (name, text) in Self.files {
                let file = path + "/" + name
                try FileManager.default.createDirectory(
                    atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try Data(text.utf8).write(to: URL(fileURLWithPath: file))
            }
            try FileManager.default.createSymbolicLink(
                atPath: path + "/contracts/link.json", withDestinationPath: "shop.json")
            try git(["add", "-A"])
            try git(["-c", "user.email=ci@example.com", "-c", "user.name=CI", "commit", "-q", "-m", "one"])
            try git(["tag", "v1"])
        }

        deinit { try? FileManager.default.removeItem(atPath: path) }

        @discardableResult
        func git(_ arguments: [String]) throws -> String {
            let run = try ChildProcess.run("/usr/bin/env", ["git"] + arguments, directory: path)
            #expect(run.status == 0, "git \(arguments.joined(separator: " ")): \(run.stderrText)")
            return String(decoding: run.stdout, as: UTF8.self)
        }
    }

    @Test(arguments: ["sha1", "sha256"])
    func aRefsFoldersAndFilesAreWrittenOutAsTheCommitHoldsThem(objectFormat: String) throws {
        let repository = try Repository(objectFormat: objectFormat)
        // The working tree moves on: what is written is the tag's.
        try Data("changed".utf8).write(to: URL(fileURLWithPath: repository.path + "/contracts/shop.json"))
        let out = NSTemporaryDirectory() + "tether-objects-out-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: out) }
        let objects = try GitObjects(repository: repository.path)

        #expect(try objects.writeOut("v1:contracts", to: out + "/folder/contracts"))
        #expect(try objects.writeOut("v1:", to: out + "/top"))
        #expect(try objects.writeOut("v1:contracts/shop.json", to: out + "/file/contracts/shop.json"))
        for (name, text) in Repository.files {
            #expect(try String(contentsOfFile: out + "/top/" + name, encoding: .utf8) == text, "\(name)")
            if name.hasPrefix("contracts/") {
                #expect(try String(contentsOfFile: out + "/folder/" + name, encoding: .utf8) == text, "\(name)")
            }
        }
        #expect(
            try String(contentsOfFile: out + "/file/contracts/shop.json", encoding: .utf8) == #"{"service": "Shop"}"#
                + "\n")
        #expect(
            try FileManager.default.destinationOfSymbolicLink(atPath: out + "/folder/contracts/link.json")
                == "shop.json")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: out + "/folder/contracts").sorted() == [
                "deeper", "empty.json", "link.json", "shop.json", "sub folder",
            ])
        // What the ref does not have: nothing written, and the process still answers.
        #expect(try !objects.writeOut("v1:elsewhere", to: out + "/none"))
        #expect(!FileManager.default.fileExists(atPath: out + "/none"))
        #expect(try !objects.writeOut("v9:contracts", to: out + "/none"))
        #expect(try objects.writeOut("v1:README", to: out + "/again/README"))
    }

    @Test func aFolderOutsideAnyRepositoryIsAnErrorWithGitsMessage() throws {
        let folder = NSTemporaryDirectory() + "tether-objects-none-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let objects = try GitObjects(repository: folder)
        #expect {
            _ = try objects.writeOut("v1:contracts", to: folder + "/out")
        } throws: { error in
            "\(error)".contains("git cat-file stopped") && "\(error)".contains("not a git repository")
        }
    }
}
