#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What `SpecDocument.match(method:url:)` found: the operation a request is for, or the nearest one for a "did you
/// mean".
public enum SpecMatch: Sendable {
    /// The request is for this operation.
    case found(SpecRoute)
    /// No operation has this method and path.
    case missing(SpecMiss)
}

/// A request matched to an operation.
public struct SpecRoute: Sendable {
    /// The operation.
    public var operation: SpecOperation
    /// Its index in the document's `operations`.
    public var index: Int
    /// The values of the path template's parameters, in template order, percent-decoded: `owner` = `apple`.
    public var pathParameters: [SpecPathValue]
    /// The server whose base path was stripped.
    public var server: SpecServer
    /// Whether the request's host is the server's (always true for a relative server URL). A request for another
    /// host (a staging copy, a mock on 127.0.0.1) still matches by path when no server has its host.
    public var isHostMatched: Bool
    /// The request's path after the server's base path: `/repos/apple/swift`.
    public var path: String
}

/// One path parameter's value.
public struct SpecPathValue: Sendable, Equatable {
    /// The parameter's name in the template: `owner`.
    public var name: String
    /// Its value in the request, percent-decoded: `apple`.
    public var value: String
}

/// A request that no operation matches, with the nearest operation.
public struct SpecMiss: Sendable, CustomStringConvertible {
    /// The request's method, upper-case.
    public var method: String
    /// The request's path after the server's base path (the whole path when no server's base path begins it).
    public var path: String
    /// The nearest operation: one with the same method first (when its path is close), then by path similarity;
    /// `nil` for a document without operations.
    public var suggestion: SpecOperation?
    /// The methods the document has on this very path, when it has the path with other methods: `["GET", "PATCH"]`.
    public var methodsAtPath: [String]
    /// The base paths of the document's servers, when none of them begins the request's path (`path` is then the
    /// whole path): `["/v1"]`. Empty when one does, or when a server has no path.
    public var serverPaths: [String] = []

    /// `the spec has no GET /users/octocat/repos; did you mean GET /users/{username}/repositories?`. A path under
    /// none of the servers says so, and the suggestion is then written with its server's path, where the request's
    /// differs: `the spec has no GET /v9/users/octocat (under none of its servers' paths: /v1); did you mean GET
    /// /v1/users/{username}?`.
    public var description: String {
        var text = "the spec has no \(method) \(path)"
        if !serverPaths.isEmpty {
            let shown = serverPaths.prefix(3).joined(separator: ", ") + (serverPaths.count > 3 ? ", …" : "")
            text += " (under none of its servers' paths: \(shown))"
        }
        if !methodsAtPath.isEmpty { text += " (it has \(methodsAtPath.joined(separator: ", ")) there)" }
        if let suggestion {
            let basePath = serverPaths.isEmpty ? "" : suggestion.servers.first?.basePath ?? ""
            text += "; did you mean \(suggestion.method) \(basePath)\(suggestion.path)?"
        }
        return text
    }
}

/// A path template split into segments, for matching.
struct SpecPathTemplate: Sendable {
    enum Part: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    /// Each segment's parts: `[.literal("repos")]`, `[.parameter("owner")]`, `[.parameter("name"), .literal(".json")]`.
    let segments: [[Part]]

    init(_ template: String) {
        segments = Self.segments(of: template).map(Self.parts)
    }

    /// The path's segments, split at `/` (a leading one dropped). On the UTF-8 bytes: splitting by `Character`
    /// (grapheme breaking) made the 1,576 templates of a large document 10 ms of its load.
    static func segments(of path: String) -> [String] {
        var bytes = Substring(path).utf8[...]
        if bytes.first == UInt8(ascii: "/") { bytes = bytes.dropFirst() }
        guard !bytes.isEmpty else { return [] }
        return bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
    }

