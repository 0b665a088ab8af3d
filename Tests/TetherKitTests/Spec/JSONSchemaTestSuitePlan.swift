/// Which files of the JSON-Schema-Test-Suite run, and every file, group or case skipped with its reason. Draft 4 is
/// read as OpenAPI 3.0's dialect, draft 2020-12 as 3.1's. `JSONSchemaTestSuiteTests` fails on a file the plan does
/// not name and on a skip that names no group or case of its file; it writes the table in the fixture's
/// `RESULTS.md`.
enum JSONSchemaTestSuitePlan {
    enum Entry {
        /// Run every case but the skipped ones.
        case run([Skip])
        /// Not run, for the reason given.
        case skip(String)
        /// Not run: the file is about keywords the check does not check. The test checks instead that each group
        /// whose schema has one of them gets a "not checked" note for it (never a silent pass).
        case unchecked([String], String)
    }

    /// A group (all its cases, when `test` is `nil`) or one case, skipped.
    struct Skip {
        var group: String
        var test: String?
        var reason: String

        /// A whole group.
        init(_ group: String, _ reason: String) {
            self.group = group
            self.test = nil
            self.reason = reason
        }

        /// One case of a group.
        init(_ group: String, _ test: String, _ reason: String) {
            self.group = group
            self.test = test
            self.reason = reason
        }
    }

    static let plan: [String: [String: Entry]] = ["draft4": draft4, "draft2020-12": draft2020]

    // MARK: Reasons

    static let remote =
        "remote $refs to http://localhost:1234, which the suite's runner serves from its remotes folder: the check "
        + "resolves references through the spec reader, which reads the document's own files, never a URL"
    static let metaSchema =
        "validates against the meta-schema by its URL (json-schema.org), which a test on 127.0.0.1 does not fetch"
    static let baseURI =
        "base URIs and location-independent identifiers (id, $id, $anchor): an OpenAPI document's references are "
        + "JSON pointers into its files; id/$id is reported as not checked"
    static let tuple =
        "the list (tuple) form of items and additionalItems: OpenAPI 3.0's items is one schema (reported as not "
        + "checked)"
    static let bignum = "integers beyond 64 bits, which Tether's JSON reader refuses (number out of range)"
    static let leapSecond =
        "a leap second at any time of day: the date-time format is ContractRules' (one definition for rules and "
        + "schemas), which accepts :60 without checking that the time is 23:59 UTC"
    static let email =
        "the email format is ContractRules' (local@domain with a dot in the domain: the address an app sends mail "
        + "to), not every form RFC 5321 allows"
    static let uri =
        "the uri format is ContractRules' (a scheme, then characters a URI may hold): it does not parse the "
        + "authority (userinfo, port, IP literals) or refuse brackets in a path"
    static let annotation =
        "Tether asserts format, as OpenAPI users expect of date-time, uuid and the rest; JSON Schema 2020-12 makes "
        + "format an annotation unless a vocabulary asks for assertion"
    static let unevaluated = "needs unevaluatedProperties, a keyword Tether does not check"

    static func unsupportedFormat(_ name: String) -> String {
        "format \"\(name)\" is not one Tether checks (date-time, date, uuid, uri, email, int32, int64, float, double)"
    }

    static func keyword(_ names: String) -> String { "\(names): not keywords Tether checks" }

    // MARK: Draft 4, as OpenAPI 3.0's dialect

