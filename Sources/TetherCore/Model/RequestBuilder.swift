#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// How a request carries parameters: Alamofire's `URLEncoding` destinations and `JSONEncoding`, as the file format
/// names them. (Moya's own `ParameterEncoding` protocol, `URLEncoding` and `JSONEncoding` map onto it.)
public enum RequestEncoding: String, Sendable, Equatable, CaseIterable {
    /// Alamofire's `URLEncoding.default`: the query for GET, HEAD and DELETE, a form body otherwise.
    case url
    /// `URLEncoding.queryString`: always the query.
    case queryString
    /// `URLEncoding.httpBody`: always a form body.
    case httpBody
    /// `JSONEncoding.default`: a JSON body.
    case json
}

/// What a request sends besides its URL: Moya's request `Task` cases, with JSON parameters as `JSONValue`.
public enum RequestTask: Sendable, Equatable {
    /// `requestPlain`.
    case plain
    /// `requestData(Data)`: the bytes as they are.
    case data(Data)
    /// `requestJSONEncodable`: the value as a JSON body.
    case json(JSONValue)
    /// `requestParameters(parameters:encoding:)`.
    case parameters(JSONValue, encoding: RequestEncoding)
    /// `requestCompositeData(bodyData:urlParameters:)`.
    case compositeData(body: Data, urlParameters: JSONValue)
    /// `requestCompositeParameters(bodyParameters:bodyEncoding:urlParameters:)`.
    case compositeParameters(body: JSONValue, bodyEncoding: RequestEncoding, urlParameters: JSONValue)
}

/// Builds the request Moya would send for a target: URL as `baseURL.appendingPathComponent(path)`, parameters encoded
/// as Alamofire encodes them (keys sorted, arrays as `key[]`, booleans as 1/0, RFC 3986 escaping).
///
/// The one home of the URL rule, for manifests and Swift targets alike: the path goes before the base URL's query
/// (as Foundation's `appendingPathComponent` puts it), query parameters are added to that query with `&` (as
/// Alamofire's `URLEncoding` does), and a fragment is dropped: it is never sent on the wire (URLSession and libcurl
/// leave it out too).
public enum RequestBuilder {
    /// - Parameters:
    ///   - method: The HTTP method (`GET`, `POST`, …).
    ///   - baseURL: The service's base URL.
    ///   - path: The target's path, appended as a path component.
    ///   - query: Query items of the target itself, in order, before any parameters of the task.
    ///   - headers: The target's headers, in order.
    ///   - task: What the request carries.
    /// - Returns: The request, with `Content-Type` set for JSON and form bodies unless `headers` sets it.
    public static func request(
        method: String, baseURL: String, path: String, query: [(String, String)] = [], headers: [HTTPHeader],
        task: RequestTask
    ) -> HTTPRequest {
        var url = joined(baseURL: baseURL, path: path)
        var queryParts = query.map { "\(escape($0.0))=\(escape($0.1))" }
        var body: Data?
        var contentType: String?
        let upper = method.uppercased()

        func encode(_ parameters: JSONValue, _ encoding: RequestEncoding) {
            switch encoding {
            case .json:
                body = parameters.serialized()
                contentType = "application/json"
            case .queryString:
                queryParts += formComponents(parameters)
            case .httpBody:
                body = Data(formComponents(parameters).joined(separator: "&").utf8)
                contentType = "application/x-www-form-urlencoded; charset=utf-8"
            case .url:
                encode(parameters, ["GET", "HEAD", "DELETE"].contains(upper) ? .queryString : .httpBody)
            }
        }

        switch task {
        case .plain: break
        case .data(let data): body = data
        case .json(let value):
            body = value.serialized()
            contentType = "application/json"
        case .parameters(let parameters, let encoding): encode(parameters, encoding)
        case .compositeData(let data, let urlParameters):
            body = data
            queryParts += formComponents(urlParameters)
        case .compositeParameters(let bodyParameters, let bodyEncoding, let urlParameters):
            queryParts += formComponents(urlParameters)
            encode(bodyParameters, bodyEncoding == .url ? .httpBody : bodyEncoding)
        }
        // Most targets have no query: nothing is joined (the generic `joined(separator:)`'s first use in a process
        // searched the conformances, 0.1 ms of a one-contract run).
        if !queryParts.isEmpty { url = appendingQuery(queryParts.joined(separator: "&"), to: url) }
        var allHeaders = headers
        if let contentType,
            !allHeaders.contains(where: { $0.isNamed("Content-Type") })
        {
            allHeaders.append(HTTPHeader("Content-Type", contentType))
        }
        return HTTPRequest(method: upper, url: url, headers: allHeaders, body: body)
    }