    private static func parts(_ segment: String) -> [Part] {
        let bytes = Array(segment.utf8)
        func text(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }
        var parts: [Part] = []
        var literalStart = 0
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "{"),
                let close = bytes[(index + 1)...].firstIndex(of: UInt8(ascii: "}"))
            else {
                index += 1
                continue
            }
            if index > literalStart { parts.append(.literal(text(literalStart..<index))) }
            parts.append(.parameter(text((index + 1)..<close)))
            index = close + 1
            literalStart = index
        }
        if literalStart < bytes.count || parts.isEmpty { parts.append(.literal(text(literalStart..<bytes.count))) }
        return parts
    }

    /// The parameters' values when `segments` (percent-decoded) match, with the specificity of each segment (2 a
    /// literal, 1 a segment mixing text and parameters, 0 a whole-segment parameter), else `nil`.
    func match(_ request: [String]) -> (values: [SpecPathValue], specificity: [Int])? {
        guard request.count == segments.count else { return nil }
        var values: [SpecPathValue] = []
        var specificity: [Int] = []
        for (parts, text) in zip(segments, request) {
            if parts.count == 1, case .literal(let literal) = parts[0] {
                guard literal == text else { return nil }
                specificity.append(2)
            } else if parts.count == 1, case .parameter(let name) = parts[0] {
                guard !text.isEmpty else { return nil }
                values.append(SpecPathValue(name: name, value: text))
                specificity.append(0)
            } else {
                guard let found = Self.match(parts[...], Substring(text)) else { return nil }
                values += found
                specificity.append(1)
            }
        }
        return (values, specificity)
    }

    /// A segment of text and parameters (`{name}.json`, `v{major}.{minor}`): each parameter takes at least one
    /// character, the shortest that lets the rest match.
    private static func match(_ parts: ArraySlice<Part>, _ text: Substring) -> [SpecPathValue]? {
        guard let first = parts.first else { return text.isEmpty ? [] : nil }
        switch first {
        case .literal(let literal):
            guard text.hasPrefix(literal) else { return nil }
            return match(parts.dropFirst(), text.dropFirst(literal.count))
        case .parameter(let name):
            guard !text.isEmpty else { return nil }
            var end = text.index(after: text.startIndex)
            while true {
                if let rest = match(parts.dropFirst(), text[end...]) {
                    return [SpecPathValue(name: name, value: String(text[..<end]))] + rest
                }
                guard end < text.endIndex else { return nil }
                end = text.index(after: end)
            }
        }
    }

    /// What a request's segment costs against one of a template's segments, for `SpecRouteIndex.Distances`: nothing
    /// when the segment accepts it, else a literal's normalized character distance (0 to 1), 0.5 for a segment of
    /// text and parameters, 1 for an empty segment against a parameter.
    static func cost(_ parts: [Part], _ text: String) -> Double {
        if parts.count == 1, case .parameter = parts[0] { return text.isEmpty ? 1 : 0 }
        if parts.count == 1, case .literal(let literal) = parts[0] {
            if literal == text { return 0 }
            let longest = max(literal.count, text.count)
            return longest == 0 ? 0 : Double(SpecText.editDistance(literal, text)) / Double(longest)
        }
        return match(parts[...], Substring(text)) == nil ? 0.5 : 0
    }
}

