import Dispatch

#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Threads whose stack holds the deepest document Tether accepts (1,024 nested arrays and objects), for the work that
/// parses or walks bodies and stubs.
///
/// Reading a stub into its shape recurses once per level, and a thread's default stack is 512 KB on Darwin (its main
/// thread's is 8 MB; Linux gives every thread 8 MB): a 1,024-deep stub checked on such a thread overflowed it
/// (`tether verify --fail-fast` checks on the transport's threads). Every thread the product starts for this work is
/// started here, with `size` bytes of stack; what ran on Dispatch's worker threads (`concurrentPerform`), whose stack
/// is the platform's, runs on these instead.
package enum DeepStack {
    /// 16 MB. A debug build needs 2 to 4 MB to check a stub and a body 1,024 levels deep (measured on Linux with
    /// every thread's default stack set to 1, 2 and 4 MB: `tether verify --fail-fast` on 600 such targets crashed
    /// below 4 MB); a release build less. Only the pages a thread touches are ever backed by memory.
    package static let size = 16 << 20

    /// Where a thread may run, on Linux; elsewhere every thread goes where the system puts it.
    package enum Placement: Sendable, Equatable {
        /// Where the system puts it, on any core the process may use.
        case anywhere
        /// On every core the process may use but the one the caller is on, when there is another: for short work
        /// that runs beside the caller's (libcurl's set-up), which the kernel placed on the caller's own busy core in
        /// three of four traced runs, where it waited.
        case awayFromCaller
        /// On the `core`-th of the cores the process may use (counting from 0) and no other, when it may use `core + 1`
        /// or more; else anywhere (see `concurrentPerform`'s `coreEach`).
        case core(Int)
    }

    /// Starts `body` on a new thread called `name` (its first 15 bytes, as the system keeps them), with `size` bytes
    /// of stack, placed as `placement` says. A POSIX thread, not Foundation's `Thread`: on Linux that is
    /// swift-corelibs-foundation's (see `Lock`).
    package static func start(
        name: String, placement: Placement = .anywhere, _ body: @escaping @Sendable () -> Void
    ) {
        let context = Unmanaged.passRetained(Start(name: String(decoding: name.utf8.prefix(15), as: UTF8.self), body))
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, size)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        #if canImport(Glibc)
            switch placement {
            case .anywhere: break
            case .awayFromCaller: CoreAffinity.awayFromCaller(&attributes)
            case .core(let core): CoreAffinity.only(core: core, &attributes)
            }
        #endif
        #if canImport(Darwin)
            var thread: pthread_t?
        #else
            var thread = pthread_t()
        #endif
        let started = pthread_create(
            &thread, &attributes,
            { context in
                let raw: UnsafeMutableRawPointer? = context  // optional on Linux, not on Darwin
                let start = Unmanaged<Start>.fromOpaque(raw!).takeRetainedValue()
                #if canImport(Darwin)
                    pthread_setname_np(start.name)
                #else
                    // What pthread_setname_np does, which Glibc's module leaves out (a GNU extension).
                    let comm = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
                    if comm >= 0 {
                        _ = start.name.withCString { write(comm, $0, strlen($0)) }
                        close(comm)
                    }
                #endif
                start.body()
                return nil
            }, context.toOpaque())
        guard started == 0 else {
            context.release()
            fatalError("tether: cannot start a thread (\(name)): \(String(cString: strerror(started)))")
        }
    }

    /// Work started on a thread of its own (`start(name:_:)`) whose end can be waited for: what runs ahead of where
    /// its result is needed (libcurl's set-up, a body's pages faulted in).
    package final class Background: @unchecked Sendable {
        private let condition = Condition()
        private var isDone = false  // guarded by `condition`

        /// Starts `work` on a new thread called `name`.
        package init(name: String, placement: Placement = .anywhere, _ work: @escaping @Sendable () -> Void) {
            DeepStack.start(name: name, placement: placement) { [self] in
                work()
                condition.lock()
                isDone = true
                condition.broadcast()
                condition.unlock()
            }
        }

        /// Returns once the work has returned.
        package func wait() {
            condition.lock()
            while !isDone { condition.wait() }
            condition.unlock()
        }
    }

    /// What a thread `start` makes runs, and its name.
    private final class Start {
        let name: String
        let body: @Sendable () -> Void
        init(name: String, _ body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }

    /// Calls `body` once with each of `0..<iterations`, in parallel on threads of `size` bytes of stack (at most one
    /// per core, each taking the next indexes), and returns when every call has: `DispatchQueue.concurrentPerform` on
    /// threads whose stack is known. None of the calls runs on the caller's thread, whose stack may be small.
    /// - Parameter coreEach: On Linux, each thread stays on a core of its own: the first on the first core the process
    ///   may use, and so on, as far as the process may use cores (a thread beyond them goes where the system puts
    ///   it). For loops that each keep a core busy beside a server on the same machine (`CurlTransport`'s, see there).
    ///   Elsewhere the threads go where the system puts them.
    package static func concurrentPerform(
        name: String, iterations: Int, coreEach: Bool = false, _ body: (Int) -> Void
    ) {
        guard iterations > 0 else { return }
        withoutActuallyEscaping(body) { body in
            // The threads reach `body` through an unretained reference: a thread's closure may outlive its last call
            // (it is released when the thread ends), and `body` must not (withoutActuallyEscaping checks it).
            let box = Body(body)
            let handle = UncheckedSendable(Unmanaged.passUnretained(box))  // used before `done.wait()` returns only
            let threads = min(iterations, max(1, ProcessEnvironment.activeProcessorCount))
            let next = NextIndexes(count: iterations, threads: threads)
            let done = DispatchGroup()
            for thread in 0..<threads {
                done.enter()
                start(name: name, placement: coreEach ? .core(thread) : .anywhere) {
                    while let indexes = next.take() {
                        for index in indexes { handle.value.takeUnretainedValue().call(index) }
                    }
                    done.leave()
                }
            }
            done.wait()
            withExtendedLifetime(box) {}
        }
    }

    /// `concurrentPerform` keeping what each call returns: the values in the order of their indexes.
    package static func concurrentMap<Value: Sendable>(name: String, iterations: Int, _ body: (Int) -> Value)
        -> [Value]
    {
        // Each call initializes its own element of the array, in place: no lock, no optional for each. Every element
        // is initialized when `concurrentPerform` returns (its wait orders the threads' writes before the return).
        [Value](unsafeUninitializedCapacity: iterations) { buffer, initialized in
            let elements = UncheckedSendable(buffer.baseAddress)
            concurrentPerform(name: name, iterations: iterations) { index in
                (elements.value.unsafelyUnwrapped + index).initialize(to: body(index))
            }
            initialized = iterations
        }
    }

    /// The body of a `concurrentPerform`, for the duration of the call.
    private final class Body {
        let call: (Int) -> Void
        init(_ call: @escaping (Int) -> Void) { self.call = call }
    }

    /// The indexes `0..<count`, each handed out once, in runs: each run a share of what is left (half of it over
    /// the threads), so that the lock is taken a few dozen times for thousands of short calls (the Swift API's 2,000
    /// targets converted on two cores: 27 takes, not 2,000), and the last runs are single indexes, so that no thread
    /// is left with a long run while another has nothing.
    final class NextIndexes: @unchecked Sendable {
        private let lock = Lock()
        private var next = 0
        private let count: Int
        private let shares: Int

        init(count: Int, threads: Int) {
            self.count = count
            shares = 2 * max(1, threads)
        }

        func take() -> Range<Int>? {
            lock.withLock {
                guard next < count else { return nil }
                let start = next
                next += max(1, (count - start) / shares)
                return start..<next
            }
        }
    }
}

