import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

@Suite struct SimdJSONTests {
    @Test func oneParserReadsDocumentsOfAnySizeInTurn() throws {
        let parser = try JSONParser()
        let large = "[" + Array(repeating: #"{"a":[1,2.5,"x"]}"#, count: 10_000).joined(separator: ",") + "]"
        let value = try parser.parse(Data(large.utf8))
        guard case .array(let elements) = value else {
            Issue.record("expected an array")
            return
        }
        #expect(elements.count == 10_000)
        #expect(try parser.parse(Data(#"{"b":null}"#.utf8)) == .object([JSONMember("b", .null)]))
        #expect(throws: JSONParseError.self) { try parser.parse(Data("[1,".utf8)) }
        // A failed parse leaves the parser usable.
        #expect(try parser.parse(Data("[true]".utf8)) == .array([.bool(true)]))
    }

    @Test func keepsItsDepthLimit() throws {
        let parser = try JSONParser(maxDepth: 4)
        #expect(try parser.parse(Data("[[[1]]]".utf8)) == .array([.array([.array([.integer(1)])])]))
        do {
            _ = try parser.parse(Data("[[[[[1]]]]]".utf8))
            Issue.record("expected an error")
        } catch {
            #expect(error.description == "nested deeper than 4 levels around line 1, column 5")
        }
    }

    @Test func aKeptParserGivesTheSameFindings() throws {
        let shape = JSONShape(stub: try JSONValue.parse(Data(#"[{"id":1,"name":"x"}]"#.utf8)))
        let parser = try JSONParser()
        for live in [#"[{"id":1,"name":"y"},{"id":"2"}]"#, "", #"[{"id":1.5,"name":null}]"#, "[]"] {
            #expect(shape.findings(live: Data(live.utf8), parser: parser) == shape.findings(live: Data(live.utf8)))
        }
        #expect(
            renderedFindings(shape.findings(live: Data(#"[{"id":"2"}]"#.utf8), parser: parser)) == [
                #"drift $[0].id: expected integer, got string "2": change the property's type, or fix the stub"#,
                "drift $[0].name: missing key (stub has string): make the property optional, or fix the stub",
            ])
    }

    /// A body written into `PaddedBytes` (as the transport does) is parsed where it is; every answer is the one for
    /// the same bytes in an ordinary `Data`, which the parser copies into its own padded buffer.
    @Test func aPaddedBodyIsParsedInPlaceWithTheSameFindings() throws {
        let shape = JSONShape(stub: try JSONValue.parse(Data(#"[{"id":1,"name":"x","tags":["a"]}]"#.utf8)))
        let parser = try JSONParser()
        let texts = [
            #"[{"id":1,"name":"y","tags":["b"]},{"id":"2","extra":true}]"#, #"[{"id":1.5,"name":null}]"#, "[1,",
            "\u{FEFF}[{\"id\":1}]", "[\"x\", tru]", "  ", "", #"{"a":"#,
            "[" + Array(repeating: #"{"id":7,"name":"n","tags":[]}"#, count: 5000).joined(separator: ",") + "]",
        ]
        let notUTF8: [UInt8] = Array(#"[{"id":1,"name":""#.utf8) + [0xFF, 0xFE] + Array(#""}]"#.utf8)
        for bytes in texts.map({ Array($0.utf8) }) + [notUTF8] {
            let padded = PaddedBytes()
            // In pieces, as libcurl hands them over, so that the buffer grows in place.
            for start in stride(from: 0, to: bytes.count, by: 7) {
                let piece = bytes[start..<min(start + 7, bytes.count)]
                #expect(piece.withUnsafeBytes { padded.append($0) })
            }
            let live = padded.takeData()
            #expect(live == Data(bytes))
            let isPadded = live.withUnsafeBytes { raw in
                raw.baseAddress.map { PaddedBytes.hasPadding($0.assumingMemoryBound(to: UInt8.self), count: raw.count) }
            }
            // `Data` keeps up to 15 bytes inline (a copy; the buffer is freed at once): only longer bodies stay put.
            if bytes.count > 15 { #expect(isPadded == true) }
            let copy = Data(bytes)
            #expect(shape.findings(live: live, parser: parser) == shape.findings(live: copy, parser: parser))
            #expect(shape.findings(live: live, parser: parser) == shape.findings(live: copy))
        }
    }

    /// Only a whole `Data` from `PaddedBytes` is taken as padded: a copy or a slice that starts later is not.
    @Test func onlyTheBufferItselfCountsAsPadded() throws {
        let padded = PaddedBytes()
        let text = "[" + (1...100).map(String.init).joined(separator: ",") + "]"
        #expect(Data(text.utf8).withUnsafeBytes { padded.append($0) })
        let live = padded.takeData()
        let isPadded = { (data: Data) in
            data.withUnsafeBytes { raw in
                PaddedBytes.hasPadding(raw.baseAddress!.assumingMemoryBound(to: UInt8.self), count: raw.count)
            }
        }
        #expect(isPadded(live))
        #expect(isPadded(live.prefix(30)))
        #expect(!isPadded(live.dropFirst()))
        #expect(!isPadded(Data(Array(live))))
        #expect(padded.count == 0)
        #expect(try JSONParser().parse(live) == .array((1...100).map { .integer($0) }))
        // `Data` keeps up to 15 bytes inline, a copy: the buffer is freed at once and nothing is taken as padded.
        let small = PaddedBytes()
        #expect(Data("[1,2,3]".utf8).withUnsafeBytes { small.append($0) })
        #expect(!isPadded(small.takeData()))
    }

    /// A large announced body has its buffer's pages faulted in by another thread while it arrives; the body is
    /// written meanwhile, and arrives byte for byte: as announced, longer than announced (the buffer then grows, the
    /// thread stopped first), or not at all (the buffer dropped while the thread runs).
    @Test(arguments: [0, 1, 2]) func aLargeBodyArrivesWholeWhileItsPagesAreFaultedIn(case kind: Int) throws {
        let announced = PaddedBytes.prefaultBytes * 2 + 12_345
        let padded = PaddedBytes()
        #expect(padded.reserve(announced))
        guard kind != 2 else { return }  // dropped with the thread perhaps still running: deinit stops it first
        let length = kind == 0 ? announced : announced + 3 * (16 << 10) + 7
        var piece = [UInt8](repeating: 0, count: 16 << 10)
        var written = 0
        var sum: UInt64 = 0
        while written < length {  // as libcurl hands a body over: 16 kB at a time, a pattern that repeats rarely
            let count = min(piece.count, length - written)
            for index in 0..<count {
                piece[index] = UInt8(truncatingIfNeeded: ((written + index) &* 2_654_435_761) >> 7)
            }
            #expect(piece.withUnsafeBytes { padded.append(UnsafeRawBufferPointer(rebasing: $0[..<count])) })
            for byte in piece[..<count] { sum &+= UInt64(byte) }
            written += count
        }
        let live = padded.takeData()
        #expect(live.count == length)
        var liveSum: UInt64 = 0
        var isInOrder = true
        live.withUnsafeBytes { raw in
            for (index, byte) in raw.enumerated() {
                liveSum &+= UInt64(byte)
                if byte != UInt8(truncatingIfNeeded: (index &* 2_654_435_761) >> 7) { isInOrder = false }
            }
        }
        #expect(isInOrder)
        #expect(liveSum == sum)
    }

    /// On Linux 5.14 and later the faulting thread has made every page of a large reserved buffer resident before
    /// anything is written to it; a small buffer gets no thread.
    @Test func aLargeReservedBufferIsResidentBeforeItIsWritten() throws {
        let small = PaddedBytes()
        #expect(small.reserve(PaddedBytes.prefaultBytes - 1))
        #expect(!small.wasPrefaulted)
        #if os(Linux)
            guard KernelVersion.isAtLeast(5, 14) else { return }
            let padded = PaddedBytes()
            let size = PaddedBytes.prefaultBytes * 3
            #expect(padded.reserve(size))
            #expect(padded.wasPrefaulted)
            // A few bytes written (more than the 15 that `Data` keeps inline), so that the buffer itself is handed
            // over and its pages can be looked at.
            #expect([UInt8](repeating: UInt8(ascii: " "), count: 64).withUnsafeBytes { padded.append($0) })
            let live = padded.takeData()
            let page = Int(sysconf(Int32(_SC_PAGESIZE)))
            let resident = live.withUnsafeBytes { raw -> Int in
                let start = UInt(bitPattern: raw.baseAddress!)
                let first = start / UInt(page) * UInt(page)
                let pages = (Int(start - first) + size + page - 1) / page
                var flags = [UInt8](repeating: 0, count: pages)
                guard mincore(UnsafeMutableRawPointer(bitPattern: first), pages * page, &flags) == 0 else { return -1 }
                return flags.filter { $0 & 1 == 1 }.count
            }
            // Every page of the reservation (the last may hold only the padding past it).
            #expect(resident >= (size / page) - 1)
        #endif
    }
}
