/// One thing a check found: a drift (the contract does not hold) or a note (worth knowing, not failing).
///
/// A finding carries its rule and its location as typed values, and its message is built from them next to the
/// check that finds it. Baseline keys (`BaselineGate`), the HTML report's highlights and the JSON lines read the
/// fields; nothing reads the message back.
public struct Finding: Sendable, Equatable, CustomStringConvertible {
    /// Whether a finding breaks the contract or only informs.
    public enum Kind: Sendable, Equatable {
        case drift
        case note
    }

    /// A drift (the contract does not hold) or a note.
    public var kind: Kind
    /// Which rule found it.
    public var rule: Rule
    /// Where: the status, a header, the body, a place in a JSON or XML body, or the target itself.
    public var location: Location
    /// What, built next to the rule that found it: `expected string, got number 12`.
    public var message: String
    /// What the stub asked for, for tools (`--json`) and baseline keys: `string`, `200`, `absent`; `nil` when the
    /// rule has no two sides (a note, a body that is not JSON).
    public var expected: String?
    /// What the live answer had: `number 12`, `404`, `absent`, `null`.
    public var actual: String?
    /// Which of stub, spec and service is wrong, when a run checks against an OpenAPI document (`--spec`); `nil`
    /// otherwise.
    public var culprit: Culprit?
    /// Where in the OpenAPI document the rule the finding breaks is written (`openapi.yaml:812:9`,
    /// `#/components/schemas/pr/properties/state/enum`), for a finding against a spec.
    public var specPlace: SpecPlace?

    /// - Parameters:
    ///   - kind: Drift or note.
    ///   - rule: The rule that found it.
    ///   - location: Where.
    ///   - message: What and what to do, lower case.
    ///   - expected: What the stub asked for, when the rule compares two sides.
    ///   - actual: What the live answer had.
    ///   - culprit: Which side is wrong, for a finding against a spec.
    ///   - specPlace: Where the spec writes the rule, for a finding against a spec.
    public init(
        _ kind: Kind, _ rule: Rule, at location: Location, _ message: String, expected: String? = nil,
        actual: String? = nil, culprit: Culprit? = nil, specPlace: SpecPlace? = nil
    ) {
        self.kind = kind
        self.rule = rule
        self.location = location
        self.message = message
        self.expected = expected
        self.actual = actual
        self.culprit = culprit
        self.specPlace = specPlace
    }

    /// Whether this finding breaks the contract.
    public var isDrift: Bool { kind == .drift }
    /// Where, as every report prints it: `status`, `header Content-Type`, `body`, `$.items[3].price`,
    /// `/feed/entry[2]/title`, `target`.
    public var path: String { location.description }
    /// `$.items[0].id: expected integer, got string "7": …`; against a spec, with the culprit first:
    /// `stale stub: $.state: expected one of ["open","closed"], got "merged" (openapi.yaml:812:9 #/…/state/enum)`.
    public var description: String {
        guard let culprit else { return "\(path): \(message)" }
        return "\(culprit.words): \(path): \(message)"
    }

    /// Which of the three sides of a contract is wrong when a stub, the provider's OpenAPI document and the live
    /// service disagree.
    public enum Culprit: String, Sendable, CaseIterable {
        /// The stub: it breaks the spec, or it differs from a live answer that fits the spec. Update the stub.
        case stub
        /// The service: its answer breaks the spec the stub follows. Tell the backend team.
        case service
        /// The spec: stub and service agree on what the spec does not say. Update the document.
        case spec

        /// `stale stub`, `service breaks its spec`, `spec out of date`: how the console and the reports say it.
        public var words: String {
            switch self {
            case .stub: "stale stub"
            case .service: "service breaks its spec"
            case .spec: "spec out of date"
            }
        }
    }
}

extension Finding {
    /// The rules a finding can come from, by the part of the answer they read.
    public enum Rule: String, Sendable, CaseIterable {
        // The status and the headers.
        /// The live status is not the stub's.
        case status
        /// The live status is not one of the target's `rules.status`.
        case allowedStatus
        /// The live status is outside the target's `validationType`.
        case validationType
        /// A header the stub has is missing.
        case missingHeader
        /// A header the stub has has another value.
        case header

