#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Data {
    /// Decodes standard base64 as manifests and HAR files hold it: white space (line wrapping, indentation) is not
    /// part of the data and is skipped; anything else that is not base64 (a stray character, missing padding) fails,
    /// so a typo never turns into an empty or truncated body.
    /// - Parameter text: The base64 text, possibly wrapped.
    /// - Returns: `nil` when `text`, without its white space, is not valid base64.
    package init?(wrappedBase64 text: String) {
        self.init(base64Encoded: text.filter { !$0.isWhitespace })
    }
}
