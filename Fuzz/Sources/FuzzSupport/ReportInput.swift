import Foundation
@_spi(Testing) import TetherKit

// The input of the report fuzzers (`reports`: the JUnit file; `console`): fields separated by the byte 0x1F (ASCII
// unit separator), read in turn as the run's hostname, then per result a control field (outcome, finding count,
// duration, status) and texts: service, target name, request URL, authorization header, source, finding paths and
// messages, the error or skip reason, the live URL. Every text can hold anything: controls, invalid UTF-8 (decoded as
// U+FFFD), XML markup, `]]>`, very long lines. Both fuzzers read the same inputs, so their seeds are alike.

/// The run an input describes, at most 4 results: every part of a report is written per result or per suite, and 4
/// results make up to 4 suites in any interleaving. With 32, an input cost the `reports` fuzzer up to eight times the
/// work for no path the first 4 do not reach (coverage the same in 20 s runs), and it fell under 1,000 executions a
/// second.
public func runReport(fromFields data: Data) -> RunReport {
    data.withUnsafeBytes { raw in
        var reader = FieldReader(bytes: raw.bindMemory(to: UInt8.self), fields: fieldRanges(raw, separator: 0x1F))
        return reader.report()
    }
}

/// Reads the input's fields in turn; past the end every field is empty.
struct FieldReader {
    let bytes: UnsafeBufferPointer<UInt8>
    let fields: [Range<Int>]
    var next = 0

    /// The next field's bytes (valid while the input is).
    mutating func data() -> UnsafeBufferPointer<UInt8> {
        defer { next += 1 }
        return next < fields.count
            ? UnsafeBufferPointer(rebasing: bytes[fields[next]]) : UnsafeBufferPointer(start: nil, count: 0)
    }

    mutating func text() -> String { String(decoding: data(), as: UTF8.self) }

    var isAtEnd: Bool { next >= fields.count }

    mutating func report() -> RunReport {
        let hostname = text()
        var results: [ContractResult] = []
        while !isAtEnd && results.count < 4 {
            results.append(result())
        }
        // The run's secrets are its contracts' secrets, as `ContractRunner` collects them.
        return RunReport(
            results: results, startedAt: Date(timeIntervalSince1970: 1_700_000_000), duration: 1.5,
            hostname: hostname, secrets: Array(Set(results.flatMap(\.contract.secrets))).sorted())
    }

    mutating func result() -> ContractResult {
        let control = [UInt8](data())
        func byte(_ index: Int) -> UInt8 { index < control.count ? control[index] : 0 }
        let service = text()
        let name = text()
        let url = text()
        let authorization = text()
        let source = text()
        let contract = Contract(
            service: service, name: name, baseURL: url,
            request: HTTPRequest(
                method: byte(1) % 2 == 0 ? "GET" : text(), url: url,
                headers: authorization.isEmpty ? [] : [HTTPHeader("Authorization", authorization)]),
            sampleData: .none, source: source, secrets: [authorization])
        var findings: [Finding] = []
        for index in 0..<Int(byte(2) % 6) {
            // Any rule, at any kind of place, with any names in it.
            let place = byte(13 + index)
            let location: Finding.Location =
                switch place % 5 {
                case 0: .status
                case 1: .header(text())
                case 2: .body
                case 3: .json(JSONLocation([.key(text()), .index(Int(place)), .key(text())]))
                default: .xml(XMLLocation(steps: [.init(name: text(), position: Int(place % 3))], attribute: text()))
                }
            let rule = Finding.Rule.allCases[Int(place) % Finding.Rule.allCases.count]
            findings.append(
                Finding(
                    byte(3) &>> UInt8(index % 8) & 1 == 0 ? .drift : .note, rule, at: location, text(),
                    expected: place % 2 == 0 ? text() : nil))
        }
        let outcome: Outcome =
            switch byte(0) % 4 {
            case 0: .passed
            case 1: .drifted
            case 2: .error(text())
            default: .skipped(text())
            }
        var duration = Double(byte(4)) / 7
        if control.count >= 13 {
            // Any bit pattern: NaN, infinities, negative zero, subnormals.
            duration = Double(bitPattern: control[5..<13].reduce(0) { $0 &<< 8 | UInt64($1) })
        }
        return ContractResult(
            contract: contract, outcome: outcome, findings: findings,
            liveStatusCode: byte(1) % 3 == 0 ? nil : Int(byte(1)) * 4, liveURL: byte(1) % 5 == 0 ? nil : text(),
            duration: duration)
    }
}

/// The redactors of the last few inputs, by their secrets: most inputs of the report fuzzers share their secrets with
/// a recent one (about two in three), and making a redactor (every form of every secret) was a sixth of their time.
/// The same secrets make the same redactor, so a kept one redacts exactly as a new one would.
public enum RedactorCache {
    nonisolated(unsafe) private static var kept: [(secrets: [String], redactor: Redactor)] = []
    private static let capacity = 16

    /// The redactor for `report`: `Redactor(report:)`, or the one made for the same secrets lately.
    public static func redactor(for report: RunReport) -> Redactor {
        let secrets = Redactor.secrets(of: report)
        if let index = kept.firstIndex(where: { $0.secrets == secrets }) {
            let found = kept.remove(at: index)
            kept.append(found)
            return found.redactor
        }
        let redactor = Redactor(secrets: secrets)
        kept.append((secrets, redactor))
        if kept.count > capacity { kept.removeFirst() }
        return redactor
    }
}
