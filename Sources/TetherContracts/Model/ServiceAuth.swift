import Foundation

/// How a service signs in before its targets are sent (a manifest's service-level `"auth"`), as RFC 6749 §4.4's
/// client credentials grant: a token fetched from `tokenURL` once per run, sent as `Authorization: Bearer TOKEN` by
/// every target of the service, fetched again once when a target gets 401 (then that target is sent again). HTTP
/// Basic (`"basic"`) needs no fetch: the manifest loader makes it the service's `Authorization` header.
public struct OAuth2ClientCredentials: Sendable, Equatable {
    /// The token endpoint, a whole URL.
    public var tokenURL: String
    /// `client_id`.
    public var clientID: String
    /// `client_secret`: a secret, redacted from every output.
    public var clientSecret: String
    /// `scope`, when given.
    public var scope: String?
    /// `audience` (Auth0, Okta), when given.
    public var audience: String?
    /// More form fields, in order.
    public var form: [HTTPHeader]
    /// Where `"auth"` is written in the manifest, for errors.
    public var declaration: SourcePlace?

    /// - Parameters: as the properties.
    public init(
        tokenURL: String, clientID: String, clientSecret: String, scope: String? = nil, audience: String? = nil,
        form: [HTTPHeader] = [], declaration: SourcePlace? = nil
    ) {
        self.tokenURL = tokenURL
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.scope = scope
        self.audience = audience
        self.form = form
        self.declaration = declaration
    }

    /// The token request: `POST tokenURL`, form-encoded `grant_type=client_credentials&client_id=…&client_secret=…`,
    /// then `scope`, `audience` and the extra fields (RFC 6749 §4.4.2, with the client's credentials in the body as
    /// §2.3.1 allows).
    public var request: HTTPRequest {
        var fields = [("grant_type", "client_credentials"), ("client_id", clientID), ("client_secret", clientSecret)]
        if let scope { fields.append(("scope", scope)) }
        if let audience { fields.append(("audience", audience)) }
        fields += form.map { ($0.name, $0.value) }
        let body = fields.map { RequestBuilder.escape($0.0) + "=" + RequestBuilder.escape($0.1) }
            .joined(separator: "&")
        return HTTPRequest(
            method: "POST", url: tokenURL,
            headers: [
                HTTPHeader("Content-Type", "application/x-www-form-urlencoded"),
                HTTPHeader("Accept", "application/json"),
            ], body: Data(body.utf8))
    }
}
