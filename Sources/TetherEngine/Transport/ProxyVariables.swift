/// The environment's proxy variables, as libcurl reads them: `no_proxy`, `<scheme>_proxy` and `all_proxy`, in lower or
/// upper case.
///
/// libcurl looks for them at every transfer that has no proxy set: five `getenv` calls an http request (10,016 in a
/// run of 2,000 contracts), each a walk through the whole environment. Where none is set, a transport loop tells each
/// of its handles that there is no proxy (`CURLOPT_PROXY` and `CURLOPT_NOPROXY` empty), which is what libcurl would have
/// found; where one is, libcurl reads them as before.
enum ProxyVariables {
    /// Whether no variable of the process's environment could name a proxy: none whose name ends in `_proxy`, in any
    /// case (more than libcurl reads, so that nothing it would read is missed). Read at each call: a process may set
    /// one between runs.
    static func areAbsent() -> Bool { !ProcessEnvironment.hasEntry(where: namesAProxy) }

    /// Whether the environment entry `text` (`NAME=value`, or a name alone) has a name that ends in `_proxy`, in any
    /// case, read from its bytes.
    static func namesAProxy(_ text: UnsafePointer<CChar>) -> Bool {
        var length = 0
        while text[length] != 0 && text[length] != CChar(UInt8(ascii: "=")) { length += 1 }
        guard length >= suffix.count else { return false }
        for (offset, expected) in suffix.enumerated() {
            let byte = UInt8(bitPattern: text[length - suffix.count + offset])
            // ASCII letters to lower case; `_` has no case.
            let lower = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
            if lower != expected { return false }
        }
        return true
    }

    private static let suffix = Array("_proxy".utf8)
}
