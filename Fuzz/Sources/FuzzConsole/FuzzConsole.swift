import Foundation
import FuzzSupport
@_spi(Testing) import TetherKit

// The console writer on arbitrary text (the input: `runReport(fromFields:)`, as the `reports` fuzzer reads it; the two
// were one fuzzer, split so that each explores at the speed of the others). The writer must keep its promises:
// - the console without color holds no control character but tab, line feed and carriage return, and with color
//   no escape sequence but its own;
// - streamed results, added in any order, print the report's lines in contract order.

/// libFuzzer's entry: one input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    checkConsole(runReport(fromFields: fuzzData(bytes, size)))
    return 0
}

/// The escape sequences the console writes itself (ConsoleWriter's styles and reset).
private let ownSequences = [
    "\u{1B}[0m", "\u{1B}[1m", "\u{1B}[2m", "\u{1B}[32m", "\u{1B}[1;31m", "\u{1B}[1;35m", "\u{1B}[33m",
]

private func checkConsole(_ report: RunReport) {
    // One redactor for the four renderings (each public entry makes its own: most of this fuzzer's time was spent
    // computing the same secrets' forms four times over).
    let redactor = Redactor(report: report)
    let plain = ConsoleWriter.render(report, color: false, redactor: redactor)
    if let bad = plain.unicodeScalars.first(where: isUnsafeForTerminal) {
        violated(
            "the console without color holds no control character", "U+\(String(bad.value, radix: 16)) in\n\(plain)")
    }
    let colored = withoutOwnSequences(ConsoleWriter.render(report, color: true, redactor: redactor))
    if let bad = colored.first(where: isUnsafeForTerminal) {
        violated("the console with color writes only its own escapes", "U+\(String(bad.value, radix: 16))")
    }

    var stream = ConsoleWriter.Stream(redactor: redactor, color: false)
    var streamed = ""
    for (index, result) in report.results.enumerated().reversed() {
        streamed += stream.add(result, at: index)
    }
    let closing = ConsoleWriter.closing(for: report, color: false, redactor: redactor)
    if streamed + closing != plain {
        violated("streamed results print the report's lines in contract order", "\(streamed)\nvs\n\(plain)")
    }
}

/// The console's scalars without its own escape sequences. Compared scalar by scalar, not as `String`s: a text that
/// begins with a combining mark joins the sequence's final `m` into one `Character`, and a `Character`-wise search (as
/// `replacingOccurrences` does) would not find the sequence there.
private func withoutOwnSequences(_ text: String) -> [Unicode.Scalar] {
    let scalars = Array(text.unicodeScalars)
    let sequences = ownSequences.map { Array($0.unicodeScalars) }
    var kept: [Unicode.Scalar] = []
    kept.reserveCapacity(scalars.count)
    var index = 0
    while index < scalars.count {
        if scalars[index] == "\u{1B}",
            let own = sequences.first(where: { scalars[index...].starts(with: $0) })
        {
            index += own.count
        } else {
            kept.append(scalars[index])
            index += 1
        }
    }
    return kept
}

private func isUnsafeForTerminal(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x9, 0xA, 0xD: false
    case 0x0..<0x20, 0x7F...0x9F: true
    default: false
    }
}
