import Foundation

// What the fuzz targets share: splitting one input into parts, a scratch folder, and the one way a target says an
// input broke a promise (a trap, which libFuzzer reports as a crash and saves the input for).

/// The bytes libFuzzer hands to `LLVMFuzzerTestOneInput`, as `Data` (copied: the pointer is valid only during the call).
public func fuzzData(_ bytes: UnsafePointer<UInt8>, _ size: Int) -> Data {
    Data(bytes: bytes, count: size)
}

/// The line that separates the parts of a multi-part input (manifest and sample file, stub and live body).
public let partSeparator = Data("\n=====\n".utf8)

/// `data` split at the first `partSeparator`: the part before it, and the rest (empty when there is no separator).
public func splitParts(_ data: Data) -> (first: Data, rest: Data) {
    guard let range = data.range(of: partSeparator) else { return (data, Data()) }
    return (data[data.startIndex..<range.lowerBound], data[range.upperBound...])
}

/// Where `bytes` is cut at every `separator` byte, empty fields kept: each field's range. On the raw bytes, with
/// `memchr`: `Data.split` walks a `Data` a byte at a time through its generic collection interface, a tenth of the
/// report fuzzers' time; and ranges, not a `Data` per field (two allocations each), which were a twentieth.
public func fieldRanges(_ bytes: UnsafeRawBufferPointer, separator: UInt8) -> [Range<Int>] {
    guard let base = bytes.baseAddress, bytes.count > 0 else { return [0..<0] }
    var fields: [Range<Int>] = []
    var start = 0
    while let found = memchr(base + start, Int32(separator), bytes.count - start) {
        let end = base.distance(to: UnsafeRawPointer(found))
        fields.append(start..<end)
        start = end + 1
    }
    fields.append(start..<bytes.count)
    return fields
}

/// A folder of this process's own under `TMPDIR` (scripts/fuzz points it at a run folder that it removes).
public let scratchFolder: String = {
    let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    let folder = (base as NSString).appendingPathComponent("tether-fuzz-\(getpid())")
    do {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    } catch {
        fatalError("fuzz: cannot create the scratch folder \(folder): \(error)")
    }
    return folder
}()

/// Writes `data` to `path` (created or truncated), or traps: the scratch folder is ours, so a failed write is the
/// harness's fault. `open`, `write` and `close`: Foundation's `createFile` resolves symbolic links and checks the
/// path before it writes, a sixth of the manifest fuzzer's time.
public func writeScratch(_ data: Data, to path: String) {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { fatalError("fuzz: cannot write \(path): \(String(cString: strerror(errno)))") }
    defer { close(descriptor) }
    data.withUnsafeBytes { raw in
        guard let base = raw.baseAddress else { return }  // nothing to write
        var written = 0
        while written < raw.count {
            let count = write(descriptor, base + written, raw.count - written)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { fatalError("fuzz: cannot write \(path): \(String(cString: strerror(errno)))") }
            written += count
        }
    }
}

/// Removes the file at `path` if there is one.
public func removeScratch(_ path: String) {
    unlink(path)
}

/// Stops the run with a crash that names the broken promise; libFuzzer saves the input as `crash-…`.
public func violated(_ promise: String, _ details: @autoclosure () -> String = "") -> Never {
    let text = details()
    fatalError("fuzz: violated: \(promise)" + (text.isEmpty ? "" : "\n" + text))
}

/// Runs `body(0)`, …, `body(iterations - 1)` at once, each on a thread of its own (`body(0)` on the caller's), and
/// returns when all are done: what `DispatchQueue.concurrentPerform` does, for `JSONShape.elementwiseFindings`.
///
/// Each thread is joined before this returns, so what it allocated is freed within the input. Dispatch keeps memory
/// from one call to the next (its threads, its per-thread caches), so an input that reads a body in parts ended with
/// more mallocs than frees; libFuzzer then ran the input again and LeakSanitizer over the whole heap, after nearly
/// every input that has a `{`: nine tenths of the structure fuzzer's time.
public func onThreads(_ iterations: Int, _ body: @Sendable (Int) -> Void) {
    withoutActuallyEscaping(body) { body in
        var threads: [pthread_t] = []
        for index in 1..<max(1, iterations) {
            if let thread = spawn(Job(index: index, body: body)) {
                threads.append(thread)
            } else {
                body(index)  // no thread to be had: the part runs here, and the findings are the same
            }
        }
        if iterations > 0 { body(0) }
        for thread in threads { pthread_join(thread, nil) }
    }
}

/// One call of `onThreads`'s body, handed to a new thread (which releases it).
private final class Job {
    let index: Int
    let body: @Sendable (Int) -> Void

    init(index: Int, body: @escaping @Sendable (Int) -> Void) {
        self.index = index
        self.body = body
    }

    func run() { body(index) }
}

/// A joinable thread running `job`, or `nil` when none can be made.
private func spawn(_ job: Job) -> pthread_t? {
    let context = Unmanaged.passRetained(job).toOpaque()
    #if canImport(Darwin)
        var thread: pthread_t?
        let started = pthread_create(
            &thread, nil,
            {
                Unmanaged<Job>.fromOpaque($0).takeRetainedValue().run()
                return nil
            }, context)
    #else
        var thread = pthread_t()
        let started = pthread_create(
            &thread, nil,
            { raw in
                if let raw { Unmanaged<Job>.fromOpaque(raw).takeRetainedValue().run() }
                return nil
            }, context)
    #endif
    guard started == 0 else {
        Unmanaged<Job>.fromOpaque(context).release()
        return nil
    }
    return thread
}
