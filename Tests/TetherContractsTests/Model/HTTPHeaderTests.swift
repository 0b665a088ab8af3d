import Testing

@testable import TetherContracts
@testable import TetherCore

/// `HTTPHeader.isValidName` and `isSafeValue` are the one rule for what may go on the wire as a header: the manifest
/// loader rejects what they refuse, the mock server leaves it out.
@Suite struct HTTPHeaderTests {
    @Test(arguments: [
        ("X-Token", true),
        ("Content-Type", true),
        ("!#$%&'*+-.^_`|~09azAZ", true),
        ("", false),
        ("X Token", false),
        ("X-Token:", false),
        (":status", false),
        ("X\tToken", false),
        ("X-Tökén", false),
        ("X-\u{7F}", false),
        ("X-\u{0}", false),
    ])
    func nameIsVisibleASCIIWithoutAColon(name: String, isValid: Bool) {
        #expect(HTTPHeader.isValidName(name) == isValid)
    }

    /// Names compare as ASCII bytes with case folding of letters only; names that are not ASCII fall back to
    /// Foundation's case-insensitive comparison.
    @Test(arguments: [
        ("Content-Type", "content-type", true),
        ("X-TETHER-MOCK", "x-tether-mock", true),
        ("Content-Type", "Content-Typf", false),
        ("Content-Type", "Content-Type2", false),
        ("Content-Type", "Content", false),
        ("X-@", "x-`", false),
        ("X-[", "x-{", false),
        ("", "", true),
        ("X-Tökén", "x-TÖKÉN", true),
        ("X-Tökén", "x-token", false),
    ])
    func namesCompareCaseInsensitively(name: String, other: String, isSame: Bool) {
        #expect(HTTPHeader(name, "").isNamed(other) == isSame)
        #expect(HTTPHeader(other, "").isNamed(name) == isSame)
    }

    @Test(arguments: [
        ("Bearer abc", true),
        ("", true),
        ("a\tb; q=0.5", true),
        ("a\r\nX-Injected: 1", false),
        ("a\nb", false),
        ("a\rb", false),
        ("a\u{0}b", false),
    ])
    func valueHoldsNoLineBreakOrNUL(value: String, isSafe: Bool) {
        #expect(HTTPHeader.isSafeValue(value) == isSafe)
    }
}
