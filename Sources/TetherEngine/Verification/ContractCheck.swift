#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Whether a live response holds to a contract: status, stubbed headers, body. Pure: values in, findings out.
public enum ContractCheck {
    /// Every finding for one contract against one live response, drifts and notes, in rule order.
    /// - Parameters:
    ///   - contract: The stub taken as a contract.
    ///   - response: What the service answered.
    ///   - isStrict: Keys the live body has and the stub lacks become drifts instead of notes.
    ///   - parser: A parser to reuse across many checks (it keeps its buffers); a fresh one when `nil`.
    public static func findings(
        contract: Contract, response: HTTPResponse, isStrict: Bool = false, parser: JSONParser? = nil
    ) -> [Finding] {
        guard case .network(let statusCode, let headers) = contract.sampleResponse else { return [] }
        var findings: [Finding] = []
        let rules = contract.rules  // once: each read copies its ten fields out of the contract
        let statusHolds = rules.status?.contains(response.statusCode) ?? (response.statusCode == statusCode)
        if let allowed = rules.status, !statusHolds {
            let list =
                allowed == ValidationType.successCodes.statusCodes
                ? "successCodes"
                : allowed == ValidationType.successAndRedirectCodes.statusCodes
                    ? "successAndRedirectCodes" : allowed.map(String.init).joined(separator: ", ")
            findings.append(
                Finding(
                    .drift, .allowedStatus, at: .status, "\(response.statusCode) is not one of \(list) (rules.status)",
                    expected: "one of \(list)", actual: String(response.statusCode)))
        } else if !statusHolds {
            findings.append(
                Finding(
                    .drift, .status, at: .status,
                    "expected \(statusCode), got \(response.statusCode): check the request's path and query, "
                        + "or fix the stub's status code", expected: String(statusCode),
                    actual: String(response.statusCode)))
        }
        if let valid = contract.validStatusCodes, !valid.contains(response.statusCode) {
            findings.append(
                Finding(
                    .drift, .validationType, at: .status,
                    "\(response.statusCode) is outside the target's validationType (\(describe(codes: valid))): "
                        + "fix the request, or widen validationType"))
        }
        findings += headerFindings(expected: headers, response: response)
        guard statusHolds else {
            if contract.sampleData != .none {
                findings.append(
                    Finding(
                        .note, .notCompared, at: .body,
                        "not compared: the status differs, so the body answers another case than the stub"))
            }
            return findings
        }
        if contract.request.method == "HEAD" {
            if contract.sampleData != .none {
                findings.append(Finding(.note, .notCompared, at: .body, "not compared: a HEAD response has no body"))
            }
            return findings
        }
        if let xml = xmlStub(contract: contract, response: response) {
            findings += xmlFindings(
                stub: xml, contract: contract, live: response.body, isStrict: rules.isStrict ?? isStrict)
            return findings
        }
        findings += bodyFindings(
            stub: contract.sampleData, live: response.body, isStrict: rules.isStrict ?? isStrict, rules: rules,
            parser: parser)
        return findings
    }

    /// The one place that decides whether a stub's bytes are compared as XML: when the stub declares an XML
    /// `Content-Type` (`application/xml`, `text/xml`, `…+xml`) or its sample file ends in `.xml`; or when its bytes
    /// parse as XML and either they come from a sample file (or a Swift target) or the live `Content-Type` is XML.
    /// Inline `text` that merely looks like markup stays text unless a side says XML.
    /// - Returns: The parsed stub (or why it does not parse, when declared XML), or `nil` for a non-XML stub.
    static func xmlStub(contract: Contract, response: HTTPResponse) -> Result<XMLElementNode, XMLElementNode.ReadError>?
    {
        guard let (data, headers) = textStub(of: contract) else { return nil }
        let liveType = response.headers.first { $0.isNamed("Content-Type") }.map(\.value)
        let file = wholeStubFile(of: contract)
        let isDeclared = isDeclaredXML(headers: headers, file: file)
        let isSampleFile = file.map { !$0.isEmpty } ?? true
        guard isDeclared || isSampleFile || liveType.map(isXMLMediaType) == true else { return nil }
        guard isDeclared || startsWithMarkup(data) else { return nil }
        do {
            return .success(try XMLElementNode.read(data, name: contract.stubSource?.file ?? "stub"))
        } catch {
            return isDeclared ? .failure(error) : nil
        }
    }