/// The operations' path templates, and which operations a request's method and path can match, so that matching a
/// request looks at a few operations instead of all (a run of 4,000 targets against 4,000 operations took 4.6 s
/// when each request was tried against every operation).
struct SpecRouteIndex: Sendable {
    /// Each operation's template (the document's order).
    let templates: [SpecPathTemplate]
    /// Every base path of the operations' servers, each once.
    let basePaths: [String]
    /// Operations by method, segment count and first segment (`nil` when it is not a literal), in document order.
    private let buckets: [Key: [Int]]
    /// Each template's segments, as numbers of `distinctSegments`, one template after the other (operation `i`'s
    /// from `segmentStarts[i]` to `segmentStarts[i + 1]`): a "did you mean" computes what a request's segment costs
    /// against a segment once per request, not once per operation that has it.
    private let segmentNumbers: [Int]
    private let segmentStarts: [Int]
    /// Every segment written in a template, each once.
    private let distinctSegments: [[SpecPathTemplate.Part]]
    /// The length in characters of each of `distinctSegments` that is a literal, -1 for the others.
    private let literalLengths: [Int]
    /// The bytes of each of `distinctSegments` that is a literal of plain ASCII (a character per byte), one after the
    /// other: where each is in `literalBytes`, `nil` for the others.
    private let literalByteRanges: [Range<Int>?]
    private let literalBytes: [UInt8]
    /// Every server (host and base path) of the document and its operations, each once, the longest base path
    /// first.
    let servers: [(host: String?, basePath: String)]

    private struct Key: Hashable {
        var method: String
        var count: Int
        var first: String?
    }

    init(_ operations: [SpecOperation], servers documentServers: [SpecServer]) {
        templates = operations.map { SpecPathTemplate($0.path) }
        var basePaths: [String] = []
        var seen = Set<String>()
        var buckets: [Key: [Int]] = [:]
        var numbers: [String: Int] = [:]
        var segmentNumbers: [Int] = []
        var segmentStarts: [Int] = [0]
        var distinctSegments: [[SpecPathTemplate.Part]] = []
        var literalLengths: [Int] = []
        var literalByteRanges: [Range<Int>?] = []
        var literalBytes: [UInt8] = []
        var servers: [(host: String?, basePath: String)] = []
        var seenServers = Set<String>()
        for server in operations.flatMap(\.servers) + documentServers
        where seenServers.insert((server.host ?? "") + " " + server.basePath).inserted {
            servers.append((server.host, server.basePath))
        }
        for (index, operation) in operations.enumerated() {
            for server in operation.servers where seen.insert(server.basePath).inserted {
                basePaths.append(server.basePath)
            }
            let segments = templates[index].segments
            var first: String?
            if let parts = segments.first, parts.count == 1, case .literal(let literal) = parts[0] { first = literal }
            buckets[Key(method: operation.method, count: segments.count, first: first), default: []].append(index)
            segmentNumbers.append(
                contentsOf: zip(SpecPathTemplate.segments(of: operation.path), segments).map { text, parts in
                    if let number = numbers[text] { return number }
                    numbers[text] = distinctSegments.count
                    distinctSegments.append(parts)
                    if parts.count == 1, case .literal(let literal) = parts[0] {
                        literalLengths.append(literal.count)
                        if TetherCore.isPlainASCII(literal) {
                            literalBytes.append(contentsOf: literal.utf8)
                            literalByteRanges.append(literalBytes.count - literal.utf8.count..<literalBytes.count)
                        } else {
                            literalByteRanges.append(nil)
                        }
                    } else {
                        literalLengths.append(-1)
                        literalByteRanges.append(nil)
                    }
                    return distinctSegments.count - 1
                })
            segmentStarts.append(segmentNumbers.count)
        }
        self.basePaths = basePaths
        self.buckets = buckets
        self.segmentNumbers = segmentNumbers
        self.segmentStarts = segmentStarts
        self.distinctSegments = distinctSegments
        self.literalLengths = literalLengths
        self.literalByteRanges = literalByteRanges
        self.literalBytes = literalBytes
        self.servers = servers.sorted { $0.basePath.count > $1.basePath.count }
    }

