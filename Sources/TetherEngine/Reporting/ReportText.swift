#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The words every report prints, built in one place so that the console and JUnit say the same thing.
///
/// Free text (finding paths and messages, error and skip reasons, request lines, URLs, sources) goes through `clean`:
/// redacted first (so truncation can never cut a secret in two and leave half of it), then control characters made
/// visible, then truncated to `maxFreeTextBytes`. Computed values (names, counts, times, timestamps) are never redacted.
enum ReportText {
    /// The most bytes (UTF-8) one free-text field may take, marker included: a body excerpt stays an excerpt.
    static let maxFreeTextBytes = 4096

    // MARK: Free text

    /// `text` redacted, with unprintable characters escaped, truncated to `maxBytes`.
    ///
    /// Only the start of a long text is redacted and escaped (a margin past `maxBytes`), so a 10 MB body excerpt
    /// costs what 4 KiB do. The marker gives the original size: `… [truncated; 10485760 bytes in all]`.
    /// `totalBytes`, when given, is the size of the body `text` was taken from (the marker gives it, and a shorter
    /// `text` is marked as cut).
    static func clean(_ text: String, redactor: Redactor, maxBytes: Int = maxFreeTextBytes, totalBytes: Int? = nil)
        -> String
    {
        let (redacted, isWhole) = redactor.redactedPrefix(of: text, outputLimit: maxBytes + 64)
        let size = text.utf8.count
        return truncated(
            escapingControls(redacted), maxBytes: maxBytes, totalBytes: max(totalBytes ?? size, size),
            isWhole: isWhole && (totalBytes ?? size) <= size)
    }

    /// `text` with every character that XML 1.0 forbids or a terminal would obey replaced by a visible escape.
    ///
    /// Chosen over U+FFFD because it keeps what the service actually sent readable: ESC becomes the six characters
    /// `\u{1B}`, NUL `\u{0}`, U+FFFE `\u{FFFE}`. Escaped: everything outside XML 1.0's `Char` production
    /// (`#x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]`), plus DEL and the C1 controls
    /// (U+007F–U+009F), which XML allows but terminals interpret, and the bidirectional overrides and isolates
    /// (U+202A–U+202E, U+2066–U+2069), which make a line read other than it is. Tab, line feed and carriage return are
    /// kept. A Swift `String` holds no lone surrogate (invalid UTF-8 was already decoded to U+FFFD), so nothing else
    /// can slip through.
    /// Idempotent: the escape is plain ASCII.
    static func escapingControls(_ text: String) -> String {
        // Printable ASCII, tab, line feed and carriage return need nothing: most names, URLs and numbers are only that,
        // and bytes are quicker to test than scalars (a report escapes every attribute and text it writes).
        let isPlain = text.utf8.withContiguousStorageIfAvailable { bytes in
            bytes.allSatisfy { ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x9 || $0 == 0xA || $0 == 0xD }
        }
        if isPlain == true { return text }
        // On the UTF-8 bytes, copying the runs between escapes: every scalar `needsEscape` takes is one byte
        // (U+0000-U+001F, U+007F), `C2 80`-`C2 9F` (U+0080-U+009F), `EF BF BE`/`EF BF BF` (U+FFFE, U+FFFF) or `E2 80 AA`-
        // `E2 80 AE`/`E2 81 A6`-`E2 81 A9` (the bidirectional controls), and a
        // `String` is valid UTF-8, so those bytes never lie inside another scalar.
        var contiguous = text
        let escaped: [UInt8]? = contiguous.withUTF8 { bytes in
            var output: [UInt8] = []
            var copied = 0  // bytes[copied..<index] are kept and not yet in `output`
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                var scalar: UInt32?
                var length = 1
                if byte < 0x20 {
                    if byte != 0x9 && byte != 0xA && byte != 0xD { scalar = UInt32(byte) }
                } else if byte == 0x7F {
                    scalar = 0x7F
                } else if byte == 0xC2, index + 1 < bytes.count, (0x80...0x9F).contains(bytes[index + 1]) {
                    (scalar, length) = (UInt32(bytes[index + 1]), 2)
                } else if byte == 0xEF, index + 2 < bytes.count, bytes[index + 1] == 0xBF, bytes[index + 2] >= 0xBE {
                    (scalar, length) = (0xFFFE + UInt32(bytes[index + 2] - 0xBE), 3)
                } else if byte == 0xE2, index + 2 < bytes.count,
                    (bytes[index + 1] == 0x80 && (0xAA...0xAE).contains(bytes[index + 2]))
                        || (bytes[index + 1] == 0x81 && (0xA6...0xA9).contains(bytes[index + 2]))
                {
                    // U+202A-U+202E, U+2066-U+2069: bidirectional overrides and isolates.
                    (scalar, length) = (
                        0x2000 | UInt32(bytes[index + 1] & 0x3F) << 6 | UInt32(bytes[index + 2] & 0x3F), 3
                    )
                }
                if let scalar {
                    if output.isEmpty { output.reserveCapacity(bytes.count + 16) }
                    output.append(contentsOf: bytes[copied..<index])
                    output.append(contentsOf: #"\u{"#.utf8)
                    output.append(contentsOf: String(scalar, radix: 16, uppercase: true).utf8)
                    output.append(UInt8(ascii: "}"))
                    copied = index + length
                }
                index += length
            }
            guard copied > 0 else { return nil }
            output.append(contentsOf: bytes[copied..<bytes.count])
            return output
        }
        return escaped.map { String(decoding: $0, as: UTF8.self) } ?? text
    }