    /// Sniffing: only bytes that start with markup (after whitespace and a byte order mark) are offered to the
    /// parser when no side declares XML.
    static func startsWithMarkup(_ data: Data) -> Bool {
        data.first(where: { ![0x20, 0x0A, 0x0D, 0x09, 0xEF, 0xBB, 0xBF].contains($0) }) == 0x3C
    }

    /// Whether `xmlStub` may read the stub as XML when its answer arrives (whatever the answer): a text stub sent to
    /// the service that declares XML or starts with markup.
    static func mayReadAsXML(_ contract: Contract) -> Bool {
        guard let (data, headers) = textStub(of: contract) else { return false }
        return startsWithMarkup(data) || isDeclaredXML(headers: headers, file: wholeStubFile(of: contract))
    }

    /// The bytes and headers of a text stub sent to the service: the only stubs that may be XML.
    private static func textStub(of contract: Contract) -> (data: Data, headers: [HTTPHeader])? {
        guard contract.hasTextStub, case .text(let data) = contract.sampleData,
            case .network(_, let headers) = contract.sampleResponse
        else { return nil }
        return (data, headers)
    }

    /// The sample file that is the whole stub, `""` for a stub inside a file (a manifest's), `nil` without a file.
    private static func wholeStubFile(of contract: Contract) -> String? {
        contract.stubSource.map { $0.location.isEmpty ? $0.file : "" }
    }

    /// Whether the stub itself says XML: an XML `Content-Type` among its headers, or a sample file ending in `.xml`.
    static func isDeclaredXML(headers: [HTTPHeader], file: String?) -> Bool {
        headers.first { $0.isNamed("Content-Type") }.map { isXMLMediaType($0.value) } == true
            || file?.lowercased().hasSuffix(".xml") == true
    }

    /// The contract error of a stub that declares XML and is not XML Tether will read, so that the run stops
    /// before any request (as for a JSON sample file): the sample file's `file:line:column` when the whole file is
    /// the body, else the manifest's location of `sampleData`. `nil` for any other stub.
    /// - Parameter contract: A loaded contract.
    /// - Returns: The error, or `nil`.
    public static func xmlStubError(in contract: Contract) -> ContractError? {
        guard let (data, headers) = textStub(of: contract),
            isDeclaredXML(headers: headers, file: wholeStubFile(of: contract))
        else { return nil }
        let source = contract.stubSource
        let isWholeFile = source?.location.isEmpty == true
        let message: String
        var line: Int?
        var column: Int?
        do {
            _ = try XMLElementNode.read(data, name: source?.file ?? "stub")
            return nil
        } catch {
            switch error {
            case .empty, .noRoot: message = "not XML: no root element"
            case .malformed(let errorLine, let errorColumn, let text):
                message = "not well-formed XML: \(text)"
                if isWholeFile { (line, column) = (errorLine, errorColumn) }
            case .declaresEntities:
                message = "declares entities in its DTD, which are refused (no entity expansion, no external DTDs)"
            }
        }
        let target = "\(contract.service).\(contract.name)"
        let hint = ": fix the stub, or drop its XML Content-Type"
        guard let source else {
            return ContractError(file: contract.source, "\(target): the XML stub is \(message)\(hint)")
        }
        if isWholeFile {
            return ContractError(
                file: source.file, line: line, column: column,
                "\(message) (the sample file of \(source.manifestLocation) in \(source.manifest))\(hint)")
        }
        return ContractError(
            file: source.manifest, line: source.line, column: source.column, location: source.manifestLocation,
            "the XML stub is \(message)\(hint)")
    }

    /// Whether a `Content-Type` value names XML: `application/xml`, `text/xml`, or any `…+xml` (Atom, RSS, SOAP).
    static func isXMLMediaType(_ value: String) -> Bool {
        let type = HTTPHeader.mediaType(of: value)
        return type == "application/xml" || type == "text/xml" || type.hasSuffix("+xml")
    }

