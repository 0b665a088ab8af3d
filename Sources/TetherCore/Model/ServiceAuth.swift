#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

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

/// Any sign-in call (a manifest's `"auth": {"login": …}`): a request written as a target's, relative to the service's
/// `baseURL`, whose answer holds the token, in its JSON body (`token`, a JSON path) or in a response header
/// (`tokenHeader`); every target then sends it in `header`, written as `format` says.
public struct LoginCall: Sendable, Equatable {
    /// The sign-in request, fully built.
    public var request: HTTPRequest
    /// Where the token is in the answer's JSON body: `$.access_token`, `$.data.token`.
    public var tokenPath: JSONPathPattern?
    /// The response header that holds the token, instead of the body.
    public var tokenHeader: String?
    /// The request header every target sends the token in (default `Authorization`).
    public var header: String
    /// The header's value, `{token}` standing for the token (default `Bearer {token}`).
    public var format: String
    /// Where `"login"` is written in the manifest.
    public var declaration: SourcePlace?

    /// - Parameters: as the properties.
    public init(
        request: HTTPRequest, tokenPath: JSONPathPattern? = nil, tokenHeader: String? = nil,
        header: String = "Authorization", format: String = "Bearer {token}", declaration: SourcePlace? = nil
    ) {
        self.request = request
        self.tokenPath = tokenPath
        self.tokenHeader = tokenHeader
        self.header = header
        self.format = format
        self.declaration = declaration
    }
}

/// How a service signs in before its targets are sent: OAuth2 client credentials or any sign-in call.
public enum ServiceSignIn: Sendable, Equatable {
    /// RFC 6749 §4.4.
    case oauth2(OAuth2ClientCredentials)
    /// A sign-in call of the service's own.
    case login(LoginCall)

    /// The request that fetches the token.
    public var request: HTTPRequest {
        switch self {
        case .oauth2(let credentials): credentials.request
        case .login(let call): call.request
        }
    }

    /// The request header every target sends the token in.
    public var header: String {
        if case .login(let call) = self { return call.header }
        return "Authorization"
    }

    /// The header's value for `token`.
    public func headerValue(_ token: String) -> String {
        if case .login(let call) = self { return call.format.replacingText("{token}", with: token) }
        return "Bearer " + token
    }
}