    /// Whether `scalar` is escaped by `escapingControls`.
    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x9, 0xA, 0xD: false
        case 0x0..<0x20: true
        case 0x7F...0x9F: true
        case 0xFFFE, 0xFFFF: true
        case 0x202A...0x202E, 0x2066...0x2069: true  // bidirectional overrides: they reorder what a reader sees
        default: false  // Unicode.Scalar excludes surrogates; everything else is an XML 1.0 Char.
        }
    }

    /// `text` cut on a character boundary so that it, with the `… [truncated; N bytes in all]` marker, fits in
    /// `maxBytes`. `totalBytes` is the size of the text `text` was taken from (default: its own), and `isWhole` false
    /// says `text` is already a prefix, so it is marked even if it fits.
    static func truncated(_ text: String, maxBytes: Int, totalBytes: Int? = nil, isWhole: Bool = true) -> String {
        let size = text.utf8.count
        guard size > maxBytes || !isWhole else { return text }
        let marker = "… [truncated; \(max(totalBytes ?? size, size)) bytes in all]"
        let budget = max(0, maxBytes - marker.utf8.count)
        var kept = 0
        var end = text.startIndex
        for character in text {
            let characterSize = character.utf8.count
            if kept + characterSize > budget { break }
            kept += characterSize
            end = text.index(after: end)
        }
        return text[..<end] + marker
    }

    /// The text's first line, for one-line summaries (attributes, headlines).
    static func firstLine(_ text: String) -> String {
        guard mayBreakLines(text), let newline = text.firstIndex(where: \.isNewline) else { return text }
        return String(text[..<newline]) + " …"
    }

    /// Whether `text` may hold a line break, read from its bytes: a character is a newline only if it is (or begins
    /// with, for CR LF) one of LF, VT, FF, CR, NEL, U+2028 and U+2029, whose UTF-8 starts with 0A-0D, C2 or E2. Text
    /// without those bytes needs no walk by characters (a run of 2,000 errors spent 8 % of its CPU walking their
    /// one-line messages by characters, for the JUnit file and the recap).
    static func mayBreakLines(_ text: String) -> Bool {
        let mayStartANewline = { (byte: UInt8) in (0x0A...0x0D).contains(byte) || byte == 0xC2 || byte == 0xE2 }
        // In place where the bytes are contiguous (a native string's are): byte by byte through the view, this test
        // was 1.2 % of a run of 2,000 drifts.
        return text.utf8.withContiguousStorageIfAvailable { $0.contains(where: mayStartANewline) }
            ?? text.utf8.contains(where: mayStartANewline)
    }

    // MARK: Words about a result

    /// The status word of an outcome: `PASS`, `DRIFT`, `ERROR`, `SKIP`.
    static func statusWord(_ outcome: Outcome) -> String {
        switch outcome {
        case .passed: "PASS"
        case .drifted: "DRIFT"
        case .error: "ERROR"
        case .skipped: "SKIP"
        }
    }

    /// `Service.target`, as both reports name a contract (names are computed, never redacted; controls escaped).
    static func qualifiedName(_ contract: Contract) -> String {
        escapingControls("\(contract.service).\(contract.name)")
    }

    /// One line per finding, drifts first then notes (`note: ` in front), each `path: message`, cleaned; a drift the
    /// baseline records has `known: ` in front.
    static func findingLines(_ result: ContractResult, redactor: Redactor) -> [String] {
        let drifts = result.findings.filter(\.isDrift).map { finding in
            (result.knownDrifts.contains(finding) ? "known: " : "") + clean(finding.description, redactor: redactor)
        }
        return drifts + noteLines(result, redactor: redactor)
    }

    /// The notes alone, as `findingLines` prints them.
    static func noteLines(_ result: ContractResult, redactor: Redactor) -> [String] {
        // Each finding read where it is: a filtered copy of them was a copy of every string of each note.
        var lines: [String] = []
        for index in result.findings.indices where !result.findings[index].isDrift {
            lines.append("note: " + clean(result.findings[index].description, redactor: redactor))
        }
        return lines
    }

    /// A drifted result in one line: `1 drift: status: expected 200, got 404`, or
    /// `3 drifts, first: $.id: expected number, got string "7"`.
    static func driftSummary(_ result: ContractResult, redactor: Redactor) -> String {
        let drifts = result.findings.filter(\.isDrift)
        guard let first = drifts.first else { return "drifted (no drift recorded)" }
        let headline = firstLine(clean(first.description, redactor: redactor))
        return drifts.count == 1 ? "1 drift: \(headline)" : "\(drifts.count) drifts, first: \(headline)"
    }

    /// A result in one line for the recap after the closing counts: a drift's first finding (`$.id: expected
    /// integer, got string "7" (and 2 more drifts)`), an error's reason; `nil` for a pass or a skip.
    /// (The redactor is asked for only for a drift or an error.)
    static func recapSummary(_ result: ContractResult, redactor: @autoclosure () -> Redactor) -> String? {
        switch result.outcome {
        case .drifted:
            let drifts = result.findings.filter(\.isDrift)
            guard let first = drifts.first else { return "drifted (no drift recorded)" }
            let headline = firstLine(clean(first.description, redactor: redactor()))
            let more = drifts.count - 1
            return more == 0 ? headline : headline + " (and \(more) more drift\(more == 1 ? "" : "s"))"
        case .error:
            return reason(result.outcome, redactor: redactor()).map(firstLine)
        case .passed, .skipped:
            return nil
        }
    }

    /// The results that need a look, most useful first: drifts (in contract order), then errors. Annotations,
    /// diagnostics and the Markdown summary list them in this order, so GitHub's first 10 annotations are the drifts.
    static func problems(_ report: RunReport) -> [ContractResult] {
        let drifts = report.results.filter { $0.outcome == .drifted }
        let errors = report.results.filter { if case .error = $0.outcome { true } else { false } }
        return drifts + errors
    }

    /// The outcome as a lower-case word for tools (JSON lines): `passed`, `drifted`, `error`, `skipped`.
    static func outcomeName(_ outcome: Outcome) -> String {
        switch outcome {
        case .passed: "passed"
        case .drifted: "drifted"
        case .error: "error"
        case .skipped: "skipped"
        }
    }

    /// The request line, redacted: `GET http://127.0.0.1:8080/users?per_page=2`.
    static func requestLine(_ result: ContractResult, redactor: Redactor) -> String {
        clean(result.requestLine, redactor: redactor)
    }

    /// A step's line: `set-up createRecord: POST http://127.0.0.1:8080/records: 201  0.012s`, or with why it failed
    /// in place of the status (`expected 201, got 403`).
    static func stepLine(_ step: StepRecord, redactor: Redactor) -> String {
        let request = clean(StepCaptures.written("\(step.request.method) \(step.request.url)"), redactor: redactor)
        let outcome = step.failure.map { clean($0, redactor: redactor) } ?? (step.status.map(String.init) ?? "none")
        return "\(step.phase.label) \(step.name): \(request): \(outcome)  \(seconds(step.duration))s"
    }

    /// `live status: 404`, or `live status: none` when no response arrived.
    static func liveStatusLine(_ result: ContractResult) -> String {
        "live status: " + (result.liveStatusCode.map(String.init) ?? "none")
    }

    /// The reason of an error or a skip, cleaned; `nil` for other outcomes.
    static func reason(_ outcome: Outcome, redactor: Redactor) -> String? {
        switch outcome {
        case .error(let message), .skipped(let message): clean(message, redactor: redactor)
        case .passed, .drifted: nil
        }
    }

    /// The closing counts: `N passed, N failed, N errors, N skipped` (failed = drifted; `1 error`, one word agrees
    /// with its count; `passed`, `failed` and `skipped` read the same for any count). `merge-reports` recognises
    /// this exact form in a suite's `<system-out>`, so it never carries more.
    static func totalsLine(_ results: [ContractResult]) -> String { totalsLine(OutcomeCounts(results)) }

    /// `totalsLine` of results counted already.
    static func totalsLine(_ counts: OutcomeCounts) -> String {
        let errors = counts.errors == 1 ? "1 error" : "\(counts.errors) errors"
        return "\(counts.passed) passed, \(counts.drifted) failed, \(errors), \(counts.skipped) skipped"
    }

    /// What does not fail the gate and what passed only after a retry, for after the console's counts:
    /// ` (1 known drift, 2 pending, 1 flaky)`; empty when there is none.
    static func gateTotals(_ results: [ContractResult]) -> String { gateTotals(OutcomeCounts(results)) }

    /// `gateTotals` of results counted already.
    static func gateTotals(_ counts: OutcomeCounts) -> String {
        let parts = [
            counts.knownDrifted == 0
                ? nil : counts.knownDrifted == 1 ? "1 known drift" : "\(counts.knownDrifted) known drifts",
            counts.pending == 0 ? nil : "\(counts.pending) pending",
            counts.flaky == 0 ? nil : "\(counts.flaky) flaky",
        ].compactMap { $0 }
        return parts.isEmpty ? "" : " (" + parts.joined(separator: ", ") + ")"
    }

    /// What the gate and the retries say about one result, in the words every report uses (empty for a plain
    /// result): `flaky: passed on attempt 3 of 3`, `3 attempts`, `known drift: in the baseline`, `pending: does not
    /// fail the gate until it has passed once`.
    static func marks(_ result: ContractResult) -> [String] {
        var marks: [String] = []
        if result.isFlaky {
            marks.append("flaky: passed on attempt \(result.attempts) of \(result.attempts)")
        } else if result.attempts > 1 {
            marks.append("\(result.attempts) attempts")
        }
        if result.isKnownDrift {
            marks.append("known drift: in the baseline")
        } else if result.outcome == .drifted && !result.knownDrifts.isEmpty {
            let drifts = result.findings.filter(\.isDrift).count
            marks.append("\(result.knownDrifts.count) of \(drifts) drifts known, the others are new")
        }
        if result.isPending {
            marks.append(
                result.outcome == .passed
                    ? "pending: passed (--update-baseline remembers it)"
                    : "pending: does not fail the gate until it has passed once")
        }
        return marks
    }

    /// `GitHub.user $.id: expected integer`: a baseline drift that is gone.
    static func fixedLine(_ fixed: FixedDrift, redactor: Redactor) -> String {
        escapingControls("\(fixed.service).\(fixed.target) ")
            + clean("\(fixed.drift.path): \(fixed.drift.rule)", redactor: redactor)
    }

    // MARK: Computed values

    /// Seconds with exactly three decimals (`0.120`), never negative, never an exponent, `0.000` for NaN or infinity.
    static func seconds(_ value: Double) -> String {
        String(unsafeUninitializedCapacity: maximumSecondsLength) { writeSeconds(value, into: $0) }
    }

    /// The most bytes `seconds` writes: 16 digits and the point.
    static let maximumSecondsLength = 17

    /// `seconds(value)`'s bytes written at the start of `buffer` (at least `maximumSecondsLength` bytes); returns
    /// how many.
    static func writeSeconds(_ value: Double, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var milliseconds = value.isFinite && value > 0 ? (value * 1000).rounded() : 0
        if milliseconds >= 9e15 { milliseconds = 0 }
        // Digits written backwards into the string's own buffer, then turned around: two strings and three joins
        // were 1,200 instructions, and every result's time is spelled twice (console and report).
        var remaining = UInt64(milliseconds)  // below 9e15: at most 16 digits and the point
        var count = 0
        repeat {
            if count == 3 {
                buffer[count] = UInt8(ascii: ".")
                count += 1
            }
            buffer[count] = UInt8(ascii: "0") + UInt8(remaining % 10)
            remaining /= 10
            count += 1
        } while remaining > 0 || count <= 4
        var (low, high) = (0, count - 1)
        while low < high {
            buffer.swapAt(low, high)
            (low, high) = (low + 1, high - 1)
        }
        return count
    }

    /// `yyyy-MM-ddTHH:mm:ss` in UTC, without zone (the Ant JUnit schema allows none).
    ///
    /// Computed from the whole seconds of the date with integer arithmetic (days to a proleptic Gregorian date,
    /// Howard Hinnant's `civil_from_days`): setting up a `Calendar` and its `TimeZone` was 2.1 M of the 30 M
    /// instructions of a one-contract run (~0.5 ms), more than the rest of the JUnit report. Before 1601 Foundation's Gregorian calendar switches to the Julian one
    /// (and to eras), so those dates still go through `Calendar`, as does a date that is not finite.
    static func timestamp(_ date: Date) -> String {
        // From 2001 as `Date` holds it (and `Calendar` reads it): adding 1970's offset first would round a date a
        // nanosecond before a whole second up to that second.
        let interval = date.timeIntervalSinceReferenceDate.rounded(.down)
        guard interval >= gregorianFrom, interval < gregorianUntil else { return calendarTimestamp(date) }
        let seconds = Int64(interval) + 978_307_200
        let (days, secondOfDay) = (seconds.floorDivided(by: 86_400), seconds.floorModulo(86_400))
        // civil_from_days: March-based years of 400-year eras, so a leap day ends its year.
        let shifted = days + 719_468
        let era = shifted.floorDivided(by: 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return timestampText(
            year: Int(year), month: Int(month), day: Int(day), hour: Int(secondOfDay / 3600),
            minute: Int(secondOfDay % 3600 / 60), second: Int(secondOfDay % 60))
    }

    /// 1601-01-01T00:00:00Z and 10000-01-01T00:00:00Z in seconds since 2001: where `timestamp` computes the date
    /// itself (a four-digit Gregorian year).
    private static let (gregorianFrom, gregorianUntil): (Double, Double) = (-12_622_780_800, 252_423_993_600)

    /// `timestamp` through Foundation's Gregorian calendar in UTC, for the dates outside the computed range.
    static func calendarTimestamp(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return timestampText(
            year: parts.year ?? 1970, month: parts.month ?? 0, day: parts.day ?? 0, hour: parts.hour ?? 0,
            minute: parts.minute ?? 0, second: parts.second ?? 0)
    }

    /// `yyyy-MM-ddTHH:mm:ss`, the year padded to four digits.
    private static func timestampText(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int)
        -> String
    {
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let yearText = String(year)
        let paddedYear = String(repeating: "0", count: max(0, 4 - yearText.count)) + yearText
        return "\(paddedYear)-\(two(month))-\(two(day))T\(two(hour)):\(two(minute)):" + two(second)
    }
}

extension Int64 {
    /// `self / divisor` rounded towards minus infinity (`divisor` > 0).
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return self % divisor < 0 ? quotient - 1 : quotient
    }

    /// `self` modulo `divisor`, in `0..<divisor` (`divisor` > 0).
    fileprivate func floorModulo(_ divisor: Int64) -> Int64 {
        let remainder = self % divisor
        return remainder < 0 ? remainder + divisor : remainder
    }
}
