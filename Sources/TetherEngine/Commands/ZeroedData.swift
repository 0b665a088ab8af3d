internal import CSimdJSON

#if canImport(Glibc)
    import Glibc
#endif

/// The executable's zero-initialized data (`.bss`: the Swift runtime's once tokens and metadata caches among it),
/// given pages of its own early in `main`.
///
/// A page of it that is read before it is written maps the kernel's shared zero page; its first write then swaps in
/// a page of its own, and while another thread of the process runs on another core, every such swap interrupts that
/// core to drop the old mapping from its TLB. On a virtual machine that interrupt is dear: a run of one contract made
/// 12 of them while libcurl's set-up ran on the other core, together 0.3-0.5 ms of its 7-10 ms (bench/HISTORY.md,
/// 2026-12-06). `MADV_POPULATE_WRITE` (`tj_buffer_populate`) gives every page of the range its own in one call:
/// 128 pages here, half a megabyte, 0.16 ms. A page that was never mapped needs no interrupt, and by `main` every
/// page read so far has been written too (a once token is read, then set), so the call may come just after
/// libcurl's set-up thread starts, which then does not wait for it.
package enum ZeroedData {
    /// Gives each page of the executable's `.bss` a page of its own. Call it early in `main` (above: where).
    /// - Returns: The length of the `.bss` (`__bss_start` to `_end`; every page those bytes touch is populated),
    ///   `nil` where that cannot be done (not Linux with glibc, the symbols not exported, a kernel before 5.14).
    @discardableResult
    package static func populate() -> Int? {
        #if canImport(Glibc)
            guard let start = dlsym(nil, "__bss_start"), let end = dlsym(nil, "_end"), end > start else { return nil }
            let length = start.distance(to: end)
            guard tj_buffer_populate(start.assumingMemoryBound(to: UInt8.self), length) != 0 else { return nil }
            return length
        #else
            return nil
        #endif
    }
}
