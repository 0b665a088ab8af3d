import Foundation

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
        let statusHolds = contract.rules.status?.contains(response.statusCode) ?? (response.statusCode == statusCode)
        if let allowed = contract.rules.status, !statusHolds {
            let list =
                allowed == ValidationType.successCodes.statusCodes
                ? "successCodes"
                : allowed == ValidationType.successAndRedirectCodes.statusCodes
                    ? "successAndRedirectCodes" : allowed.map(String.init).joined(separator: ", ")
            findings.append(
                Finding(
                    .drift, "status", "\(response.statusCode) is not one of \(list) (rules.status)",
                    expected: "one of \(list)", actual: String(response.statusCode)))
        } else if !statusHolds {
            findings.append(
                Finding(
                    .drift, "status",
                    "expected \(statusCode), got \(response.statusCode): check the request's path and query, "
                        + "or fix the stub's status code", expected: String(statusCode),
                    actual: String(response.statusCode)))
        }
        if let valid = contract.validStatusCodes, !valid.contains(response.statusCode) {
            findings.append(
                Finding(
                    .drift, "status",
                    "\(response.statusCode) is outside the target's validationType (\(describe(codes: valid))): "
                        + "fix the request, or widen validationType"))
        }
        findings += headerFindings(expected: headers, response: response)
        guard statusHolds else {
            if contract.sampleData != .none {
                findings.append(
                    Finding(
                        .note, "body",
                        "not compared: the status differs, so the body answers another case than the stub"))
            }
            return findings
        }
        if contract.request.method == "HEAD" {
            if contract.sampleData != .none {
                findings.append(Finding(.note, "body", "not compared: a HEAD response has no body"))
            }
            return findings
        }
        findings += bodyFindings(
            stub: contract.sampleData, live: response.body, isStrict: contract.rules.isStrict ?? isStrict,
            rules: contract.rules, parser: parser)
        return findings
    }

    /// Each stubbed header must be present with its value; a header the response repeats holds when any of its
    /// values does. The values of credential headers (`Set-Cookie`, …) are never put into a message.
    static func headerFindings(expected: [HTTPHeader], response: HTTPResponse) -> [Finding] {
        expected.compactMap { header in
            let path = "header \(header.name)"
            let live = response.headers.filter { $0.isNamed(header.name) }.map(\.value)
            let shown = { (value: String) in header.isCredential ? "<redacted>" : "\"\(value)\"" }
            // The two sides for tools: a credential's value is no more theirs than the message's.
            let plain = { (value: String) in header.isCredential ? Redactor.marker : value }
            guard let first = live.first else {
                return Finding(
                    .drift, path, "missing (expected \(shown(header.value))): \(headerHint)",
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
                    .drift, path, "expected \(shown(header.value)), got \(shown(first)): \(headerHint)",
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
                    .note, "body",
                    "not checked: the stub has no body (sampleData is empty), so only the status was checked")
            ]
        case .json(let value):
            guard let parser else {
                return ShapeCheck.findings(stub: value, live: live, strict: isStrict, rules: rules)
            }
            return JSONShape(stub: value, rules: rules).findings(live: live, strict: isStrict, parser: parser)
        case .text:
            if live.isEmpty {
                return [
                    Finding(
                        .drift, "body",
                        "expected a non-empty body (the stub has text), got an empty body: "
                            + "make sampleData empty, or fix the stub")
                ]
            }
            if (try? (parser.map { try $0.validate(live) } ?? JSONValue.validate(live))) != nil {
                return [
                    Finding(
                        .drift, "body",
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