    /// `baseURL.appendingPathComponent(path)` as it goes on the wire: one slash between them, the path
    /// percent-encoded and put before the base's query; the base's fragment dropped.
    ///
    /// `https://h.test/v1?key=abc#top` + `/json` is `https://h.test/v1/json?key=abc`; an empty path leaves the base as
    /// it is (but for its fragment), as Moya's `URL(target:)` does.
    /// - Parameters:
    ///   - baseURL: The base URL, possibly with a query and a fragment.
    ///   - path: The path as written (not yet percent-encoded).
    /// - Returns: The URL to send.
    package static func joined(baseURL: String, path: String) -> String {
        joined(baseURL: baseURL, encodedPath: percentEncoded(path, keeping: pathAllowed))
    }

    /// `joined(baseURL:path:)` for a path that is percent-encoded already.
    package static func joined(baseURL: String, encodedPath: some StringProtocol) -> String {
        let (head, query) = split(baseURL)
        if encodedPath.isEmpty && query == nil { return head }  // nothing to add: no copy
        var url = head
        // Built in place, with the last and first bytes looked at before the characters (for every target loaded).
        url.reserveCapacity(head.utf8.count + 1 + encodedPath.utf8.count + (query.map { 1 + $0.utf8.count } ?? 0))
        if !encodedPath.isEmpty {
            if url.utf8.last == UInt8(ascii: "/") && url.hasSuffix("/") { url.removeLast() }
            // A percent-encoded path is ASCII: its first byte is its first character.
            if encodedPath.utf8.first != UInt8(ascii: "/") { url.append("/") }
            url.append(contentsOf: encodedPath)
        }
        if let query {
            url.append("?")
            url.append(query)
        }
        return url
    }

    /// A URL without its fragment, cut before its query: `https://h.test/a?b=1#c` is (`https://h.test/a`, `b=1`).
    /// The query is `nil` when there is no `?`, empty for a bare `?`. The one cut of a URL at `#` and `?`, for the
    /// requests built here and for HAR matching (`HAREntry.target(of:)`) alike.
    /// - Parameter url: An absolute URL, or a path with its query.
    /// - Returns: What comes before the `?`, and the query without it.
    package static func split(_ url: String) -> (head: String, query: String?) {
        // An ASCII URL (every URL Tether builds from a manifest) is cut on its bytes: `#` and `?` are then whole
        // characters, so the cut is the same, without the grapheme breaking of a `Character` search (which was a
        // sixth of loading 2,000 targets). A URL with other characters keeps the `Character` search.
        // The bytes are searched in place (iterating the `UTF8View` three times was most of building a request).
        var contiguous = url
        let cut = contiguous.withUTF8 { bytes -> (end: Int, mark: Int?)? in
            guard !bytes.contains(where: { $0 >= 0x80 }) else { return nil }
            let end = bytes.firstIndex(of: UInt8(ascii: "#")) ?? bytes.count
            return (end, bytes[..<end].firstIndex(of: UInt8(ascii: "?")))
        }
        if let (end, mark) = cut {
            let bytes = url.utf8
            let endIndex = bytes.index(bytes.startIndex, offsetBy: end)
            guard let mark else { return (end == bytes.count ? url : String(url[..<endIndex]), nil) }
            let markIndex = bytes.index(bytes.startIndex, offsetBy: mark)
            return (String(url[..<markIndex]), String(url[bytes.index(after: markIndex)..<endIndex]))
        }
        var rest = Substring(url)
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        guard let mark = rest.firstIndex(of: "?") else { return (String(rest), nil) }
        return (String(rest[..<mark]), String(rest[rest.index(after: mark)...]))
    }

    /// Alamofire's `URLEncoding` in the URL: an existing query (even an empty one) gets `&` and the new parts, a URL
    /// without one gets `?`; nothing to add leaves the URL as it is.
    package static func appendingQuery(_ encodedQuery: some StringProtocol, to url: String) -> String {
        guard !encodedQuery.isEmpty else { return url }
        return url + (split(url).query == nil ? "?" : "&") + encodedQuery
    }

    /// Alamofire's `URLEncoding.queryComponents`: keys sorted, nested objects as `a[b]`, arrays as `a[]`.
    static func formComponents(_ parameters: JSONValue) -> [String] {
        guard case .object(let members) = parameters else { return [] }
        var parts: [String] = []
        for member in members.sorted(by: { $0.key < $1.key }) {
            append(key: member.key, value: member.value, to: &parts)
        }
        return parts
    }

