#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Signs a service in before its targets are sent (RFC 6749 §4.4's client credentials grant, or the service's own
/// sign-in call): one token request per service per run, and once more after a target got 401 (`ContractRunner`).
enum SignIn {
    /// Why a service could not sign in, for every one of its targets: `sign-in to GitHub failed: POST
    /// https://auth.example/token answered 401: {"error":"invalid_client"}`.
    struct Failure: Error, Sendable, CustomStringConvertible {
        var service: String
        var reason: String
        var description: String { "not checked: sign-in to \(service) failed: \(reason)" }
    }

    /// The token `signIn` fetches, or why there is none.
    /// - Parameters:
    ///   - signIn: The service's sign-in.
    ///   - service: The service, for the message.
    ///   - secrets: The service's secrets, redacted from the message (a body excerpt may echo them).
    ///   - transport: Where requests go.
    ///   - options: How they travel (timeouts, TLS; one request).
    static func token(
        _ signIn: ServiceSignIn, service: String, secrets: [String], transport: any HTTPTransport,
        options: TransportOptions
    ) -> Result<String, Failure> {
        let request = signIn.request
        var hidden = secrets
        if case .oauth2(let credentials) = signIn { hidden.append(credentials.clientSecret) }
        let redactor = Redactor(secrets: hidden.filter { !$0.isEmpty })
        let what = "POST \(request.url)"
        guard let result = transport.send([request], options: options).first else {
            return .failure(Failure(service: service, reason: "\(what): no answer"))
        }
        switch result {
        case .failure(let error):
            return .failure(Failure(service: service, reason: "\(what): \(error)"))
        case .success(let response):
            let excerpt = redactor.redact(
                String(decoding: response.body.prefix(200), as: UTF8.self).replacingText("\n", with: " "))
            guard (200..<300).contains(response.statusCode) else {
                return .failure(
                    Failure(service: service, reason: "\(what) answered \(response.statusCode): \(excerpt)"))
            }
            // Where the token is: the OAuth2 answer's access_token, a login's JSON path, or a login's header.
            var path: JSONPathPattern?
            var header: String?
            switch signIn {
            case .oauth2: path = try? JSONPathPattern("$.access_token")
            case .login(let call): (path, header) = (call.tokenPath, call.tokenHeader)
            }
            if let header {
                guard let value = response.headers.first(where: { $0.isNamed(header) })?.value, !value.isEmpty else {
                    return .failure(
                        Failure(
                            service: service,
                            reason: "\(what) answered \(response.statusCode) without a \(header) header: \(excerpt)"))
                }
                return .success(value)
            }
            let body = try? JSONReader().value(response.body)
            let value = path.flatMap { ContractRules.stubValues(at: $0, in: body).first }
            guard case .string(let text)? = value, !text.isEmpty else {
                return .failure(
                    Failure(
                        service: service,
                        reason:
                            "\(what) answered \(response.statusCode) without a string at \(path?.description ?? "$")"
                            + ": \(excerpt)"))
            }
            return .success(text)
        }
    }
}