    /// How far a request is from each operation's template, for a "did you mean": an edit distance over segments,
    /// where a segment the template accepts costs nothing and another costs its normalized character distance (0 to
    /// 1). What a request's segment costs against a template's segment is computed once per distinct segment, into
    /// one buffer for the request (a row of its own per segment was most of a miss's time: 4,000 allocations per
    /// request against 4,000 operations). An operation that cannot be nearer than the nearest so far is not measured
    /// further: first by its count of segments (each one more or less costs 1), then by a lower bound (instead of a
    /// literal's character distance, the characters one of the two texts has that the other lacks, or the difference
    /// of their lengths).
    struct Distances {
        private let routes: SpecRouteIndex
        private let request: [String]
        private let lengths: [Int]
        /// Each of the request's segments in bytes when it is plain ASCII.
        private let requestBytes: [[UInt8]?]
        /// A count per ASCII byte, all 0 between two uses.
        private var histogram: [Int]
        /// Row `number` (`request.count` values from `number * request.count`): what each of the request's segments
        /// costs against distinct segment `number`, or a lower bound of it, as `state[number]` says.
        private var values: [Double]
        /// Per distinct segment, the `Level` its row holds (0: nothing computed yet).
        private var state: [UInt8]
        private var previous: [Double]
        private var current: [Double]

        init(_ routes: SpecRouteIndex, request: [String]) {
            self.routes = routes
            self.request = request
            lengths = request.map(\.count)
            requestBytes = request.map { TetherCore.isPlainASCII($0) ? Array($0.utf8) : nil }
            histogram = Array(repeating: 0, count: 128)
            values = Array(repeating: 0, count: routes.distinctSegments.count * request.count)
            state = Array(repeating: 0, count: routes.distinctSegments.count)
            previous = Array(repeating: 0, count: request.count + 1)
            current = previous
        }

        /// Operation `index`'s distance, or `nil` when it cannot be below `limit`.
        mutating func distance(of index: Int, below limit: Double?) -> Double? {
            if let limit {
                let count = routes.segmentStarts[index + 1] - routes.segmentStarts[index]
                if Double(abs(count - request.count)) >= limit { return nil }
                if editDistance(index, .lengths) >= limit { return nil }
                if editDistance(index, .characters) >= limit { return nil }
            }
            return editDistance(index, .costs)
        }

        /// What a row of `values` holds, each level no more than the next: lower bounds from a literal's length
        /// (cheap), lower bounds from its characters, the costs.
        private enum Level: UInt8 {
            case lengths = 1
            case characters
            case costs
        }

        /// The edit distance over segments, with the rows at `level` or above.
        private mutating func editDistance(_ index: Int, _ level: Level) -> Double {
            let start = routes.segmentStarts[index]
            let m = request.count
            for j in 0...m { previous[j] = Double(j) }
            for i in stride(from: 1, through: routes.segmentStarts[index + 1] - start, by: 1) {
                let row = self.row(routes.segmentNumbers[start + i - 1], level)
                current[0] = Double(i)
                for j in stride(from: 1, through: m, by: 1) {
                    current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + values[row + j - 1])
                }
                swap(&previous, &current)
            }
            return previous[m]
        }

        /// Where a distinct segment's row starts in `values`, once it holds its costs against each of the request's
        /// segments or lower bounds of them, at `level` or above (so that a bound's edit distance is no more than the
        /// distance).
        private mutating func row(_ number: Int, _ level: Level) -> Int {
            let start = number * request.count
            if state[number] >= level.rawValue { return start }
            let parts = routes.distinctSegments[number]
            let length = routes.literalLengths[number]
            guard level != .costs, length >= 0, case .literal(let literal) = parts[0] else {
                for (j, text) in request.enumerated() { values[start + j] = SpecPathTemplate.cost(parts, text) }
                state[number] = Level.costs.rawValue
                return start
            }
            let bytes = routes.literalByteRanges[number]
            for (j, text) in request.enumerated() {
                let longest = max(length, lengths[j])
                if literal == text || longest == 0 {
                    values[start + j] = 0
                    continue
                }
                var lacking = abs(length - lengths[j])
                if level == .characters, let bytes, let other = requestBytes[j] { lacking = bagDistance(bytes, other) }
                values[start + j] = Double(max(1, lacking)) / Double(longest)
            }
            state[number] = level.rawValue
            return start
        }

