import Testing

@testable import TetherEngine

#if canImport(Glibc)
    import Glibc
#endif

/// `ZeroedData.populate()` makes every page of the running executable's `.bss` resident (here the test runner's).
@Suite struct ZeroedDataTests {
    #if canImport(Glibc)
        /// On Linux 5.14 and later every page the `.bss` touches is resident after the call, and the length is the
        /// linker's `_end - __bss_start`.
        @Test(.enabled(if: KernelVersion.isAtLeast(5, 14)))
        func everyPageOfTheExecutablesZeroedDataIsResident() throws {
            let start = try #require(dlsym(nil, "__bss_start"))
            let end = try #require(dlsym(nil, "_end"))
            let length = try #require(ZeroedData.populate())
            #expect(length == start.distance(to: end))
            let page = UInt(sysconf(Int32(_SC_PAGESIZE)))
            let first = UInt(bitPattern: start) / page * page
            let pages = Int((UInt(bitPattern: end) - first + page - 1) / page)
            #expect(pages > 0)
            var flags = [UInt8](repeating: 0, count: pages)
            #expect(mincore(UnsafeMutableRawPointer(bitPattern: first), pages * Int(page), &flags) == 0)
            #expect(flags.allSatisfy { $0 & 1 == 1 }, "\(flags.filter { $0 & 1 == 0 }.count) of \(pages) pages absent")
        }
    #endif
}
