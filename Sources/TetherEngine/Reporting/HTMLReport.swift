#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The HTML report (`--html FILE`): one self-contained file (inline style and script, no network, no external
/// asset, works from `file://`). The totals on top, filters (all / drift / error / skipped / passed), then per
/// target its request line, status, findings, and the stub and live bodies side by side as trees.
///
/// The trees read like swift-custom-dump: the shape is kept, the paths the findings name are highlighted (`-` on
/// the stub side, `+` on the live side, notes in a quieter colour), the containers leading to them are open, and
/// each run of unchanged siblings is folded into one `… (4 unchanged)` that opens on a click (`<details>`, no
/// script needed). Every text is redacted and HTML-escaped, control characters made visible; a body that is not
/// JSON is shown as an excerpt cut as JUnit cuts it (4 KiB), and invalid UTF-8 shows as U+FFFD. No data is ever
/// placed inside the `<script>`, so a `</script>` in a live value is only text.
public enum HTMLReport {
    /// Live bodies up to this size are kept and shown as trees; larger ones as an excerpt.
    public static let maxTreeBodyBytes = 1 << 20
    /// Nodes drawn per tree at most; the rest is cut with a marker, so one huge body cannot make a huge page.
    static let maxNodes = 2000
    /// Bytes of one string value in a tree at most.
    static let maxValueBytes = 200
    /// Notes of one target listed as they are; more fold into one `N notes` line that opens on a click.
    static let maxListedNotes = 5

    /// What the service answered, as far as the report keeps it: the start of the body and its full size.
    public struct LiveBody: Sendable, Equatable {
        /// The body, or its first `maxTreeBodyBytes` bytes (plus one, to know it was cut).
        public var data: Data
        /// The body's full size.
        public var totalBytes: Int

        /// Keeps what the report needs of `body`.
        /// - Parameter body: the live body.
        public init(_ body: Data) {
            totalBytes = body.count
            data = body.count > HTMLReport.maxTreeBodyBytes ? body.prefix(HTMLReport.maxTreeBodyBytes + 1) : body
        }
    }