        /// How many characters the literal's bytes at `range` have that `other` lacks, or `other` has that they lack,
        /// whichever is more (both plain ASCII): no more than their edit distance, since an edit changes each of the
        /// two counts by at most one.
        private mutating func bagDistance(_ range: Range<Int>, _ other: [UInt8]) -> Int {
            var more = 0
            var fewer = 0
            for index in range { histogram[Int(routes.literalBytes[index])] += 1 }
            for byte in other { histogram[Int(byte)] -= 1 }
            for index in range {
                let byte = Int(routes.literalBytes[index])
                more += max(0, histogram[byte])
                histogram[byte] = min(0, histogram[byte])
            }
            for byte in other {
                fewer -= min(0, histogram[Int(byte)])
                histogram[Int(byte)] = 0
            }
            return max(more, fewer)
        }
    }

    /// The operations whose template may match `segments` (decoded), in document order: of `method`, with as many
    /// segments, and whose first segment is the request's or not a literal.
    func candidates(method: String, segments: [String]) -> [Int] {
        let literal = segments.first.flatMap { buckets[Key(method: method, count: segments.count, first: $0)] } ?? []
        let other = buckets[Key(method: method, count: segments.count, first: nil)] ?? []
        if literal.isEmpty { return other }
        if other.isEmpty { return literal }
        return (literal + other).sorted()
    }
}

extension SpecDocument {
    /// Finds the operation for a request: strips a server's base path (3.x: any of the operation's servers; 2.0:
    /// `basePath`) from the URL's path, preferring servers of the URL's host, then matches the path templates (a
    /// literal segment beats a template; a template parameter matches one non-empty segment; a trailing `/` is
    /// tried without it when nothing matches with it).
    /// - Parameters:
    ///   - method: The request's method (any case).
    ///   - url: The request's absolute URL (a target's base URL and path), or a path alone.
    /// - Returns: The operation with the path parameters' values, or the nearest operation.
    public func match(method: String, url: String) -> SpecMatch {
        let method = method.uppercased()
        let (host, path) = Self.hostAndPath(url)
        if let route = route(method: method, host: host, path: path) { return .found(route) }
        return .missing(miss(method: method, host: host, path: path))
    }

    /// The operation for a request, as `match` finds it, without looking for the nearest when there is none.
    func route(method: String, url: String) -> SpecRoute? {
        let (host, path) = Self.hostAndPath(url)
        return route(method: method.uppercased(), host: host, path: path)
    }

    private func route(method: String, host: String?, path: String) -> SpecRoute? {
        for attempt in [path, path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : nil] {
            guard let attempt else { continue }
            // The best candidate by rank; of equal ranks, the first in document order (operation, then server).
            var best: (index: Int, server: Int, values: [SpecPathValue], rest: String, rank: [Int])?
            for basePath in routes.basePaths {
                guard let rest = Self.strip(basePath, from: attempt) else { continue }
                let segments = SpecPathTemplate.segments(of: rest).map(Self.decoded)
                for index in routes.candidates(method: method, segments: segments) {
                    guard let found = routes.templates[index].match(segments) else { continue }
                    for (serverIndex, server) in operations[index].servers.enumerated()
                    where server.basePath == basePath {
                        let hostMatched = server.host.map { Self.sameHost($0, host) } ?? true
                        let rank = [hostMatched ? 1 : 0] + found.specificity + [server.basePath.count]
                        let isBetter =
                            best.map {
                                $0.rank.lexicographicallyPrecedes(rank)
                                    || ($0.rank == rank && (index, serverIndex) < ($0.index, $0.server))
                            } ?? true
                        if isBetter { best = (index, serverIndex, found.values, rest, rank) }
                    }
                }
            }
            if let best {
                let server = operations[best.index].servers[best.server]
                return SpecRoute(
                    operation: operations[best.index], index: best.index, pathParameters: best.values,
                    server: server, isHostMatched: best.rank[0] == 1, path: best.rest)
            }
        }
        return nil
    }