    private static func append(key: String, value: JSONValue, to parts: inout [String]) {
        switch value {
        case .object(let members):
            for member in members.sorted(by: { $0.key < $1.key }) {
                append(key: "\(key)[\(member.key)]", value: member.value, to: &parts)
            }
        case .array(let elements):
            for element in elements { append(key: "\(key)[]", value: element, to: &parts) }
        case .bool(let flag): parts.append("\(escape(key))=\(flag ? "1" : "0")")
        case .null: parts.append("\(escape(key))=")
        case .string(let text): parts.append("\(escape(key))=\(escape(text))")
        case .integer(let number): parts.append("\(escape(key))=\(number)")
        case .unsignedInteger(let number): parts.append("\(escape(key))=\(number)")
        case .double(let number): parts.append("\(escape(key))=\(escape(String(number)))")
        }
    }

    /// Every way a value can appear in a request this builder makes: as given, in a path, in a query or form body.
    /// The redactor hides all of them, so a secret never shows in a report in an encoded form it did not think of.
    public static func encodedForms(of value: String) -> [String] {
        var forms = [value]
        for form in [escape(value), percentEncoded(value, keeping: pathAllowed)] where !forms.contains(form) {
            forms.append(form)
        }
        return forms
    }

    /// RFC 3986 query escaping as Alamofire does it: `?` and `/` stay, every other delimiter is encoded.
    static func escape(_ text: String) -> String { percentEncoded(text, keeping: queryAllowed) }

    /// What `CharacterSet.urlPathAllowed` keeps: unreserved characters, `!$&'()*+,:=@` and `/` (not `;`).
    private static let pathAllowed = asciiSet(
        "!$&'()*+,-./0123456789:=@ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz~")
    /// `CharacterSet.urlQueryAllowed` less `:#[]@!$&'()*+,;=`, as Alamofire's `URLEncoding` escapes.
    private static let queryAllowed = asciiSet("-./0123456789?ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz~")
    /// What `addingPercentEncoding(withAllowedCharacters: .alphanumerics)` keeps: Foundation ignores the members of
    /// the set outside ASCII, so only `0-9A-Za-z`.
    package static let foundationAlphanumerics = asciiSet(
        "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
    /// What `addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed)` keeps (all of it ASCII).
    package static let foundationQueryAllowed = asciiSet(
        "!$&'()*+,-./0123456789:;=?@ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz~")
    /// Every set a value is percent-encoded with, by this builder (a query or form body, a path) or by Foundation's
    /// encoders (`.alphanumerics`, `.urlQueryAllowed`): the redactor hides a secret in each of these forms.
    package static let encodingSets = [queryAllowed, pathAllowed, foundationAlphanumerics, foundationQueryAllowed]

    private static func asciiSet(_ characters: String) -> [Bool] {
        var set = [Bool](repeating: false, count: 128)
        for byte in characters.utf8 { set[Int(byte)] = true }
        return set
    }

    /// `addingPercentEncoding(withAllowedCharacters:)` for an ASCII set, on UTF-8 bytes: the same output (`%XX`,
    /// upper-case hex, every non-ASCII byte encoded) without Foundation's round trip through CFString, which was a
    /// fifth of loading 2,000 targets.
    package static func percentEncoded(_ text: String, keeping allowed: [Bool]) -> String {
        // The bytes in place (every target's path and query): the `UTF8View` checked the string's form at each byte.
        var bytes = text
        let encoded = bytes.withUTF8 { percentEncoding($0, keeping: allowed) }
        return encoded.map { String(decoding: $0, as: UTF8.self) } ?? text
    }

    /// `percentEncoded(_:keeping:)` on UTF-8 bytes, appended to `output`: the redactor writes every form of a secret
    /// into one buffer, not an array each.
    package static func appendPercentEncoded(
        _ bytes: UnsafeBufferPointer<UInt8>, keeping allowed: [Bool], to output: inout [UInt8]
    ) {
        appendPercentEncoding(bytes, keeping: allowed, to: &output)
    }

    /// The encoded bytes, or `nil` when every byte is kept.
    private static func percentEncoding(_ text: some Collection<UInt8>, keeping allowed: [Bool]) -> [UInt8]? {
        if text.allSatisfy({ $0 < 128 && allowed[Int($0)] }) { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count * 3)
        appendPercentEncoding(text, keeping: allowed, to: &bytes)
        return bytes
    }

    /// Appends `text` with every byte not in `allowed` written as `%XX` (upper-case hex).
    private static func appendPercentEncoding(
        _ text: some Collection<UInt8>, keeping allowed: [Bool], to output: inout [UInt8]
    ) {
        for byte in text {
            if byte < 128 && allowed[Int(byte)] {
                output.append(byte)
            } else {
                output.append(UInt8(ascii: "%"))
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            }
        }
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)
}
