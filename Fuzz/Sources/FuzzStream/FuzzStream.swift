import Foundation
import FuzzSupport
@_spi(Testing) import TetherKit

// The streamed console on arbitrary text (the input: `runReport(fromFields:)`, as the `reports` and `console` fuzzers
// read it; the three were one fuzzer, split so that each explores at the speed of the others). The writer must keep
// its promise: streamed results, added in any order, print the report's lines in contract order, then the closing
// lines, exactly as the whole report renders.

/// libFuzzer's entry: one input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    checkStream(runReport(fromFields: fuzzData(bytes, size)))
    return 0
}

private func checkStream(_ report: RunReport) {
    let redactor = RedactorCache.redactor(for: report)
    let plain = ConsoleWriter.render(report, color: false, redactor: redactor)
    var stream = ConsoleWriter.Stream(redactor: redactor, color: false)
    var streamed = ""
    for (index, result) in report.results.enumerated().reversed() {
        streamed += stream.add(result, at: index)
    }
    let closing = ConsoleWriter.closing(for: report, color: false, redactor: redactor)
    // Byte for byte first: `String`'s `==` compares by canonical equivalence, which normalizes any text that is not
    // ASCII, and the texts are equal on nearly every input. It decides only when the bytes differ.
    let joined = streamed + closing
    if !hasSameBytes(joined, plain) && joined != plain {
        violated("streamed results print the report's lines in contract order", "\(streamed)\nvs\n\(plain)")
    }
}

private func hasSameBytes(_ a: String, _ b: String) -> Bool {
    var (a, b) = (a, b)
    return a.withUTF8 { x in
        b.withUTF8 { y in
            x.count == y.count && (x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0)
        }
    }
}
