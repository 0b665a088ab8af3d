import Foundation
import FuzzSupport
import TetherKit

// The XML structure check on arbitrary bytes, through libxml2. Input: a stub, then (after a `=====` line) a live body,
// both declared `application/xml`. Besides not crashing, hanging or expanding entities, the check keeps its promises:
// - every finding about the body has an XPath-like path (`/…`) or is about the body as a whole (`body`);
// - a stub that libxml2 reads holds against itself (lenient and strict).

private let url = "http://fuzz.test/xml"
private let xmlHeaders = [HTTPHeader("Content-Type", "application/xml")]

/// libFuzzer's entry: one input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let (stubBytes, live) = splitParts(fuzzData(bytes, size))
    let stub = contract(stubBytes)
    for isStrict in [false, true] {
        let findings = ContractCheck.findings(
            contract: stub, response: HTTPResponse(statusCode: 200, headers: xmlHeaders, body: live, url: url),
            isStrict: isStrict)
        for finding in findings where !finding.path.hasPrefix("/") && finding.path != "body" {
            violated("an XML finding's path is XPath-like or body", "\(finding)")
        }
        let itself = ContractCheck.findings(
            contract: stub, response: HTTPResponse(statusCode: 200, headers: xmlHeaders, body: stubBytes, url: url),
            isStrict: isStrict)
        // A stub the reader refuses (not XML, entities) gives one drift at body against anything, itself included.
        let refused = itself.count == 1 && itself[0].path == "body"
        if !refused, itself.contains(where: \.isDrift) {
            violated("an XML stub holds against itself", "\(itself.filter(\.isDrift))")
        }
    }
    return 0
}

private func contract(_ body: Data) -> Contract {
    Contract(
        service: "Fuzz", name: "xml", baseURL: "http://fuzz.test", request: HTTPRequest(method: "GET", url: url),
        sampleData: .text(body), sampleResponse: .network(statusCode: 200, headers: xmlHeaders), source: "fuzz")
}
