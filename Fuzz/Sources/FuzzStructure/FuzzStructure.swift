import Foundation
import FuzzSupport
@_spi(Testing) import TetherKit

// The JSON parser and the structure check on arbitrary bytes. Input: a stub, then (after a `=====` line) a live body.
// The stub is parsed with `JSONValue.parse` and with a reused `JSONParser`; the live body goes through
// `ContractCheck.findings` (the path a run takes: one parser reused, the compiled `JSONShape` walk) and through
// `ShapeCheck.findings` (a fresh parser), lenient and strict. Besides not crashing, the check keeps its promises:
// - strict and lenient find the same things, and differ only in the kind of `key not in stub`;
// - a live body that is not JSON gives exactly one drift, at `body`; one that is JSON never does;
// - a parser with a small depth limit finds the same, or one drift at `body` for a body nested deeper;
// - a live body and its own serialization (`parse` then `serialized`) give the same findings;
// - a live body read element by element (as large arrays from the transport are) gives the same findings as read
//   whole, and only a body that is JSON can be read so; and read in parts (cut at any of its `{`), the same again;
// - a stub's repeated keys are drifts first, whatever the live body, exactly when some object of the stub has a key
//   twice (an independent reading);
// - a stub without repeated keys holds against its own serialization, even strictly.
// A stub that is not JSON is checked as a text stub.

private let url = "http://fuzz.test/structure"

/// libFuzzer's entry: one input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let (stubBytes, live) = splitParts(fuzzData(bytes, size))
    let parser: JSONParser
    do {
        parser = try JSONParser()
    } catch {
        violated("a parser can be made", "\(error)")
    }
    let response = HTTPResponse(statusCode: 200, body: live, url: url)
    let liveValue = try? JSONValue.parse(live)

    let stub: JSONValue
    do {
        stub = try parser.parse(stubBytes)
    } catch {
        checkTextStub(stubBytes, response: response, liveIsJSON: liveValue != nil, parser: parser)
        return 0
    }
    if (try? JSONValue.parse(stubBytes)) != stub { violated("a reused parser and a fresh one read the same value") }

    let lenient = ContractCheck.findings(contract: contract(.json(stub)), response: response, parser: parser)
    let strict = ShapeCheck.findings(stub: stub, live: live, strict: true)
    checkStrictness(lenient: lenient, strict: strict)
    // The stub's repeated keys, which the checks name first (from the stub, not from the shape's walk of the body).
    let repeats = ShapeCheck.repeatedKeys(in: stub)
    if repeats.isEmpty == hasRepeatedKeys(stub) || Array(lenient.prefix(repeats.count)) != repeats {
        violated("a stub's repeated keys come first, when it has some", "\(repeats)\nvs\n\(lenient)")
    }

    // Read in parts cut at one or two of its `{` (guesses that may lie in strings or nested objects), as large
    // bodies are on several cores: here on threads of the harness's own (`onThreads`), each joined before the input
    // ends, not Dispatch's, whose memory kept from input to input set off a leak check after nearly every input.
    let shape = JSONShape(stub: stub)
    let padded = JSONParser.paddedCopy(of: live)
    let windowBytes = 1 + stubBytes.count % 64
    let liveBytes = [UInt8](live)
    let braces = liveBytes.indices.filter { liveBytes[$0] == UInt8(ascii: "{") }
    let cuts =
        braces.isEmpty
        ? []
        : Array(Set([braces[stubBytes.count % braces.count], braces[(stubBytes.count / 7) % braces.count]])).sorted()
    for isStrict in [false, true] {
        let elementwise = shape.elementwiseFindings(
            live: padded, strict: isStrict, parser: parser, windowBytes: windowBytes, cuts: [])
        if let elementwise {
            // The shape's own walk, without the stub's repeated keys (caught by the random seed 782497307).
            let whole = Array((isStrict ? strict : lenient).dropFirst(repeats.count))
            if liveValue == nil { violated("only a body that is JSON is read element by element", "\(elementwise)") }
            if elementwise != whole {
                violated("element by element finds what reading whole finds", "\(elementwise)\nvs\n\(whole)")
            }
        }
        if !cuts.isEmpty {
            let parts = shape.elementwiseFindings(
                live: padded, strict: isStrict, parser: parser, windowBytes: windowBytes, cuts: cuts,
                perform: onThreads)
            if parts != elementwise {
                violated(
                    "read in parts cut at \(cuts), the same findings, or nil alike", "\(parts)\nvs\n\(elementwise)")
            }
        }
    }

    let bodyDrifts = lenient.filter { $0.path == "body" }
    if liveValue == nil {
        if lenient.count != 1 + repeats.count || bodyDrifts.count != 1 || !bodyDrifts[0].isDrift {
            violated("a live body that is not JSON gives one drift at body", "\(lenient)")
        }
    } else if !bodyDrifts.isEmpty {
        violated("a live body that is JSON is never called not JSON", "\(bodyDrifts)")
    }
    for finding in lenient where finding.path != "body" && !finding.path.hasPrefix("$") {
        violated("a body finding's path is a JSON path", "\(finding)")
    }

    // A parser with a small depth limit finds the same when the body fits in it, and one drift at `body` when not.
    let depth = 1 + stubBytes.count % 6
    if let shallow = try? JSONParser(maxDepth: depth) {
        let limited = ContractCheck.findings(contract: contract(.json(stub)), response: response, parser: shallow)
        let fits = (try? JSONValue.parse(live, maxDepth: depth)) != nil
        let cut = limited.dropFirst(repeats.count)
        let holds =
            fits ? limited == lenient : cut.count == 1 && cut.first?.path == "body" && cut.first?.isDrift == true
        if !holds { violated("a depth limit of \(depth) only cuts bodies nested deeper", "\(limited)\nvs\n\(lenient)") }
    }

    if let liveValue {
        let again = ContractCheck.findings(
            contract: contract(.json(stub)),
            response: HTTPResponse(statusCode: 200, body: liveValue.serialized(), url: url),
            parser: parser)
        if again != lenient {
            violated("a live body and its serialization give the same findings", "\(lenient)\nvs\n\(again)")
        }
    }

    if !hasRepeatedKeys(stub) {
        let selfCheck = ShapeCheck.findings(stub: stub, live: stub.serialized(), strict: true)
        if selfCheck.contains(where: \.isDrift) { violated("a stub holds against itself", "\(selfCheck)") }
    }
    return 0
}