#if canImport(Glibc)
    extension DeepStack {
        /// Which cores a thread may run on: GNU extensions, found by name (Swift's Glibc module leaves them out).
        enum CoreAffinity {
            private typealias SetAffinity =
                @convention(c) (UnsafeMutablePointer<pthread_attr_t>, Int, UnsafeRawPointer)
                -> Int32
            private typealias GetAffinity = @convention(c) (pid_t, Int, UnsafeMutableRawPointer) -> Int32
            private typealias CurrentCore = @convention(c) () -> Int32
            private static let functions: (set: SetAffinity, get: GetAffinity, current: CurrentCore)? = {
                guard let set = dlsym(nil, "pthread_attr_setaffinity_np"), let get = dlsym(nil, "sched_getaffinity"),
                    let current = dlsym(nil, "sched_getcpu")
                else { return nil }
                return (
                    unsafeBitCast(set, to: SetAffinity.self), unsafeBitCast(get, to: GetAffinity.self),
                    unsafeBitCast(current, to: CurrentCore.self)
                )
            }()
            /// A `cpu_set_t`: 1,024 bits.
            private static let setBytes = 128

            /// The cores the calling thread may run on, as a `cpu_set_t`'s words; `nil` when that cannot be asked.
            static func allowed() -> [UInt64]? {
                guard let functions else { return nil }
                var words = [UInt64](repeating: 0, count: setBytes / 8)
                let status = words.withUnsafeMutableBytes { functions.get(0, setBytes, $0.baseAddress!) }
                return status == 0 ? words : nil
            }

            /// Makes `attributes` start a thread on the `core`-th of the cores the caller may run on (counting from 0,
            /// in the cores' order) and no other, when it may run on that many; else leaves them as they are.
            static func only(core: Int, _ attributes: inout pthread_attr_t) {
                guard let functions, let allowed = allowed() else { return }
                var seen = 0
                for bit in 0..<setBytes * 8 where allowed[bit / 64] & (1 << UInt64(bit % 64)) != 0 {
                    if seen == core {
                        var words = [UInt64](repeating: 0, count: setBytes / 8)
                        words[bit / 64] = 1 << UInt64(bit % 64)
                        _ = words.withUnsafeBytes { functions.set(&attributes, setBytes, $0.baseAddress!) }
                        return
                    }
                    seen += 1
                }
            }

            /// Makes `attributes` start a thread on the cores the caller may run on but its current one, when there is
            /// another; else leaves them as they are.
            static func awayFromCaller(_ attributes: inout pthread_attr_t) {
                guard let functions, var words = allowed() else { return }
                let current = Int(functions.current())
                guard (0..<setBytes * 8).contains(current) else { return }
                words[current / 64] &= ~(1 << UInt64(current % 64))
                guard words.contains(where: { $0 != 0 }) else { return }
                _ = words.withUnsafeBytes { functions.set(&attributes, setBytes, $0.baseAddress!) }
            }
        }
    }
#endif
