import Foundation

/// Signs a service in before its targets are sent: RFC 6749 §4.4's client credentials grant, one token request per
/// service per run, and once more after a target got 401 (`ContractRunner`).
enum SignIn {
    /// Why a service could not sign in, for every one of its targets: `sign-in to GitHub failed: POST
    /// https://auth.example/token answered 401: {"error":"invalid_client"}`.
    struct Failure: Error, Sendable, CustomStringConvertible {
        var service: String
        var reason: String
        var description: String { "not checked: sign-in to \(service) failed: \(reason)" }
    }

    /// The access token for `credentials`, or why there is none.
    /// - Parameters:
    ///   - credentials: The service's client credentials.
    ///   - service: The service, for the message.
    ///   - transport: Where requests go.
    ///   - options: How they travel (timeouts, TLS; one request).
    static func token(
        _ credentials: OAuth2ClientCredentials, service: String, transport: any HTTPTransport,
        options: TransportOptions
    ) -> Result<String, Failure> {
        let request = credentials.request
        let redactor = Redactor(secrets: [credentials.clientSecret])
        let what = "POST \(request.url)"
        guard let result = transport.send([request], options: options).first else {
            return .failure(Failure(service: service, reason: "\(what): no answer"))
        }
        switch result {
        case .failure(let error):
            return .failure(Failure(service: service, reason: "\(what): \(error)"))
        case .success(let response):
            let excerpt = redactor.redact(
                String(decoding: response.body.prefix(200), as: UTF8.self).replacingOccurrences(of: "\n", with: " "))
            guard (200..<300).contains(response.statusCode) else {
                return .failure(
                    Failure(service: service, reason: "\(what) answered \(response.statusCode): \(excerpt)"))
            }
            guard case .object(let members)? = try? JSONReader().value(response.body),
                let token = members.first(where: { $0.key == "access_token" }), case .string(let text) = token.value,
                !text.isEmpty
            else {
                return .failure(
                    Failure(
                        service: service,
                        reason: "\(what) answered \(response.statusCode) without an access_token string: \(excerpt)"))
            }
            return .success(text)
        }
    }
}
