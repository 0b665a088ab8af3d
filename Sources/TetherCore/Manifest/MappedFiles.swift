#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// A large manifest's bytes, mapped from its file instead of copied into the process (Linux).
///
/// A manifest's inline stubs stay slices of its bytes for the whole run (`JSONStub`), so a copy of a 120 MB manifest
/// of 100,000 targets lived beside the contracts made from it until the process ended. Mapped, its pages are the
/// kernel's page cache: the loader and the run hand back the pages they have read (`releaseReadPages()`, every few
/// megabytes or thousand targets), and a stub's page is read again from the cache when its response is checked: such
/// a run's peak no longer holds the manifest (bench/HISTORY.md).
///
/// Only a regular file of `mappingThreshold` bytes or more is mapped; smaller ones, pipes and other systems read as
/// before. As with git's packs and ripgrep's mapped files, a mapped manifest must not be rewritten in place while a
/// run reads it (cut short, it would stop the process with SIGBUS); a new file renamed into its place is safe.
package enum MappedFiles {
    /// The size from which a manifest is mapped: below it, the copy costs little memory.
    package static let mappingThreshold = 32 << 20

    private static let regions = Regions()

    /// The file's bytes: mapped when it is a regular file of `threshold` bytes or more (Linux), read otherwise.
    /// `nil` when the file cannot be read, as `FileManager.contents(atPath:)`.
    package static func contents(atPath path: String, mappingFrom threshold: Int = mappingThreshold) -> Data? {
        #if canImport(Glibc)
            switch open(path, threshold: threshold) {
            case .bytes(let data): return data
            case .unreadable: return nil
            case .notRegular: break
            }
        #endif
        return FileManager.default.contents(atPath: path)
    }

    /// How many bytes a pass over a manifest reads between two releases of its pages.
    package static let bytesBetweenReleases = 8 << 20
    /// How many targets (about 2 MB of 1 KB stubs) a loop over them reads between two releases of their pages.
    package static let targetsBetweenReleases = 2048

    /// Hands the pages of every mapped file back to the page cache; the next read of a byte maps its page again, with
    /// the file's bytes. Cheap when nothing is mapped (a lock and an empty list), so callers call it unconditionally.
    package static func releaseReadPages() { regions.releaseAll() }

    /// `releaseReadPages()` once a pass over a manifest's bytes reaches `offset` at or past `due` (start it at
    /// `every` bytes), which then moves `every` bytes on (`bytesBetweenReleases` unless said otherwise).
    package static func releaseReadPages(reaching offset: Int, due: inout Int, every: Int = bytesBetweenReleases) {
        guard offset >= due else { return }
        due = offset + every
        releaseReadPages()
    }

    /// `releaseReadPages()` after every `targetsBetweenReleases`-th target of a loop, `index` counting from 0.
    package static func releaseReadPages(afterTarget index: Int) {
        if index % targetsBetweenReleases == targetsBetweenReleases - 1 { releaseReadPages() }
    }

    /// Hands the free pages of every heap back to the system (glibc's `malloc_trim`; nothing elsewhere): for after a
    /// long manifest is read in two halves (`JSONReader.tailBytes`). glibc gives the second half's thread a heap of
    /// its own, which the threads after it take over with free pages amid their values: 11 MiB more at the peak of a
    /// 100,000-target run (121 against 132 MB), and none with the pages handed back after the read.
    package static func releaseFreeHeapPages() {
        #if canImport(Glibc)
            _ = trimHeaps?(0)
        #endif
    }

    #if canImport(Glibc)
        /// glibc's `malloc_trim`, found by name (Swift's Glibc module leaves `malloc.h` out); `nil` on another C library.
        private static let trimHeaps: (@convention(c) (Int) -> Int32)? = dlsym(nil, "malloc_trim").map {
            unsafeBitCast($0, to: (@convention(c) (Int) -> Int32).self)
        }
    #endif

    /// How many files are mapped now.
    package static var mappedCount: Int { regions.count }

    #if canImport(Glibc)
        private enum Opened {
            case bytes(Data)
            case unreadable
            /// Not a regular file (a folder, a pipe): read as Foundation reads it.
            case notRegular
        }

        /// A regular file's bytes: mapped from `threshold` bytes on, else read from the descriptor already open (not
        /// opened again through `FileManager.default`, whose set-up was 0.07 ms of a one-contract run).
        private static func open(_ path: String, threshold: Int) -> Opened {
            let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return .unreadable }
            defer { close(descriptor) }
            var info = stat()
            guard fstat(descriptor, &info) == 0 else { return .unreadable }
            guard info.st_mode & S_IFMT == S_IFREG else { return .notRegular }
            let size = Int(info.st_size)
            if size >= threshold, size > 0, let mapped = map(descriptor, count: size) { return .bytes(mapped) }
            return read(descriptor, expecting: size).map(Opened.bytes) ?? .unreadable
        }

        /// Every byte up to the end of the file (which may have grown since its size was read), read into memory
        /// that is not zeroed first, with one byte more than the size: a file that has not grown ends with a read of
        /// 0 there. (A buffer of the exact size was zeroed, then grown by its own size, zeroed too, for that read.)
        private static func read(_ descriptor: Int32, expecting size: Int) -> Data? {
            var capacity = max(size, 0) + 1
            guard var buffer = malloc(capacity) else { return nil }
            var total = 0
            while true {
                if total == capacity {
                    capacity += max(4096, capacity)
                    guard let grown = realloc(buffer, capacity) else {
                        free(buffer)
                        return nil
                    }
                    buffer = grown
                }
                let count = Glibc.read(descriptor, buffer + total, capacity - total)
                if count < 0 {
                    if errno == EINTR { continue }
                    free(buffer)
                    return nil
                }
                if count == 0 { break }
                total += count
            }
            return Data(bytesNoCopy: buffer, count: total, deallocator: .free)
        }

        private static func map(_ descriptor: Int32, count: Int) -> Data? {
            guard let address = mmap(nil, count, PROT_READ, MAP_PRIVATE, descriptor, 0),
                address != UnsafeMutableRawPointer(bitPattern: -1)
            else { return nil }
            regions.add(address, count)
            return Data(
                bytesNoCopy: address, count: count,
                deallocator: .custom { address, count in
                    regions.remove(address)
                    munmap(address, count)
                })
        }
    #endif

    /// The mapped regions, so that their pages can be released from anywhere (the loader, the run).
    private final class Regions: @unchecked Sendable {
        private let lock = Lock()
        private var mapped: [(address: UnsafeMutableRawPointer, count: Int)] = []  // guarded by `lock`

        var count: Int {
            lock.lock()
            defer { lock.unlock() }
            return mapped.count
        }

        func add(_ address: UnsafeMutableRawPointer, _ count: Int) {
            lock.lock()
            defer { lock.unlock() }
            mapped.append((address, count))
        }

        /// Called before the region is unmapped: a release never reaches an address that is no longer this file's.
        func remove(_ address: UnsafeMutableRawPointer) {
            lock.lock()
            defer { lock.unlock() }
            mapped.removeAll { $0.address == address }
        }

        func releaseAll() {
            lock.lock()
            defer { lock.unlock() }
            #if canImport(Glibc)
                // Read-only private mappings: nothing was written, so each page comes back from the file.
                for region in mapped { _ = madvise(region.address, region.count, MADV_DONTNEED) }
            #endif
        }
    }
}
