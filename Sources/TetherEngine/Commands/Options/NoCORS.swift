extension Option {
    /// `--no-cors` of `serve` and `mock`: no CORS headers and no preflight answers (`CrossOrigin`), so that a web page
    /// of another origin cannot read the answers. Declared once, shown in each command's own section.
    /// - Parameter allowsCrossOrigin: Where the command keeps whether it answers other origins.
    /// - Returns: The option.
    public static func noCORS(_ allowsCrossOrigin: WritableKeyPath<Parsed, Bool> & Sendable) -> Option {
        .flag(
            "--no-cors", section: .options,
            help: "send no CORS headers and answer no preflight (by default a web page of any origin may read the "
                + "answers)"
        ) { $0[keyPath: allowsCrossOrigin] = false }
    }
}
