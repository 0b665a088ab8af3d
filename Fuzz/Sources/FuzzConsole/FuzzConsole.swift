import Foundation
import FuzzSupport
@_spi(Testing) import TetherKit

// The console writer on arbitrary text (the input: `runReport(fromFields:)`, as the `reports` fuzzer reads it; the
// three, `reports`, `console` and `stream`, were one fuzzer, split so that each explores at the speed of the others).
// The writer must keep its promise: the console without color holds no control character but tab, line feed and
// carriage return, and with color no escape sequence but its own. (`stream` checks the streamed console.)

/// libFuzzer's entry: one input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    checkConsole(runReport(fromFields: fuzzData(bytes, size)))
    return 0
}

/// The escape sequences the console writes itself (ConsoleWriter's styles and reset), as bytes: all ASCII.
private let ownSequences = [
    "\u{1B}[0m", "\u{1B}[1m", "\u{1B}[2m", "\u{1B}[32m", "\u{1B}[1;31m", "\u{1B}[1;35m", "\u{1B}[33m",
].map { Array($0.utf8) }

private func checkConsole(_ report: RunReport) {
    // One redactor for both renderings (each public entry makes its own: most of this fuzzer's time was spent
    // computing the same secrets' forms over and over), kept for the next inputs with the same secrets.
    let redactor = RedactorCache.redactor(for: report)
    let plain = ConsoleWriter.render(report, color: false, redactor: redactor)
    if let bad = firstUnsafeScalar(plain, skippingOwnSequences: false) {
        violated("the console without color holds no control character", "U+\(String(bad, radix: 16)) in\n\(plain)")
    }
    let colored = ConsoleWriter.render(report, color: true, redactor: redactor)
    if let bad = firstUnsafeScalar(colored, skippingOwnSequences: true) {
        violated("the console with color writes only its own escapes", "U+\(String(bad, radix: 16))")
    }

}

/// The first scalar of `text` a terminal would obey (`isUnsafeForTerminal`), if any, after the console's own escape
/// sequences are taken out when `skippingOwnSequences`.
///
/// On the UTF-8 bytes, not on scalars or `Character`s: every such scalar is one byte (U+0000-U+001F, U+007F) or
/// `C2 80`-`C2 9F` (U+0080-U+009F), and a `String` is valid UTF-8, so those bytes never lie inside another scalar;
/// the sequences are ASCII, so they are found byte for byte. (A `Character`-wise search would not find a sequence
/// whose final `m` a following combining mark joins into one `Character`; arrays of scalars, as this was written
/// first, were a third of the fuzzer's allocations.)
private func firstUnsafeScalar(_ text: String, skippingOwnSequences: Bool) -> UInt32? {
    var text = text
    return text.withUTF8 { bytes in
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x1B, skippingOwnSequences,
                let own = ownSequences.first(where: { bytes[index...].starts(with: $0) })
            {
                index += own.count
                continue
            }
            if byte < 0x80 {
                if isUnsafeForTerminal(UInt32(byte)) { return UInt32(byte) }
            } else if byte == 0xC2, index + 1 < bytes.count, isUnsafeForTerminal(UInt32(bytes[index + 1])) {
                return UInt32(bytes[index + 1])
            }
            index += 1
        }
        return nil
    }
}

private func isUnsafeForTerminal(_ scalar: UInt32) -> Bool {
    switch scalar {
    case 0x9, 0xA, 0xD: false
    case 0x0..<0x20, 0x7F...0x9F: true
    default: false
    }
}
