import Foundation

/// Runs blocking work (a `CurlTransport.send` that waits on slow servers, a `TetherBinary.run`) on a thread of its
/// own, so that it never holds one of the cooperative pool's threads.
///
/// On a 2-core machine the pool has two threads. Synchronous tests that block for seconds occupy both, and then an
/// async test's `await` resumes only when one comes free: its own clock then measures the neighbours, not itself
/// (that made `hangTimesOut` see 8.4 s, and up to 30 s, for curl's 2 s `--max-time`).
func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            do {
                continuation.resume(returning: try work())
            } catch {
                continuation.resume(throwing: error)
            }
        }
        thread.name = "offPool"
        thread.start()
    }
}

/// At most `count` holders at a time: heavy tests (each with its own nginx and a slow upstream) take turns instead
/// of all starting at once on a small machine.
actor Slots {
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(_ count: Int) { free = count }

    /// Runs `body` once a slot is free, and frees it after, whatever `body` does.
    func run<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func release() {
        if waiting.isEmpty {
            free += 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