    static let draft4: [String: Entry] = [
        "additionalItems.json": .unchecked(["additionalItems", "items"], tuple),
        "additionalProperties.json": .run([]),
        "allOf.json": .run([]),
        "anyOf.json": .run([]),
        "default.json": .run([]),
        "definitions.json": .skip(metaSchema),
        "dependencies.json": .unchecked(["dependencies"], keyword("dependencies (not in OpenAPI 3.0)")),
        "enum.json": .run([]),
        "format.json": .run([]),
        "infinite-loop-detection.json": .run([]),
        "items.json": .run([
            Skip("an array of schemas for items", tuple),
            Skip("items and subitems", tuple),
            Skip("array-form items with null instance elements", tuple),
        ]),
        "maxItems.json": .run([]),
        "maxLength.json": .run([]),
        "maxProperties.json": .run([]),
        "maximum.json": .run([]),
        "minItems.json": .run([]),
        "minLength.json": .run([]),
        "minProperties.json": .run([]),
        "minimum.json": .run([]),
        "multipleOf.json": .run([]),
        "not.json": .run([]),
        "oneOf.json": .run([]),
        "optional/bignum.json": .skip(bignum),
        "optional/ecmascript-regex.json": .run([]),
        "optional/float-overflow.json": .run([]),
        "optional/format/date-time.json": .run([
            Skip(
                "validation of date-time strings", "an invalid date-time with leap second on a wrong minute, UTC",
                leapSecond),
            Skip(
                "validation of date-time strings", "an invalid date-time with leap second on a wrong hour, UTC",
                leapSecond),
        ]),
        "optional/format/email.json": .run([
            Skip("validation of e-mail addresses", "dot before local part is not valid", email),
            Skip("validation of e-mail addresses", "dot after local part is not valid", email),
            Skip("validation of e-mail addresses", "two subsequent dots inside local part are not valid", email),
        ]),
        "optional/format/hostname.json": .unchecked(["format"], unsupportedFormat("hostname")),
        "optional/format/ipv4.json": .unchecked(["format"], unsupportedFormat("ipv4")),
        "optional/format/ipv6.json": .unchecked(["format"], unsupportedFormat("ipv6")),
        "optional/format/unknown.json": .run([]),
        "optional/format/uri.json": .run([
            Skip("validation of URIs", "invalid userinfo", uri),
            Skip("validation of URIs", "non-numeric port is invalid", uri),
            Skip("validation of URIs", "leading zero in an embedded IPv4 address is invalid", uri),
            Skip("validation of URIs", "square brackets are not allowed in a path segment", uri),
        ]),
        "optional/id.json": .skip(baseURI),
        "optional/non-bmp-regex.json": .run([]),
        "optional/zeroTerminatedFloats.json": .run([]),
        "pattern.json": .run([]),
        "patternProperties.json": .run([]),
        "properties.json": .run([]),
        "ref.json": .run([
            Skip("relative pointer ref to array", tuple),
            Skip("$ref prevents a sibling id from changing the base uri", baseURI),
            Skip("remote ref, containing refs itself", metaSchema),
            Skip("Recursive references between schemas", baseURI),
            Skip("Location-independent identifier", baseURI),
            Skip("Location-independent identifier with base URI change in subschema", baseURI),
            Skip("id must be resolved against nearest parent, not just immediate parent", baseURI),
        ]),
        "refRemote.json": .skip(remote),
        "required.json": .run([]),
        "type.json": .run([]),
        "uniqueItems.json": .run([
            Skip("uniqueItems with an array of items and additionalItems=false", tuple),
            Skip("uniqueItems=false with an array of items and additionalItems=false", tuple),
        ]),
    ]

    // MARK: Draft 2020-12, as OpenAPI 3.1's dialect