        // The body as a whole.
        /// The body was not compared: the status differs, a HEAD answer, a stub without a body (a note).
        case notCompared
        /// The stub is JSON; the body is empty, text, or not UTF-8.
        case notJSON
        /// A JSON body nested deeper than the parser's limit.
        case tooDeep
        /// A number beyond 64 bits, or one no `Double` holds.
        case numberOutOfRange
        /// A body larger than the JSON parser handles, or one that ran out of memory.
        case tooLarge
        /// The stub has text; the body is empty.
        case emptyBody
        /// The stub is text; the body is JSON.
        case unexpectedJSON
        /// `--exhaustive`: the stub asserts nothing about the body.
        case noBodyContract

        // A JSON body's structure (`ShapeCheck`).
        /// A value of another type than the stub's.
        case type
        /// A fraction where the stub has an integer.
        case integer
        /// A `null` where the stub has a value.
        case null
        /// A key of the stub that the body lacks.
        case missingKey
        /// A key of the body that the stub lacks (a note, or a drift when strict).
        case extraKey
        /// The stub has `null` here: any value is accepted (a note).
        case stubNull
        /// The stub's array is empty: the elements are not checked (a note).
        case emptyStubArray
        /// A stub object has a key twice: `JSONDecoder` reads the first value, `JSONSerialization` the last.
        case repeatedKey
        /// A value outside its `rules.formats` format (date-time, uuid, int32, …).
        case format
        /// A value not among its `rules.values`.
        case value

        // An XML body's structure (`XMLShape`).
        /// The stub is declared XML but is not XML Tether reads.
        case stubNotXML
        /// The stub is XML; the body is empty, not well-formed, or has no root element.
        case notXML
        /// The body declares entities in its DTD (refused, never expanded).
        case xmlEntities
        /// Another root element than the stub's.
        case rootElement
        /// An attribute of the stub that the element lacks.
        case missingAttribute
        /// An attribute the stub lacks (a note, or a drift when strict).
        case extraAttribute
        /// Text where the stub has child elements, or child elements where it has text.
        case content
        /// An element of the stub's name in another namespace.
        case namespace
        /// An element of the stub that the body lacks.
        case missingElement
        /// An element the stub lacks (a note, or a drift when strict).
        case extraElement

        // The provider's OpenAPI document (`--spec`).
        /// The spec has no operation for the target's method and path.
        case specOperation
        /// A query or header parameter the operation requires is missing, undeclared, or outside its schema.
        case specParameter
        /// The request body is missing, or does not fit the operation's `requestBody`.
        case specRequestBody
        /// The operation documents no response for the status (no exact code, range or `default`).
        case specStatus
        /// A response header the spec requires is missing, or its value is outside its schema.
        case specHeader
        /// The body is not of a media type the response documents.
        case specMediaType
        /// A value breaks the response's (or request's) schema: the keyword is in `expected`.
        case specSchema
        /// A part of the spec that Tether does not check (a note: never a silent pass).
        case specNotChecked

        // The Swift API.
        /// The app's `Decodable` model does not decode the body (the decode check).
        case decode
        /// A case of a `CaseIterable` target type that an exhaustive verification left out.
        case notVerified
    }

    /// Where a finding points.
    public enum Location: Sendable, Hashable, CustomStringConvertible {
        /// The status code.
        case status
        /// The header of this name.
        case header(String)
        /// The query parameter of this name.
        case query(String)
        /// The body as a whole.
        case body
        /// A place in a JSON body.
        case json(JSONLocation)
        /// A place in an XML body.
        case xml(XMLLocation)
        /// The target itself (not verified at all).
        case target

        /// `status`, `header Content-Type`, `body`, `$.items[3].price`, `/feed/entry[2]/title`, `target`.
        public var description: String {
            switch self {
            case .status: "status"
            case .header(let name): "header \(name)"
            case .query(let name): "query \(name)"
            case .body: "body"
            case .json(let location): location.description
            case .xml(let location): location.description
            case .target: "target"
            }
        }

        /// The same place in any element of the arrays (or repeated elements) on the way, as a baseline keeps it:
        /// `$.items[*].price`, `/feed/entry[*]/title` (which element drifts first depends on the live data).
        public var anyElement: String {
            switch self {
            case .json(let location): location.anyElement
            case .xml(let location): location.anyElement
            default: description
            }
        }
    }
}

/// A place in a JSON body: the keys and indices from the root, written `$.items[3].price` or `$["a b"]`.
public struct JSONLocation: Sendable, Hashable, CustomStringConvertible {
    /// One step down from a container.
    public enum Component: Sendable, Hashable {
        /// A member of an object.
        case key(String)
        /// An element of an array, from 0.
        case index(Int)
    }