private func contract(_ body: StubBody) -> Contract {
    Contract(
        service: "Fuzz", name: "structure", baseURL: "http://fuzz.test", request: HTTPRequest(method: "GET", url: url),
        sampleData: body, source: "fuzz")
}

/// Strict mode changes only the kind of `key not in stub` findings (and, as a drift, it carries the fix hint).
private func checkStrictness(lenient: [Finding], strict: [Finding]) {
    guard lenient.count == strict.count else {
        violated("strict and lenient find the same things", "\(lenient)\nvs\n\(strict)")
    }
    for (a, b) in zip(lenient, strict) {
        let isExtraKey = a.message.hasPrefix("key not in stub")
        let sameWords = isExtraKey ? b.message.hasPrefix(a.message) : a.message == b.message
        guard a.path == b.path, sameWords,
            isExtraKey ? (a.kind == .note && b.kind == .drift) : a.kind == b.kind
        else {
            violated("strict and lenient differ only in the kind of key not in stub", "\(a)\nvs\n\(b)")
        }
    }
}

/// A text stub: an empty live body or a JSON one is one drift, anything else holds.
private func checkTextStub(_ stubBytes: Data, response: HTTPResponse, liveIsJSON: Bool, parser: JSONParser) {
    let findings = ContractCheck.findings(contract: contract(.text(stubBytes)), response: response, parser: parser)
    let expected = response.body.isEmpty || liveIsJSON ? 1 : 0
    if findings.count != expected || !findings.allSatisfy(\.isDrift) {
        violated("a text stub gives one drift for an empty or JSON body, none otherwise", "\(findings)")
    }
}

/// Whether some object in `value` has a key twice (the check reads the first one, so such a stub need not hold
/// against itself). Keys compare as JSON compares them, by their UTF-8 bytes (not by Swift's `String` equality, which
/// takes `é` and `e` + U+0301 for one key). Iterative, as deep as the parser allows.
private func hasRepeatedKeys(_ value: JSONValue) -> Bool {
    var pending = [value]
    while let next = pending.popLast() {
        switch next {
        case .array(let elements): pending += elements
        case .object(let members):
            var keys = Set<[UInt8]>()
            for member in members {
                if !keys.insert(Array(member.key.utf8)).inserted { return true }
                pending.append(member.value)
            }
        default: continue
        }
    }
    return false
}