    /// The XML body check, or one drift naming the stub file when the stub itself is not XML Tether will read.
    static func xmlFindings(
        stub: Result<XMLElementNode, XMLElementNode.ReadError>, contract: Contract, live: Data, isStrict: Bool
    ) -> [Finding] {
        switch stub {
        case .success(let root):
            return XMLShape(root).findings(live: live, isStrict: isStrict)
        case .failure(let error):
            let file = contract.stubSource?.file ?? "the stub"
            let why: String
            switch error {
            case .empty, .noRoot: why = "has no root element"
            case .malformed(let line, let column, let message):
                why = "is not well-formed at \(file):\(line):\(column): \(message)"
            case .declaresEntities:
                why = "declares entities in \(file), which are refused (no entity expansion, no external DTDs)"
            }
            return [
                Finding(
                    .drift, .stubNotXML, at: .body,
                    "the stub is declared XML but \(why): fix the stub, or drop its XML Content-Type",
                    expected: "XML", actual: "not XML")
            ]
        }
    }

    /// Each stubbed header must be present with its value; a header the response repeats holds when any of its
    /// values does. The values of credential headers (`Set-Cookie`, …) are never put into a message.
    static func headerFindings(expected: [HTTPHeader], response: HTTPResponse) -> [Finding] {
        guard !expected.isEmpty else { return [] }
        let headers = response.headers  // made from the received lines once, not once per expected header
        return expected.compactMap { header in
            let location = Finding.Location.header(header.name)
            let live = headers.filter { $0.isNamed(header.name) }.map(\.value)
            let shown = { (value: String) in header.isCredential ? "<redacted>" : "\"\(value)\"" }
            // The two sides for tools: a credential's value is no more theirs than the message's.
            let plain = { (value: String) in header.isCredential ? Redactor.marker : value }
            guard let first = live.first else {
                return Finding(
                    .drift, .missingHeader, at: location, "missing (expected \(shown(header.value))): \(headerHint)",
                    expected: plain(header.value),
                    actual: "absent")
            }
            let holds = live.contains { value in
                header.isNamed("Content-Type")
                    ? HTTPHeader.mediaType(of: value) == HTTPHeader.mediaType(of: header.value) : value == header.value
            }
            return holds
                ? nil
                : Finding(
                    .drift, .header, at: location,
                    "expected \(shown(header.value)), got \(shown(first)): \(headerHint)",
                    expected: plain(header.value), actual: plain(first))
        }
    }

    /// What to do about a stubbed header that does not hold.
    static let headerHint = "fix the stub's response headers, or drop the ones the app does not read"

    static func bodyFindings(
        stub: StubBody, live: Data, isStrict: Bool, rules: ContractRules = ContractRules(), parser: JSONParser? = nil
    ) -> [Finding] {
        switch stub {
        case .none:
            return [
                Finding(
                    .note, .notCompared, at: .body,
                    "not checked: the stub has no body (sampleData is empty), so only the status was checked")
            ]
        case .json(let stub):
            guard let parser else {
                return ShapeCheck.findings(stub: stub.value, live: live, strict: isStrict, rules: rules)
            }
            // A stub kept as text (a manifest's) is read by the run's simdjson parser and its shape compiled from
            // the tape: the values simdjson reads are `JSONReader`'s (`JSONEngineParityTests`), and the shape is the
            // one the value gives (`JSONShapeFromTapeTests`), without building the value.
            let shape =
                stub.text.flatMap { text in
                    try? parser.withDocument(text) { tape in
                        JSONShape(stubTape: tape, textLength: text.count, rules: rules)
                    }
                } ?? JSONShape(stub: stub.value, rules: rules)
            let findings = shape.findings(live: live, strict: isStrict, parser: parser)
            // A stub's repeated keys are rare: they are named from its value only when the shape found one.
            return shape.hasRepeatedKey ? ShapeCheck.repeatedKeys(in: stub.value, rules: rules) + findings : findings
        case .text:
            if live.isEmpty {
                return [
                    Finding(
                        .drift, .emptyBody, at: .body,
                        "expected a non-empty body (the stub has text), got an empty body: "
                            + "make sampleData empty, or fix the stub")
                ]
            }
            if (try? (parser.map { try $0.validate(live) } ?? JSONValue.validate(live))) != nil {
                return [
                    Finding(
                        .drift, .unexpectedJSON, at: .body,
                        "expected a body that is not JSON (the stub is text), got JSON: \(Finding.textExcerpt(live)): "
                            + "make sampleData JSON, or fix the stub")
                ]
            }
            return []
        }
    }

    static func describe(codes: [Int]) -> String {
        let validation = ValidationType(validStatusCodes: codes)
        if case .customCodes = validation { return "customCodes " + codes.map(String.init).joined(separator: ", ") }
        return "\(validation.name), \(codes.first ?? 0)-\(codes.last ?? 0)"
    }
}
