import Foundation
import FuzzSupport
import TetherKit

// The HAR parser and the replay's matching on arbitrary bytes. Every entry that parses must be found again by a
// request made of its own method, path and query (unless an earlier entry holds the same request, or its status is
// not replayable), and a request nobody recorded must get the 404 that names it.

/// libFuzzer's entry: one input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let data = fuzzData(bytes, size)
    let archive: HARArchive
    do {
        archive = try HARArchive.parse(data, path: "fuzz.har")
    } catch {
        if error.description.isEmpty { violated("a HAR error has a message") }
        return 0
    }
    let replay = HARReplay(archive)
    if replay.count > archive.entries.count { violated("the replay answers no more requests than were recorded") }
    // The responses of the entries so far that can be replayed: an entry is answered by itself or an earlier one.
    var earlier: [MockResponse] = []
    for entry in archive.entries {
        let request = MockRequest(method: entry.method, path: entry.path, query: entry.query)
        let response = replay.response(for: request)
        if entry.status >= 100 {
            let headers = entry.headers.filter { !HARReplay.droppedHeaders.contains($0.name.lowercased()) }
            earlier.append(MockResponse(status: entry.status, headers: headers, body: entry.body))
            if !earlier.contains(response) {
                violated("a recorded request is answered by its entry or an earlier one", "\(entry) → \(response)")
            }
        }
        _ = replay.response(for: MockRequest(method: "HEAD", path: entry.path, query: entry.query))
    }
    let missing = replay.response(for: MockRequest(method: "FUZZ-NOT-RECORDED", path: "/fuzz/not/recorded"))
    if missing.status != 404 { violated("a request nobody recorded gets 404", "\(missing)") }
    do {
        _ = try JSONValue.parse(missing.body)
    } catch {
        violated("the 404 for a request nobody recorded is JSON", "\(error)")
    }
    return 0
}
