/// Cross-origin resource sharing (CORS) for a mock service that a browser calls from another origin: a web app's
/// development server on `http://localhost:3000` calling `tether serve` on `http://127.0.0.1:8080`. Without these
/// headers the browser hides the answer from the page, and sends no request that needs a preflight at all.
/// `tether serve` and `tether mock` add them unless `--no-cors` is given: as Prism does by default, and as the `cors`
/// middleware does with the origin reflected.
///
/// - A request without `Origin` (curl, URLSession in an app, `tether verify`) is answered as if this did not exist.
/// - A preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) is answered here, `204`, whatever the
///   routes: it allows the page's origin, the method and headers it asks for (credentials too), for two hours. The
///   request that follows is answered by its route, or by the 404 or 405 that names the closest routes, which the
///   page can then read.
/// - Any other request with `Origin` gets its answer with `Access-Control-Allow-Origin` (the origin), `-Credentials`,
///   `-Expose-Headers` (the answer's header names, so the page reads them all) and `Vary: Origin` (beside the answer's
///   own `Vary`). The stub's or the recording's own `Access-Control-*` headers are replaced: they were written for the
///   real service's origins (a browser's HAR carries its page's), and would block the page that calls the mock.
enum CrossOrigin {
    /// What a preflight answer allows the page to cache it for: two hours, the most Chromium keeps one.
    static let maxAgeSeconds = 7_200

    /// A service's answers and console lines as it serves them: as they are, or (`isOn`) with `serving` and `lines`.
    static func serve(
        _ answer: @escaping @Sendable (MockRequest) -> MockResponse,
        lines line: @escaping @Sendable (MockExchange) -> String, isOn: Bool
    ) -> (answer: @Sendable (MockRequest) -> MockResponse, line: @Sendable (MockExchange) -> String) {
        isOn ? (serving(answer), lines(line)) : (answer, line)
    }

    /// `answer`, with the cross-origin headers a browser needs (see `CrossOrigin`).
    /// - Parameter answer: The service's answers (its routes, or a HAR replay).
    /// - Returns: The handler to serve.
    private static func serving(_ answer: @escaping @Sendable (MockRequest) -> MockResponse)
        -> @Sendable (MockRequest) -> MockResponse
    {
        { request in
            guard let origin = request.header("Origin") else { return answer(request) }
            if isPreflight(request) { return preflight(request, origin: origin) }
            var response = answer(request)
            guard response.ending == .respond else { return response }  // a closed or held connection has no headers
            response.headers.removeAll(where: isCrossOrigin)
            var exposed: [String] = []
            for header in response.headers where !exposed.contains(where: header.isNamed) {
                exposed.append(header.name)
            }
            response.headers += allowing(origin)
            if !exposed.isEmpty {
                response.headers.append(HTTPHeader("Access-Control-Expose-Headers", exposed.joined(separator: ", ")))
            }
            response.headers.append(HTTPHeader("Vary", "Origin"))  // beside the answer's own, if any
            return response
        }
    }

    /// `line`, with a preflight this answered shown as such: `OPTIONS /users  preflight  204  0.000s`.
    private static func lines(_ line: @escaping @Sendable (MockExchange) -> String)
        -> @Sendable (MockExchange) -> String
    {
        { exchange in
            guard exchange.request.header("Origin") != nil, isPreflight(exchange.request) else { return line(exchange) }
            let request = exchange.request
            let target = request.query.isEmpty ? request.path : "\(request.path)?…"
            return ReportText.escapingControls(
                "\(request.method) \(target)  preflight  \(exchange.response.status)  "
                    + formatted("%.3fs", exchange.seconds))
        }
    }

    /// Whether `request` is a CORS preflight: `OPTIONS` with `Access-Control-Request-Method` (and `Origin`, which the
    /// caller checks).
    private static func isPreflight(_ request: MockRequest) -> Bool {
        request.method == "OPTIONS" && request.header("Access-Control-Request-Method") != nil
    }

    /// The answer to a preflight from `origin`: 204, allowing the method and headers it asks for.
    private static func preflight(_ request: MockRequest, origin: String) -> MockResponse {
        var headers = allowing(origin)
        if let method = request.header("Access-Control-Request-Method") {
            headers.append(HTTPHeader("Access-Control-Allow-Methods", method))
        }
        if let asked = request.header("Access-Control-Request-Headers"), !asked.isEmpty {
            headers.append(HTTPHeader("Access-Control-Allow-Headers", asked))
        }
        headers += [
            HTTPHeader("Access-Control-Max-Age", String(maxAgeSeconds)),
            HTTPHeader("Vary", "Origin, Access-Control-Request-Method, Access-Control-Request-Headers"),
        ]
        return MockResponse(status: 204, headers: headers)
    }

    /// The headers that let a page of `origin` read an answer, its cookies and credentials sent.
    private static func allowing(_ origin: String) -> [HTTPHeader] {
        [HTTPHeader("Access-Control-Allow-Origin", origin), HTTPHeader("Access-Control-Allow-Credentials", "true")]
    }

    /// Whether `header` is one of the `Access-Control-*` headers this answers with.
    private static func isCrossOrigin(_ header: HTTPHeader) -> Bool {
        header.name.utf8.count > 15 && header.name.prefix(15).lowercased() == "access-control-"
    }
}
