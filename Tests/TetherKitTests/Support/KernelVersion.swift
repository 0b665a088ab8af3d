#if os(Linux)
    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Musl)
        import Musl
    #endif

    /// The running Linux kernel's release, for tests of calls that came with a version (`MADV_POPULATE_WRITE`: 5.14).
    enum KernelVersion {
        /// Whether the kernel is `major.minor` or later.
        static func isAtLeast(_ major: Int, _ minor: Int) -> Bool {
            var name = utsname()
            uname(&name)
            let release = withUnsafeBytes(of: &name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            let version = release.split(separator: ".").prefix(2).compactMap { Int($0.prefix { $0.isNumber }) }
            return version.count == 2 && (version[0], version[1]) >= (major, minor)
        }
    }
#endif