    static let draft2020: [String: Entry] = [
        "additionalProperties.json": .run([]),
        "allOf.json": .run([]),
        "anchor.json": .skip(baseURI),
        "anyOf.json": .run([]),
        "boolean_schema.json": .run([]),
        "const.json": .run([]),
        "contains.json": .unchecked(["contains"], keyword("contains")),
        "content.json": .run([]),
        "default.json": .run([]),
        "defs.json": .skip(metaSchema),
        "dependentRequired.json": .unchecked(["dependentRequired"], keyword("dependentRequired")),
        "dependentSchemas.json": .unchecked(["dependentSchemas"], keyword("dependentSchemas")),
        "dynamicRef.json": .unchecked(["$dynamicRef"], keyword("$dynamicRef")),
        "enum.json": .run([]),
        "exclusiveMaximum.json": .run([]),
        "exclusiveMinimum.json": .run([]),
        "format.json": .run([
            Skip("email format", "invalid email string is only an annotation by default", annotation),
            Skip("date format", "invalid date string is only an annotation by default", annotation),
            Skip("date-time format", "invalid date-time string is only an annotation by default", annotation),
            Skip("uri format", "invalid uri string is only an annotation by default", annotation),
            Skip("uuid format", "invalid uuid string is only an annotation by default", annotation),
        ]),
        "if-then-else.json": .unchecked(["if", "then", "else"], keyword("if, then and else")),
        "infinite-loop-detection.json": .run([]),
        "items.json": .run([]),
        "maxContains.json": .unchecked(["maxContains", "contains"], keyword("maxContains and contains")),
        "maxItems.json": .run([]),
        "maxLength.json": .run([]),
        "maxProperties.json": .run([]),
        "maximum.json": .run([]),
        "minContains.json": .unchecked(["minContains", "contains"], keyword("minContains and contains")),
        "minItems.json": .run([]),
        "minLength.json": .run([]),
        "minProperties.json": .run([]),
        "minimum.json": .run([]),
        "multipleOf.json": .run([]),
        "not.json": .run([
            Skip("collect annotations inside a 'not', even if collection is disabled", unevaluated)
        ]),
        "oneOf.json": .run([]),
        "optional/anchor.json": .skip(baseURI),
        "optional/bignum.json": .skip(bignum),
        "optional/cross-draft.json": .skip(remote),
        "optional/dependencies-compatibility.json": .unchecked(
            ["dependencies"], keyword("dependencies (draft 7's, not 2020-12's)")),
        "optional/dynamicRef.json": .unchecked(["$dynamicRef"], keyword("$dynamicRef")),
        "optional/ecmascript-regex.json": .run([]),
        "optional/float-overflow.json": .run([]),
        "optional/format-assertion.json": .skip(
            "a custom meta-schema by its URL (vocabularies): a test on 127.0.0.1 does not fetch it"),
        "optional/format/date-time.json": .run([
            Skip(
                "validation of date-time strings", "an invalid date-time with leap second on a wrong minute, UTC",
                leapSecond),
            Skip(
                "validation of date-time strings", "an invalid date-time with leap second on a wrong hour, UTC",
                leapSecond),
        ]),
        "optional/format/date.json": .run([]),
        "optional/format/duration.json": .unchecked(["format"], unsupportedFormat("duration")),
        "optional/format/ecmascript-regex.json": .unchecked(["format"], unsupportedFormat("regex")),
        "optional/format/email.json": .run([
            Skip("validation of e-mail addresses", "a quoted string with a space in the local part is valid", email),
            Skip("validation of e-mail addresses", "a quoted string with a @ in the local part is valid", email),
            Skip("validation of e-mail addresses", "an IPv4-address-literal after the @ is valid", email),
            Skip("validation of e-mail addresses", "an IPv6-address-literal after the @ is valid", email),
            Skip("validation of e-mail addresses", "dot before local part is not valid", email),
            Skip("validation of e-mail addresses", "dot after local part is not valid", email),
            Skip("validation of e-mail addresses", "two subsequent dots inside local part are not valid", email),
        ]),
        "optional/format/hostname.json": .unchecked(["format"], unsupportedFormat("hostname")),
        "optional/format/idn-email.json": .unchecked(["format"], unsupportedFormat("idn-email")),
        "optional/format/idn-hostname.json": .unchecked(["format"], unsupportedFormat("idn-hostname")),
        "optional/format/ipv4.json": .unchecked(["format"], unsupportedFormat("ipv4")),
        "optional/format/ipv6.json": .unchecked(["format"], unsupportedFormat("ipv6")),
        "optional/format/iri-reference.json": .unchecked(["format"], unsupportedFormat("iri-reference")),
        "optional/format/iri.json": .unchecked(["format"], unsupportedFormat("iri")),
        "optional/format/json-pointer.json": .unchecked(["format"], unsupportedFormat("json-pointer")),
        "optional/format/regex.json": .unchecked(["format"], unsupportedFormat("regex")),
        "optional/format/relative-json-pointer.json": .unchecked(
            ["format"], unsupportedFormat("relative-json-pointer")),
        "optional/format/time.json": .unchecked(["format"], unsupportedFormat("time")),
        "optional/format/unknown.json": .run([]),
        "optional/format/uri-reference.json": .unchecked(["format"], unsupportedFormat("uri-reference")),
        "optional/format/uri-template.json": .unchecked(["format"], unsupportedFormat("uri-template")),
        "optional/format/uri.json": .run([
            Skip("validation of URIs", "invalid userinfo", uri),
            Skip("validation of URIs", "non-numeric port is invalid", uri),
            Skip("validation of URIs", "leading zero in an embedded IPv4 address is invalid", uri),
            Skip("validation of URIs", "square brackets are not allowed in a path segment", uri),
        ]),
        "optional/format/uuid.json": .run([]),
        "optional/id.json": .skip(baseURI),
        "optional/no-schema.json": .run([]),
        "optional/non-bmp-regex.json": .run([]),
        "optional/refOfUnknownKeyword.json": .run([]),
        "optional/unknownKeyword.json": .skip(baseURI),
        "pattern.json": .run([]),
        "patternProperties.json": .run([]),
        "prefixItems.json": .run([]),
        "properties.json": .run([]),
        "propertyNames.json": .unchecked(["propertyNames"], keyword("propertyNames")),
        "ref.json": .run([
            Skip("remote ref, containing refs itself", metaSchema),
            Skip("Recursive references between schemas", baseURI),
            Skip("ref creates new scope when adjacent to keywords", unevaluated),
            Skip("refs with relative uris and defs", baseURI),
            Skip("relative refs with absolute uris and defs", baseURI),
            Skip("$id must be resolved against nearest parent, not just immediate parent", baseURI),
            Skip("order of evaluation: $id and $ref", baseURI),
            Skip("order of evaluation: $id and $anchor and $ref", baseURI),
            Skip("order of evaluation: $id and $ref on nested schema", baseURI),
            Skip("simple URN base URI with $ref via the URN", baseURI),
            Skip("URN base URI with URN and JSON pointer ref", baseURI),
            Skip("URN base URI with URN and anchor ref", baseURI),
            Skip("URN ref with nested pointer ref", baseURI),
            Skip("ref to if", baseURI + "; and if/then/else, not checked"),
            Skip("ref to then", baseURI + "; and if/then/else, not checked"),
            Skip("ref to else", baseURI + "; and if/then/else, not checked"),
            Skip("ref with absolute-path-reference", baseURI),
        ]),
        "refRemote.json": .skip(remote),
        "required.json": .run([]),
        "type.json": .run([]),
        "unevaluatedItems.json": .unchecked(["unevaluatedItems"], keyword("unevaluatedItems")),
        "unevaluatedProperties.json": .unchecked(["unevaluatedProperties"], keyword("unevaluatedProperties")),
        "uniqueItems.json": .run([]),
        "vocabulary.json": .skip(
            "a custom meta-schema by its URL (vocabularies): a test on 127.0.0.1 does not fetch it"),
    ]
}
