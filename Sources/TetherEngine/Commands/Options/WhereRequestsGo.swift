// WHERE REQUESTS GO: `--base-url` and `--mock`, the groups of verify, record (no `--mock`), update and learn.

extension HelpSection {
    /// `--base-url`, `--mock`.
    public static let whereRequestsGo = HelpSection(title: "WHERE REQUESTS GO")
}

extension BaseURLOverrides: OptionGroup {
    /// `--base-url URL`, `--base-url SERVICE=URL`.
    public static let options: [Option<BaseURLOverrides>] = [
        Option(
            names: ["--base-url"], section: .whereRequestsGo,
            forms: [
                .init(value: "URL", help: "send every service's requests to URL instead of its manifest's baseURL"),
                .init(
                    value: "SERVICE=URL", help: "the same for one service; wins over the form above",
                    isRepeatable: true),
            ],
            action: .value { overrides, text throws(InvalidValue) in try overrides.add(text) })
    ]

    /// `--base-url URL` (every service) or `--base-url SERVICE=URL` (one service: the part before `=` has no `/` or
    /// `:`, so a URL with `=` in its query is still a URL).
    mutating func add(_ text: String) throws(InvalidValue) {
        if let equals = text.firstIndex(of: "="), !text[..<equals].contains("/"), !text[..<equals].contains(":") {
            let url = String(text[text.index(after: equals)...])
            try ValueReader.checkHTTPURL(url)
            byService[String(text[..<equals])] = url
        } else {
            try ValueReader.checkHTTPURL(text)
            all = text
        }
    }
}

extension MockReplay: OptionGroup {
    /// `--mock FILE.har`.
    public static let options: [Option<MockReplay>] = [
        .value(
            "--mock", "FILE.har", section: .whereRequestsGo,
            help: "start an embedded server on 127.0.0.1 that replays the responses recorded in FILE.har "
                + "(Proxyman, Charles, browsers) and verify against it"
        ) { $0.harPath = $1 }
    ]
}