    /// From the root down; empty for the root itself.
    public var components: [Component]

    /// - Parameter components: From the root down.
    public init(_ components: [Component] = []) {
        self.components = components
    }

    /// The root, `$`.
    public static let root = JSONLocation()

    /// `$.items[3].price`.
    public var description: String { Self.text(components, anyElement: false) }

    /// `$.items[*].price`: every index as `[*]`.
    public var anyElement: String { Self.text(components, anyElement: true) }

    /// Every container on the way to this place, as `description` writes them: `$`, `$.items`, `$.items[3]` for
    /// `$.items[3].price`.
    public var ancestors: [String] {
        var texts = ["$"]
        var path = "$"
        for component in components.dropLast() {
            Self.append(component, to: &path, anyElement: false)
            texts.append(path)
        }
        return components.isEmpty ? [] : texts
    }

    /// This place, then `key`.
    public func appending(key: String) -> JSONLocation { JSONLocation(components + [.key(key)]) }

    /// This place, then element `index`.
    public func appending(index: Int) -> JSONLocation { JSONLocation(components + [.index(index)]) }

    private static func text(_ components: [Component], anyElement: Bool) -> String {
        var path = "$"
        for component in components { append(component, to: &path, anyElement: anyElement) }
        return path
    }

    private static func append(_ component: Component, to path: inout String, anyElement: Bool) {
        switch component {
        case .key(let key): JSONPath.appendKey(key, to: &path)
        case .index(let index): path += anyElement ? "[*]" : "[\(index)]"
        }
    }
}

/// A place in an XML body: element steps from the root (with a 1-based position among same-named siblings when
/// there are several), then perhaps an attribute: `/feed/entry[2]/title`, `/feed/@xml:lang`.
public struct XMLLocation: Sendable, Hashable, CustomStringConvertible {
    /// One element on the way down.
    public struct Step: Sendable, Hashable {
        /// The element's name as the stub writes it (`title`, `atom:link`).
        public var name: String
        /// Its position among the siblings of the same name, from 1, when there are several.
        public var position: Int?

        /// - Parameters: as the properties.
        public init(name: String, position: Int? = nil) {
            self.name = name
            self.position = position
        }

        /// The name without its prefix: `link` for `atom:link`.
        public var localName: String { name.split(separator: ":").last.map(String.init) ?? name }
    }

    /// From the root element down.
    public var steps: [Step]
    /// The attribute, when the place is one.
    public var attribute: String?

    /// - Parameters: as the properties.
    public init(steps: [Step], attribute: String? = nil) {
        self.steps = steps
        self.attribute = attribute
    }

    /// `/feed/entry[2]/title`, `/feed/@xml:lang`.
    public var description: String { text(anyElement: false) }

    /// `/feed/entry[*]/title`: every position as `[*]`.
    public var anyElement: String { text(anyElement: true) }

    /// This element's child `name` (at `position` among its namesakes, when there are several).
    public func appending(_ name: String, position: Int? = nil) -> XMLLocation {
        XMLLocation(steps: steps + [Step(name: name, position: position)])
    }

    /// This element's attribute `name`.
    public func attribute(_ name: String) -> XMLLocation { XMLLocation(steps: steps, attribute: name) }

    private func text(anyElement: Bool) -> String {
        var path = ""
        for step in steps {
            path += "/" + step.name
            if let position = step.position { path += anyElement ? "[*]" : "[\(position)]" }
        }
        if let attribute { path += "/@" + attribute }
        return path
    }
}

extension Finding {
    /// The findings as reports print them: each one repeated across array (or repeated-element) items carries
    /// `… and in N more elements`, then its hint (`: make the property optional, or fix the stub`). The JSON and XML
    /// structure walks both count repeats and keep hints apart from the message until the walk ends.
    /// - Parameters:
    ///   - findings: The findings, in the order found.
    ///   - repeats: For each finding, how many further items it was found in.
    ///   - hints: For each finding, what to do, or `nil`.
    /// - Returns: The findings with their messages completed.
    static func completed(_ findings: [Finding], repeats: [Int], hints: [String?]) -> [Finding] {
        var result = findings
        for (offset, count) in repeats.enumerated() where count > 0 {
            result[offset].message += " … and in \(count) more element\(count == 1 ? "" : "s")"
        }
        for (offset, hint) in hints.enumerated() {
            if let hint { result[offset].message += ": " + hint }
        }
        return result
    }
}