    /// The whole page.
    /// - Parameters:
    ///   - report: the finished run.
    ///   - liveBodies: the live body of each result that got a response, by the result's index in `report.results`.
    /// - Returns: the document, UTF-8 HTML5.
    public static func html(for report: RunReport, liveBodies: [Int: LiveBody] = [:]) -> String {
        let redactor = Redactor(report: report)
        let counts = report.counts
        // Against an OpenAPI document, each drift's badge says which side drifted (its style only then).
        let hasCulprits = report.results.contains { $0.findings.contains { $0.culprit != nil } }
        // Set-up and clean-up steps (their style only when the run has some).
        let hasSteps = !report.steps.isEmpty || report.results.contains { !$0.steps.isEmpty }
        let hasRefs = report.results.contains { $0.contract.ref != nil }
        var page = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
            <title>Tether report: \(escaped(ReportText.totalsLine(report.results)))</title>
            <style>\(style)\(hasCulprits ? culpritStyle : "")\(hasSteps ? stepStyle : "")\(hasRefs ? matrixStyle : "")</style>
            </head>
            <body>
            <header>
            <h1>Tether report</h1>
            <p class="totals">\(escaped(ReportText.totalsLine(report.results))) in \(ReportText.seconds(report.duration))s</p>
            <p class="meta">started \(ReportText.timestamp(report.startedAt)) UTC on \(escaped(report.hostname)) · tether \(escaped(tetherVersion))</p>

            """
        if let reason = report.nothingCheckedReason { page += "<p class=\"warning\">\(escaped(reason))</p>\n" }
        for coverage in report.specCoverage { page += "<p class=\"meta spec\">\(escaped(coverage.line))</p>\n" }
        if let matrix = VersionMatrix(report) { page += matrix.html(escaped: escaped) }
        if !report.steps.isEmpty { page += "<p class=\"meta\">service steps (once per run):</p>\n" }
        page += steps(report.steps, redactor: redactor, naming: true)
        page += "<nav class=\"filters\" aria-label=\"filter targets\">\n"
        let filters = [
            ("all", "all", report.results.count), ("drifted", "drift", counts.drifted),
            ("error", "error", counts.errors), ("skipped", "skipped", counts.skipped),
            ("passed", "passed", counts.passed),
        ]
        for (value, label, count) in filters {
            let pressed = value == "all" ? "true" : "false"
            page +=
                "<button type=\"button\" data-filter=\"\(value)\" aria-pressed=\"\(pressed)\">\(label) "
                + "<span class=\"count\">\(count)</span></button>\n"
        }
        page += "</nav>\n</header>\n<main>\n"
        for (index, result) in report.results.enumerated() {
            page += section(result, index: index, live: liveBodies[index], redactor: redactor)
        }
        page += "</main>\n<p class=\"legend\">- stub &nbsp; + live &nbsp; … unchanged, click to open</p>\n"
        page += "<script>\(script)</script>\n</body>\n</html>\n"
        return page
    }

    // MARK: One target

    /// Set-up and clean-up steps as a list, each with its status and time (a failed one marked as an error); the
    /// service's name before each when `naming`.
    private static func steps(_ steps: [StepRecord], redactor: Redactor, naming: Bool = false) -> String {
        guard !steps.isEmpty else { return "" }
        var html = "<ul class=\"steps\">\n"
        for step in steps {
            let line = (naming ? step.service + ": " : "") + ReportText.stepLine(step, redactor: redactor)
            html += "<li class=\"step\(step.failure == nil ? "" : " error")\"><code>\(escaped(line))</code></li>\n"
        }
        return html + "</ul>\n"
    }

    private static func section(_ result: ContractResult, index: Int, live: LiveBody?, redactor: Redactor) -> String {
        let outcome = ReportText.outcomeName(result.outcome)
        let name = escaped(ReportText.qualifiedName(result.contract))
        var html = "<section class=\"target \(outcome)\" data-outcome=\"\(outcome)\" id=\"target-\(index)\">\n"
        html += "<h2><span class=\"word \(outcome)\">\(ReportText.statusWord(result.outcome))</span> \(name)"
        html += " <span class=\"time\">\(ReportText.seconds(result.duration))s</span></h2>\n"
        html += "<p class=\"request\"><code>\(escaped(ReportText.requestLine(result, redactor: redactor)))</code></p>\n"
        var facts: [String] = []
        if case .network(let statusCode, _) = result.contract.sampleResponse {
            facts.append("stub status \(statusCode)")
        }
        facts.append(ReportText.liveStatusLine(result))
        if let liveURL = result.liveURL, liveURL != result.contract.request.url {
            facts.append("live URL " + ReportText.clean(liveURL, redactor: redactor))
        }
        // The gate's marks (--retries, --baseline, pending targets), as the console and JUnit show them.
        if result.attempts > 1 {
            facts.append(result.isFlaky ? "flaky: passed on attempt \(result.attempts)" : "\(result.attempts) attempts")
        }
        if result.isKnownDrift { facts.append("known drift (in the baseline): does not fail the gate") }
        if result.isPending { facts.append("pending: does not fail the gate until it has passed once") }
        if let place = result.contract.declaration {
            facts.append(
                "declared at \(ReportText.clean(place.file, redactor: redactor)):\(place.line):\(place.column)")
        } else {
            facts.append("from " + ReportText.clean(result.contract.source, redactor: redactor))
        }
        html += "<p class=\"facts\">\(facts.map(escaped).joined(separator: " · "))</p>\n"
        if let reason = ReportText.reason(result.outcome, redactor: redactor) {
            html += "<p class=\"reason\">\(escaped(reason))</p>\n"
        }
        html += steps(result.steps, redactor: redactor)
        // Drifts, then notes (in the order found); more than `maxListedNotes` notes fold into one line.
        let drifts = result.findings.filter(\.isDrift)
        let notes = result.findings.filter { !$0.isDrift }
        func item(_ finding: Finding) -> String {
            let kind = finding.isDrift ? "drift" : "note"
            let badge = finding.culprit.map {
                "<span class=\"culprit \($0.rawValue)\">\(escaped($0.words))</span> "
            }
            return
                "<li class=\"\(kind)\">\(badge ?? "")<code>\(escaped(ReportText.clean(finding.path, redactor: redactor)))</code>: "
                + "\(escaped(ReportText.clean(finding.message, redactor: redactor)))</li>\n"
        }
        if !drifts.isEmpty || (!notes.isEmpty && notes.count <= maxListedNotes) {
            html += "<ul class=\"findings\">\n" + drifts.map(item).joined()
            if notes.count <= maxListedNotes { html += notes.map(item).joined() }
            html += "</ul>\n"
        }
        if notes.count > maxListedNotes {
            html += "<details class=\"notes\"><summary>\(notes.count) notes</summary><ul class=\"findings\">\n"
            html += notes.map(item).joined() + "</ul></details>\n"
        }
        if result.contract.sampleData != .none || live != nil {
            let marks = Marks(result.findings)
            let isOpen = result.outcome == .drifted ? " open" : ""
            html += "<details class=\"bodies\"\(isOpen)><summary>stub and live bodies</summary>\n"
            html += "<div class=\"sides\">\n<div class=\"side stub\"><h3>stub</h3>\n"
            html += stubBody(result.contract.sampleData, marks: marks, redactor: redactor)
            html += "</div>\n<div class=\"side live\"><h3>live</h3>\n"
            html += liveBody(live, marks: marks, redactor: redactor)
            html += "</div>\n</div>\n</details>\n"
        }
        return html + "</section>\n"
    }

    private static func stubBody(_ body: StubBody, marks: Marks, redactor: Redactor) -> String {
        switch body {
        case .none: return "<p class=\"empty\">no body (Data())</p>\n"
        case .json(let stub): return Tree(marks: marks, side: "stub", redactor: redactor).html(stub.value)
        case .text(let data): return excerpt(data, redactor: redactor)
        }
    }

    private static func liveBody(_ body: LiveBody?, marks: Marks, redactor: Redactor) -> String {
        guard let body else { return "<p class=\"empty\">no response</p>\n" }
        if body.totalBytes == 0 { return "<p class=\"empty\">empty body</p>\n" }
        if body.totalBytes <= maxTreeBodyBytes, let value = try? JSONValue.parse(body.data) {
            return Tree(marks: marks, side: "live", redactor: redactor).html(value)
        }
        return excerpt(body.data, totalBytes: body.totalBytes, redactor: redactor)
    }

    /// A body that is not shown as a tree, cut as JUnit cuts free text (its marker gives the body's full size).
    private static func excerpt(_ data: Data, totalBytes: Int? = nil, redactor: Redactor) -> String {
        // Twice the excerpt's size is decoded, so a secret that straddles the cut is still redacted whole.
        let start = String(decoding: data.prefix(ReportText.maxFreeTextBytes * 2), as: UTF8.self)
        let total = max(totalBytes ?? data.count, data.count)
        let isCut = total > ReportText.maxFreeTextBytes * 2
        let text = ReportText.clean(start, redactor: redactor, totalBytes: isCut ? total : nil)
        return "<pre class=\"raw\">\(escaped(text))</pre>\n"
    }

    // MARK: Trees

    /// Where the findings point, and which containers lead there.
    struct Marks {
        /// Path → `drift` or `note` (a drift wins over a note at the same path).
        var kinds: [String: String] = [:]
        /// Every container path on the way to a marked path (`$`, `$.items`, `$.items[0]` for `$.items[0].id`).
        var ancestors: Set<String> = []

        init(_ findings: [Finding]) {
            for finding in findings {
                guard case .json(let location) = finding.location else { continue }
                let path = location.description
                if kinds[path] != "drift" { kinds[path] = finding.isDrift ? "drift" : "note" }
                ancestors.formUnion(location.ancestors)
            }
        }

        func isOnTheWay(_ path: String) -> Bool { kinds[path] != nil || ancestors.contains(path) }
    }

    /// Draws one side's tree: marked paths highlighted, the way to them open, unchanged runs folded.
    struct Tree {
        let marks: Marks
        let side: String
        let redactor: Redactor
        private(set) var nodes = 0

        init(marks: Marks, side: String, redactor: Redactor) {
            self.marks = marks
            self.side = side
            self.redactor = redactor
        }

        func html(_ value: JSONValue) -> String {
            var tree = self
            var out = "<ul class=\"tree\">\n"
            tree.node(label: nil, value, path: "$", into: &out)
            return out + "</ul>\n"
        }

        private mutating func node(label: String?, _ value: JSONValue, path: String, into out: inout String) {
            nodes += 1
            guard nodes <= HTMLReport.maxNodes else {
                if nodes == HTMLReport.maxNodes + 1 {
                    out += "<li class=\"cut\">… (cut: more than \(HTMLReport.maxNodes) values)</li>\n"
                }
                return
            }
            let kind = marks.kinds[path]
            let sign = kind == "drift" ? (side == "stub" ? "-" : "+") : " "
            let classes = ["node"] + (kind.map { [$0] } ?? [])
            out += "<li class=\"\(classes.joined(separator: " "))\" data-path=\"\(escaped(clean(path)))\">"
            out += "<span class=\"sign\">\(sign)</span>"
            if let label { out += "<span class=\"key\">\(escaped(label))</span>: " }
            switch value {
            case .object(let members):
                guard !members.isEmpty else {
                    out += "<span class=\"punct\">{}</span></li>\n"
                    return
                }
                out += "<span class=\"punct\">{</span>\n<ul>\n"
                children(
                    members.map { member in
                        var childPath = path
                        JSONPath.appendKey(member.key, to: &childPath)
                        return (clean(member.key), member.value, childPath)
                    }, into: &out)
                out += "</ul><span class=\"punct\">}</span></li>\n"
            case .array(let elements):
                guard !elements.isEmpty else {
                    out += "<span class=\"punct\">[]</span></li>\n"
                    return
                }
                out += "<span class=\"punct\">[</span>\n<ul>\n"
                children(elements.enumerated().map { (nil, $0.element, "\(path)[\($0.offset)]") }, into: &out)
                out += "</ul><span class=\"punct\">]</span></li>\n"
            default:
                out += scalar(value) + "</li>\n"
            }
        }

        /// Siblings: each on the way to a finding drawn open, each run of the others folded into one `<details>`.
        private mutating func children(_ items: [(String?, JSONValue, String)], into out: inout String) {
            var run: [(String?, JSONValue, String)] = []
            func flush(_ tree: inout Tree) {
                guard !run.isEmpty else { return }
                out += "<li class=\"unchanged\"><details><summary>… (\(run.count) unchanged)</summary><ul>\n"
                for (label, value, path) in run { tree.folded(label: label, value, path: path, into: &out) }
                out += "</ul></details></li>\n"
                run = []
            }
            for item in items {
                if marks.isOnTheWay(item.2) {
                    flush(&self)
                    node(label: item.0, item.1, path: item.2, into: &out)
                } else {
                    run.append(item)
                }
            }
            flush(&self)
        }

        /// An unchanged sibling: a scalar in full, a container by its size (its contents matched).
        private mutating func folded(label: String?, _ value: JSONValue, path: String, into out: inout String) {
            nodes += 1
            guard nodes <= HTMLReport.maxNodes else { return }
            out += "<li class=\"node\"><span class=\"sign\"> </span>"
            if let label { out += "<span class=\"key\">\(escaped(label))</span>: " }
            switch value {
            case .object(let members):
                out += "<span class=\"punct\">{…}</span> <span class=\"size\">\(members.count) keys</span>"
            case .array(let elements):
                out += "<span class=\"punct\">[…]</span> <span class=\"size\">\(elements.count) items</span>"
            default: out += scalar(value)
            }
            out += "</li>\n"
        }

        private func scalar(_ value: JSONValue) -> String {
            let text = String(decoding: value.serialized(), as: UTF8.self)
            let type: String
            switch value {
            case .null: type = "null"
            case .bool: type = "bool"
            case .string: type = "string"
            default: type = "number"
            }
            let shown = ReportText.clean(text, redactor: redactor, maxBytes: HTMLReport.maxValueBytes)
            return "<span class=\"value \(type)\">\(escaped(shown))</span>"
        }

        private func clean(_ text: String) -> String {
            ReportText.clean(text, redactor: redactor, maxBytes: HTMLReport.maxValueBytes)
        }
    }

    // MARK: Text

    /// `text` safe as HTML text and attribute values: `&`, `<`, `>`, `"` and `'` as entities.
    static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    private static let culpritStyle = """
        .culprit{display:inline-block;padding:0 6px;border-radius:8px;font-size:12px;color:#fff;background:#818b98}
        .culprit.stub{background:#cf222e}.culprit.service{background:#8250df}.culprit.spec{background:#bf8700}

        """

    private static let matrixStyle = """
        .matrix{border-collapse:collapse;margin:8px 0;font-size:13px}.matrix th,.matrix td{border:1px solid #d0d7de;\
        padding:2px 8px;text-align:left}.matrix td.drifted{color:#cf222e;font-weight:600}.matrix td.error{color:#9a6700}

        """

    private static let stepStyle = """
        .steps{margin:2px 0;padding-left:20px;font-size:13px}.step.error code{color:#cf222e}

        """

    private static let style = """
        :root{color-scheme:light;font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1f2328;background:#fff}
        body{margin:0 auto;max-width:1200px;padding:16px 24px}
        h1{font-size:22px;margin:0 0 4px}
        .totals{font-size:16px;font-weight:600;margin:0}
        .meta,.facts,.time,.legend{color:#59636e}
        .warning{background:#fff8c5;padding:6px 10px;border-radius:6px}
        .filters{display:flex;gap:8px;margin:12px 0 16px}
        .filters button{font:inherit;border:1px solid #d1d9e0;background:#f6f8fa;border-radius:6px;padding:4px 12px;cursor:pointer}
        .filters button[aria-pressed=true]{background:#0969da;color:#fff;border-color:#0969da}
        .count{font-weight:600}
        section.target{border:1px solid #d1d9e0;border-radius:8px;padding:10px 14px;margin:0 0 12px}
        section.target.drifted{border-left:6px solid #cf222e}
        section.target.error{border-left:6px solid #bf8700}
        section.target.skipped{border-left:6px solid #818b98}
        section.target.passed{border-left:6px solid #1a7f37}
        section[hidden]{display:none}
        h2{font-size:16px;margin:0 0 6px}
        .word{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;padding:1px 6px;border-radius:4px;color:#fff}
        .word.drifted{background:#cf222e}.word.error{background:#bf8700}.word.skipped{background:#818b98}.word.passed{background:#1a7f37}
        .request,.facts,.reason{margin:2px 0}
        code,pre,.tree{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:13px}
        .findings{margin:6px 0;padding-left:20px}
        .findings li.drift{color:#a40e26}
        .findings li.note{color:#59636e}
        .sides{display:grid;grid-template-columns:1fr 1fr;gap:12px}
        .side{min-width:0;overflow-x:auto;background:#f6f8fa;border-radius:6px;padding:6px 10px}
        .side h3{font-size:13px;margin:0 0 4px;color:#59636e}
        ul.tree,ul.tree ul{list-style:none;margin:0;padding-left:18px}
        ul.tree{padding-left:0}
        .tree li{white-space:normal}
        .tree .key,.tree .value{white-space:pre-wrap;word-break:break-all}
        .sign{display:inline-block;width:1.2em;color:#59636e}
        .stub li.drift{background:#ffebe9}.stub li.drift>.sign{color:#cf222e;font-weight:700}
        .live li.drift{background:#dafbe1}.live li.drift>.sign{color:#1a7f37;font-weight:700}
        .stub li.drift>.key,.stub li.drift>.value{background:#ff8182}
        .live li.drift>.key,.live li.drift>.value{background:#4ac26b}
        .tree li.note{background:#fff8c5}
        .notes summary{color:#59636e;cursor:pointer}
        .key{color:#0550ae}.string{color:#0a3069}.number,.bool,.null{color:#953800}.size{color:#59636e}
        .unchanged summary{color:#59636e;cursor:pointer;list-style:none}
        pre.raw{white-space:pre-wrap;word-break:break-all;margin:0}
        .empty{color:#59636e;margin:0}
        """

    /// Filters the targets by outcome; the page reads fully without it (every target is shown).
    private static let script = """
        (function(){
        var buttons=document.querySelectorAll('.filters button');
        function show(filter){
        document.querySelectorAll('section.target').forEach(function(s){s.hidden=filter!=='all'&&s.dataset.outcome!==filter;});
        buttons.forEach(function(b){b.setAttribute('aria-pressed',String(b.dataset.filter===filter));});
        document.documentElement.dataset.filter=filter;
        }
        buttons.forEach(function(b){b.addEventListener('click',function(){show(b.dataset.filter);});});
        var wanted=(location.hash.match(/^#filter=(\\w+)$/)||[])[1];
        show(wanted&&document.querySelector('.filters button[data-filter="'+wanted+'"]')?wanted:'all');
        })();
        """
}

/// The HTML report file as a report sink: it keeps each live body (capped at `HTMLReport.maxTreeBodyBytes`) until
/// the run ends, the only format that does, and writes the page atomically.
public struct HTMLReportFile: ReportSink {
    /// Where the page goes, e.g. `reports/tether.html`; parent folders are created.
    public var path: String
    private var bodies: [Int: HTMLReport.LiveBody] = [:]

    /// - Parameter path: Where the page goes.
    public init(path: String) {
        self.path = path
    }

    /// Checks that the path can be written, before anything is sent.
    public func prepare() throws(ReportError) {
        try ReportFile.checkWritable(path)
    }

    /// The HTML report shows live bodies.
    public var wantsResponses: Bool { true }

    /// Keeps the start of the body for the live tree.
    public mutating func addResponse(_ response: HTTPResponse, at index: Int) {
        bodies[index] = HTMLReport.LiveBody(response.body)
    }

    /// Writes its file and nothing else: it finishes beside the console.
    public var finishesAlone: Bool { true }

    /// Writes the page; returns `HTML report: PATH`.
    public mutating func finish(_ report: RunReport) throws(ReportError) -> String? {
        try ReportFile.write(
            Data(HTMLReport.html(for: report, liveBodies: bodies).utf8), to: path, durability: .report)
        bodies = [:]
        return "HTML report: \(path)"
    }
}
