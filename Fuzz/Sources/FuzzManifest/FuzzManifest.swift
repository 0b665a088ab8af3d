import Foundation
import FuzzSupport
@_spi(Testing) import TetherKit

// The manifest loader on arbitrary bytes. Input: a manifest, then (after a `=====` line) the bytes of a sample file,
// written as `sample.json` and `sample.txt` beside it. The manifest is loaded as a file and as a folder; either way a
// `ContractError` is a fine answer, a trap, a leak or a hang is not. Its JSON is also read in one thread and in two
// halves (`JSONReader.halvesDiffer`), which must agree.
//
// No file the loader reads is ever empty: Foundation of Swift 6.3.1 leaks 4 KiB on every read of an empty file
// (`FileManager.contents(atPath:)`, `Data(contentsOf:)`: a malloc in `readBytesFromFile` that is never freed), which
// would make every run a leak report that is not Tether's. An empty manifest is skipped, an empty sample not written.

/// The folder the manifest and its samples are written to, made once (nothing the loader does removes it).
private let folder: String = {
    let folder = (scratchFolder as NSString).appendingPathComponent("manifest")
    do {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    } catch {
        violated("the scratch folder can be created", "\(error)")
    }
    return folder
}()
private let manifestPath = (folder as NSString).appendingPathComponent("manifest.json")
private let samplePaths = ["sample.json", "sample.txt"].map { (folder as NSString).appendingPathComponent($0) }
private let environment = ["TOKEN": "fuzz-secret-token", "HOST": "api.example.com", "EMPTY": ""]

/// Parts of paths a sample `file` could name that are not files (a device blocks, `/proc` is endless): the loader
/// reads what it is told to, and hanging on `/dev/stdin` is not a parser bug.
private let specialPaths = ["dev/", "proc/", "sys/", "fd/"].map { Data($0.utf8) }

/// libFuzzer's entry: one input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let (manifest, sample) = splitParts(fuzzData(bytes, size))
    if manifest.isEmpty || specialPaths.contains(where: { manifest.range(of: $0) != nil }) { return 0 }
    writeScratch(manifest, to: manifestPath)
    for path in samplePaths {
        if sample.isEmpty {
            removeScratch(path)
        } else {
            writeScratch(sample, to: path)
        }
    }
    // Read with its `targets` array's second half on another thread (from any length here; a manifest waits for
    // 128 KB), the manifest is the one thread's document or error. Nested at most 16 levels, so that inputs reach the
    // limit in either half.
    let halves = JSONReader(maxDepth: 16).halvesDiffer(manifest, deferring: ManifestLoader.inlineStubs)
    if let difference = halves.difference {
        violated("a manifest reads the same in one thread and in two halves", difference)
    }
    let loader = ManifestLoader(environment: environment)
    for paths in [[manifestPath], [folder]] {
        do {
            for contract in try loader.load(paths: paths) {
                if contract.source.isEmpty { violated("every contract names its source", "\(contract)") }
                // An inline stub is kept as text the loader has read: reading it again must give a value (the
                // stub's `value` traps otherwise), and the stub equals itself made from that value.
                if case .json(let stub) = contract.sampleData, contract.sampleData != .json(stub.value) {
                    violated("a stub kept as text reads back as its value", "\(contract)")
                }
            }
        } catch {
            if error.description.isEmpty { violated("a contract error has a message") }
        }
    }
    return 0
}