    private func miss(method: String, host: String?, path: String) -> SpecMiss {
        // The path as the document would see it: after the base path of a server of this host, else of any server.
        let servers = routes.servers
        let underServer =
            servers.lazy.filter { $0.host.map { Self.sameHost($0, host) } ?? true }
            .compactMap { Self.strip($0.basePath, from: path) }.first
            ?? servers.lazy.compactMap { Self.strip($0.basePath, from: path) }.first
        let stripped = underServer ?? path
        let segments = SpecPathTemplate.segments(of: stripped).map(Self.decoded)
        var methodsAtPath: [String] = []
        var nearest: (index: Int, distance: Double)?
        var sameMethod: (index: Int, distance: Double)?
        var distances = SpecRouteIndex.Distances(routes, request: segments)
        for index in operations.indices {
            if routes.templates[index].match(segments) != nil, !methodsAtPath.contains(operations[index].method) {
                methodsAtPath.append(operations[index].method)
            }
            // Measured only when it can be nearer than the nearest so far (for an operation of the method: than the
            // nearest of the method, which is never nearer than the nearest). Of equal distances the first is kept.
            let limit = operations[index].method == method ? sameMethod?.distance : nearest?.distance
            guard let distance = distances.distance(of: index, below: limit) else { continue }
            if nearest.map({ distance < $0.distance }) ?? true { nearest = (index, distance) }
            if operations[index].method == method, sameMethod.map({ distance < $0.distance }) ?? true {
                sameMethod = (index, distance)
            }
        }
        // The same method first, when its path is about as close as any (within one segment's worth).
        var suggestion = nearest.map { operations[$0.index] }
        if let sameMethod, let nearest, sameMethod.distance <= nearest.distance + 1 {
            suggestion = operations[sameMethod.index]
        }
        // The operations' servers' paths, as the match tried them (none is empty: it would have begun the path).
        let serverPaths = underServer == nil ? routes.basePaths : []
        return SpecMiss(
            method: method, path: stripped.isEmpty ? "/" : stripped, suggestion: suggestion,
            methodsAtPath: methodsAtPath, serverPaths: serverPaths)
    }

    /// The host (and port) of an absolute URL, lower-case, and its path (still percent-encoded); a path alone has no
    /// host.
    static func hostAndPath(_ url: String) -> (host: String?, path: String) {
        var rest = Substring(url)
        if let query = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<query] }
        guard let scheme = rest.rangeOfText("://") else { return (nil, rest.isEmpty ? "/" : String(rest)) }
        rest = rest[scheme.upperBound...]
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        var host = Substring(rest[..<slash])
        if let at = host.lastIndex(of: "@") { host = host[host.index(after: at)...] }
        let path = String(rest[slash...])
        return (host.lowercased(), path.isEmpty ? "/" : path)
    }

    /// The same host, ports compared only when both have one.
    static func sameHost(_ server: String, _ request: String?) -> Bool {
        guard let request else { return false }
        if server == request { return true }
        func name(_ host: String) -> Substring {
            host.hasSuffix("]") ? Substring(host) : host.split(separator: ":", maxSplits: 1).first ?? Substring(host)
        }
        let serverHasPort = name(server).count != server.count
        let requestHasPort = name(request).count != request.count
        return name(server) == name(request) && !(serverHasPort && requestHasPort)
    }

    /// `path` without `basePath` at a segment boundary (`/v1/users` less `/v1` is `/users`), else `nil`.
    static func strip(_ basePath: String, from path: String) -> String? {
        guard !basePath.isEmpty else { return path }
        guard path.hasPrefix(basePath) else { return nil }
        let rest = String(path.dropFirst(basePath.count))
        guard rest.isEmpty || rest.hasPrefix("/") else { return nil }
        return rest.isEmpty ? "/" : rest
    }

    static func decoded(_ segment: String) -> String { segment.percentDecoded ?? segment }
}
