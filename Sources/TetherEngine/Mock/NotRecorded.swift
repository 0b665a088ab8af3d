#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// How Tether's mock says "this request is not in the HAR file", and how a run reads that back.
///
/// A request the HAR does not hold cannot be checked: it is an error of the run, not a drift of the service. The mock
/// answers it with 404, a JSON body naming the request and the HAR file, and a header only Tether's mock sets
/// (`X-Tether-Mock: not-recorded`). The verifier turns a response carrying that header into an `.error` before any
/// rule looks at it, whether the mock runs inside the same process (`--mock`) or as `tether mock`. A recorded
/// `X-Tether-Mock` header is never replayed, so only a miss carries it.
public enum NotRecorded {
    /// The response header that marks the mock's own "not recorded" answer.
    public static let headerName = "X-Tether-Mock"
    /// The marker's value.
    public static let headerValue = "not-recorded"

    /// `not recorded in small.har: GET /users/x?page=2; record it in the HAR file, or check the target's method, path
    /// and query`.
    /// - Parameters:
    ///   - file: The HAR file, as the user named it.
    ///   - method: The request method.
    ///   - target: The request target as sent: path and query, percent-encoded.
    /// - Returns: The message.
    static func message(file: String, method: String, target: String) -> String {
        "not recorded in \(file): \(method) \(target); record it in the HAR file, or check the target's method, path "
            + "and query"
    }

    /// The mock's answer to a request its HAR file does not hold:
    /// `{"error":"not recorded in …","har":"small.har","method":"GET","path":"/users/x","query":"page=2"}`.
    /// - Parameters:
    ///   - request: The request received.
    ///   - file: The HAR file, as the user named it.
    /// - Returns: A 404 with the marker header and a JSON body naming the request and the file.
    static func response(for request: MockRequest, file: String) -> MockResponse {
        let target = request.query.isEmpty ? request.path : "\(request.path)?\(request.query)"
        let body = JSONValue.object([
            JSONMember("error", .string(message(file: file, method: request.method, target: target))),
            JSONMember("har", .string(file)),
            JSONMember("method", .string(request.method)),
            JSONMember("path", .string(request.path)),
            JSONMember("query", .string(request.query)),
        ])
        return MockResponse(
            status: 404,
            headers: [HTTPHeader("Content-Type", "application/json"), HTTPHeader(headerName, headerValue)],
            body: body.serialized())
    }

    /// Whether a response is the mock's "not recorded" answer.
    /// - Parameter response: A live response.
    /// - Returns: `true` when it carries `X-Tether-Mock: not-recorded`.
    public static func isMarked(_ response: HTTPResponse) -> Bool {
        response.header(headerName)?.trimmingWhitespace().lowercased() == headerValue
    }

    /// The error a run reports for the mock's "not recorded" answer, or `nil` for any other response.
    /// - Parameter response: A live response.
    /// - Returns: The mock's own message (`not recorded in small.har: GET /nothere; …`), or, when its body cannot be
    ///   read, one naming the URL.
    public static func errorMessage(for response: HTTPResponse) -> String? {
        guard isMarked(response) else { return nil }
        if let body = try? JSONValue.parse(response.body), case .string(let message)? = body["error"],
            !message.isEmpty
        {
            return message
        }
        return "not recorded in the mock's HAR file: \(response.url); record it in the HAR file, or check the "
            + "target's method, path and query"
    }
}
