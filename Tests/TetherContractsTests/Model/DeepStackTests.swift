import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `DeepStack`'s threads have its stack, whatever the platform's default (512 KB for a Darwin thread).
@Suite struct DeepStackTests {
    /// The stack size of the calling thread.
    private static func currentStackSize() -> Int {
        #if canImport(Darwin)
            return pthread_get_stacksize_np(pthread_self())
        #else
            // pthread_getattr_np is a GNU extension Swift's Glibc module does not import.
            typealias GetAttributes = @convention(c) (pthread_t, UnsafeMutablePointer<pthread_attr_t>) -> Int32
            guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "pthread_getattr_np") else { return 0 }
            var attributes = pthread_attr_t()
            guard unsafeBitCast(symbol, to: GetAttributes.self)(pthread_self(), &attributes) == 0 else { return 0 }
            defer { pthread_attr_destroy(&attributes) }
            var size = 0
            pthread_attr_getstacksize(&attributes, &size)
            return size
        #endif
    }

    @Test func aStartedThreadHasTheDeepStack() async {
        let size = await withCheckedContinuation { continuation in
            DeepStack.start(name: "deep-stack-test") { continuation.resume(returning: Self.currentStackSize()) }
        }
        #expect(size >= DeepStack.size, "\(size) bytes")
    }

    #if canImport(Glibc)
        /// A thread started away from its caller may run on every core the caller may but one: the caller's, when
        /// the process has two or more; on one core, on that one.
        @Test func aThreadStartedAwayFromTheCallerHasOneCoreFewer() async throws {
            let caller = try #require(DeepStack.CoreAffinity.allowed())
            let started = await withCheckedContinuation { continuation in
                DeepStack.start(name: "deep-stack-test", placement: .awayFromCaller) {
                    continuation.resume(returning: DeepStack.CoreAffinity.allowed())
                }
            }
            let thread = try #require(started)
            let cores = { (words: [UInt64]) in words.reduce(0) { $0 + $1.nonzeroBitCount } }
            let expected = cores(caller) > 1 ? cores(caller) - 1 : cores(caller)
            #expect(cores(thread) == expected, "caller \(caller.prefix(2)), thread \(thread.prefix(2))")
            #expect(zip(thread, caller).allSatisfy { $0 & ~$1 == 0 }, "only cores the caller may use")
            let plain = await withCheckedContinuation { continuation in
                DeepStack.start(name: "deep-stack-test") {
                    continuation.resume(returning: DeepStack.CoreAffinity.allowed())
                }
            }
            #expect(plain == caller, "a thread started as usual may run where its caller may")
        }
    #endif

    #if canImport(Glibc)
        /// With `coreEach`, each of `concurrentPerform`'s threads stays on a core of its own, among the first cores
        /// the caller may use (the transport's loops); without it, a thread may run wherever the caller may.
        @Test func concurrentPerformKeepsEachThreadOnACoreOfItsOwnWhenAsked() throws {
            let caller = try #require(DeepStack.CoreAffinity.allowed())
            let cores = { (words: [UInt64]) in words.reduce(0) { $0 + $1.nonzeroBitCount } }
            let threads = min(64, ProcessEnvironment.activeProcessorCount)  // as many as `concurrentPerform` starts
            for coreEach in [true, false] {
                let arrived = NSCondition()
                var kept: [UInt: [UInt64]] = [:]  // each thread's cores, by thread
                DeepStack.concurrentPerform(name: "deep-stack-test", iterations: 64, coreEach: coreEach) { _ in
                    let allowed = DeepStack.CoreAffinity.allowed() ?? []
                    arrived.lock()
                    defer { arrived.unlock() }
                    kept[UInt(pthread_self())] = allowed
                    arrived.broadcast()
                    // Each thread waits for the others' first call (for 10 s at most), so that every one takes a share.
                    let deadline = Date(timeIntervalSinceNow: 10)
                    while kept.count < threads && arrived.wait(until: deadline) {}
                }
                #expect(kept.count == threads, "coreEach \(coreEach): \(kept.count) threads")
                guard coreEach else {
                    #expect(kept.values.allSatisfy { $0 == caller }, "where the caller may run")
                    continue
                }
                guard cores(caller) >= threads else { continue }  // fewer cores than threads: only the first kept
                #expect(kept.values.allSatisfy { cores($0) == 1 }, "one core each: \(kept.values.map { $0.prefix(1) })")
                #expect(Set(kept.values).count == kept.count, "no two threads on one core")
                var first = [UInt64](repeating: 0, count: caller.count)  // the caller's first `threads` cores
                var left = threads
                for bit in 0..<caller.count * 64 where left > 0 && caller[bit / 64] & (1 << UInt64(bit % 64)) != 0 {
                    first[bit / 64] |= 1 << UInt64(bit % 64)
                    left -= 1
                }
                let union = kept.values.reduce(into: [UInt64](repeating: 0, count: caller.count)) { union, words in
                    for index in words.indices { union[index] |= words[index] }
                }
                #expect(union == first, "the caller's first \(threads) cores")
            }
        }
    #endif

    @Test(arguments: [1, 2, 7, 64, 2_000])
    func concurrentPerformCallsEachIndexOnceOnDeepStacks(iterations: Int) {
        let caller = pthread_self()
        let seen = NSLock()
        var calls: [Int] = []
        var sizes: [Int] = []
        var onCaller = false
        DeepStack.concurrentPerform(name: "deep-stack-test", iterations: iterations) { index in
            let size = Self.currentStackSize()
            let isCaller = pthread_equal(pthread_self(), caller) != 0
            seen.withLock {
                calls.append(index)
                sizes.append(size)
                onCaller = onCaller || isCaller
            }
        }
        #expect(calls.sorted() == Array(0..<iterations))
        #expect(sizes.allSatisfy { $0 >= DeepStack.size }, "\(sizes)")
        #expect(!onCaller)
    }

    /// The indexes are handed out in runs, in order, each a share of what is left: a few dozen takes of the lock for
    /// thousands of short calls, single indexes at the end.
    @Test(arguments: [(1, 1), (2, 2), (7, 2), (64, 2), (2_000, 2), (2_000, 8), (100_000, 2)])
    func indexesComeInShrinkingRuns(count: Int, threads: Int) {
        let next = DeepStack.NextIndexes(count: count, threads: threads)
        var runs: [Range<Int>] = []
        while let run = next.take() { runs.append(run) }
        #expect(runs.first?.lowerBound == 0)
        #expect(runs.last?.upperBound == count)
        #expect(zip(runs, runs.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound }, "no gap, no overlap")
        #expect(runs.allSatisfy { !$0.isEmpty })
        #expect(runs.last?.count == 1, "the last run is one index")
        for run in runs {
            let left = count - run.lowerBound
            #expect(run.count == max(1, left / (2 * threads)), "run \(run) of \(left) left")
        }
        if count >= 2_000 { #expect(runs.count < 40 * threads, "\(runs.count) takes for \(count)") }
    }

    /// Each value lands at its index, whichever thread made it.
    @Test(arguments: [0, 1, 7, 2_000])
    func concurrentMapKeepsTheOrderOfIndexes(iterations: Int) {
        let values = DeepStack.concurrentMap(name: "deep-stack-test", iterations: iterations) { index in
            String(repeating: "x", count: index % 50) + String(index)
        }
        #expect(values == (0..<iterations).map { String(repeating: "x", count: $0 % 50) + String($0) })
    }

    /// Every thread the product starts for bodies and stubs comes from `DeepStack`: nothing else in Sources/ starts
    /// one (`Thread`, `detachNewThread`, `pthread_create`) or runs work on Dispatch's threads (`concurrentPerform`).
    /// The CLI's signal thread only waits for signals.
    @Test func noOtherThreadIsStartedInSources() throws {
        var sources = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { sources.deleteLastPathComponent() }
        sources.appendPathComponent("Sources")
        let allowed: Set<String> = ["DeepStack.swift", "StopSignals.swift"]
        let walk = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
        var found: [String] = []
        var files = 0
        while let url = walk?.nextObject() as? URL {
            guard url.pathExtension == "swift" else { continue }
            files += 1
            guard !allowed.contains(url.lastPathComponent) else { continue }
            let text = try String(contentsOf: url, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.firstRange(of: "//").map { line[..<$0.lowerBound] } ?? line[...]
                for call in ["Thread {", "Thread(", "detachNewThread", "concurrentPerform(", "pthread_create"]
                where code.contains(call) && !code.contains("DeepStack.") {
                    found.append("\(url.lastPathComponent):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        #expect(files > 50)
        #expect(found.isEmpty, "start threads for bodies with DeepStack:\n\(found.joined(separator: "\n"))")
    }
}
