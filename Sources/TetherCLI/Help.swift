import TetherKit

/// The help texts: prose written here, usage lines and option sections generated from the command and option tables
/// (`TetherCommand`, `verifyOptions`, `mockOptions`), so they cannot drift from what the parser accepts.
enum Help {
    /// `tether --help`.
    static let main: String = """
        tether \(tetherVersion): check that your Moya stubs still match the real API.

        Tether takes each stub (sampleData, its status code, its headers) as a contract, calls the live service or a
        mock of it, compares the status code and the JSON structure (keys, types, nulls, array elements; not values),
        and writes JUnit XML for your CI dashboard.

        USAGE
        \(HelpLayout.table(TetherCommand.all.map { HelpLayout.Row(label: $0.usage, text: $0.summary) }))

        EXAMPLES
          tether verify                                   every manifest in contracts/, against the live services
          tether verify --mock contracts/github.har       offline, against responses recorded in a HAR file
          tether verify --base-url http://127.0.0.1:4010  every service against a local mock (Prism, WireMock, …)

        EXIT CODES
          0  every contract holds
          1  at least one stub drifted from the live service (not counting drift known to --baseline, or of a
             pending target)
          2  usage error, broken contract or baseline file (nothing was sent)
          3  no drift, but some targets could not be checked (connection refused, timeout, TLS, …), or with
             --fail-on-flaky some passed only after a retry
          4  nothing was checked: every target was skipped or could not be checked
          130, 143  stopped by Ctrl-C or SIGTERM (the report holds what finished; Ctrl-C again quits at once)

        Run 'tether verify --help' for the options and the contract format.
        """

    /// `tether verify --help`.
    static let verify: String = """
        USAGE
          \(TetherCommand.verify.usage)

        PATH is a contract manifest (a JSON file with "targets") or a folder searched for them; default: contracts.

        \(verifyOptions.helpSections())

        CONTRACTS (contracts/github.json)
          {
            "service": "GitHub",
            "baseURL": "https://api.github.com",
            "headers": { "Authorization": "Bearer ${GITHUB_TOKEN}" },
            "targets": [
              { "name": "userRepositories", "method": "GET", "path": "/users/octocat/repos",
                "query": { "per_page": "2" },
                "sampleData": { "file": "samples/userRepositories.json" } },
              { "name": "unauthorized", "path": "/user", "headers": { "Authorization": null },
                "sampleData": { "json": { "message": "Requires authentication" } },
                "sampleResponse": { "networkResponse": { "statusCode": 401 } } }
            ]
          }
        sampleData: {"file": PATH} | {"json": VALUE} | {"text": "..."} | {"base64": "..."}; absent means Data().
        sampleResponse: {"networkResponse": {"statusCode": N}} (default 200) | {"response": {"statusCode": N,
          "headers": {...}}} | {"networkError": {"code": N, "description": "..."}} (reported as skipped).
        task: "requestPlain" | {"requestData": {"text"|"base64": ...}} | {"requestJSONEncodable": VALUE} |
          {"requestParameters": {"parameters": {...}, "encoding": "url"|"queryString"|"httpBody"|"json"}} |
          {"requestCompositeData": ...} | {"requestCompositeParameters": ...}
        "pending": true on a target: reported, but not failing the gate until it has passed once (see GATE).
        XML bodies: a stub whose Content-Type is application/xml, text/xml or +xml, a .xml sample file, or a sample
          file that parses as XML is compared by structure (elements by namespace URI, attributes present, text vs
          elements, repeated elements merged) at paths like /feed/entry[3]/title; entities are never expanded, DTDs
          never loaded, and a document declaring entities is refused.
        ${VAR} (or ${VAR:-default}) expands from the environment; values of 6+ characters and credentials in
        Authorization, Cookie and similar headers are shown as <redacted> in every report.
        """

    /// `tether update --help`.
    static let update: String = """
        USAGE
          \(TetherCommand.update.usage)

        Runs the contracts as 'tether verify' does (same PATH and options), then rewrites the stub of every target
        whose JSON body drifted so that it holds, as a minimal change of its file: a missing key is removed, a type
        drift or a live null takes the live value, an array element takes the live elements' shape, extra live keys
        are added only with --strict; everything else keeps its curated value and every other byte of the file (its
        indent, key order, number spellings, trailing newline) stays. Inline {"json": ...} samples are edited inside
        the manifest. Live strings pass the same redaction as reports. Status, header, text and networkError stubs are
        never rewritten (a line says why); a file shared by several targets is rewritten only when one stub holds for
        all of them. Each file is written atomically (a new file renamed over the old, permissions kept).

        \(updateOptions.helpSections())

        EXIT CODES
          0  every stub that drifted was rewritten and now holds (or nothing drifted)
          1  --dry-run and something would change, or a drift was left (each has a line saying why)
          2  usage error or broken contract file (nothing was sent)
          3  some targets could not be checked (connection refused, timeout, …); the others were updated
          4  nothing was checked
          130, 143  stopped by Ctrl-C or SIGTERM: nothing was written
        """

    /// `tether learn --help`.
    static let learn: String = """
        USAGE
          \(TetherCommand.learn.usage)

        Calls every target --samples times (as 'tether verify' calls it: same PATH and options) and/or reads every
        entry of the --har files whose request matches a target's, then proposes the rules under which each JSON stub
        holds against all those answers, each with its evidence:
          optional  a key absent in some answers and present in others ("absent in 2 of 5 responses")
          nullable  a value null in some answers and typed in the others
          maps      an object whose keys all look like ids (1017, a UUID, user_42) and differ between answers
        and nothing else: a key absent from every answer, a value null in every answer or a changed type is a change
        of the API, printed as a drift left (see 'tether update'), never hidden by a rule; ignore is never proposed.
        Only answers with the stub's status (or rules.status) are learned from. Without --write it prints the
        proposals and exits 1 when there are any, so a CI job can ask for a review; --write adds them to the
        targets' "rules" in their manifests as minimal edits (formatting, key order and every other byte kept).
        Nothing of a live value is printed: evidence is counts and the stub's own keys, drifts are redacted.

        \(learnOptions.helpSections())

        EXAMPLES
          tether learn --samples 5 --pause 1          call each target 5 times, 1 s apart; print proposals
          tether learn --har recordings/*.har --write  learn from recordings and add the rules to the manifests

        EXIT CODES
          0  nothing to propose (or, with --write, every proposal written) and no drift left
          1  proposals not written (without --write), a drift no rule may hide, or a manifest not written
          2  usage error, broken contract or HAR file (nothing was sent)
          3  some targets had no answer to learn from (connection refused, another status, …)
          4  no target had an answer to learn from
          130, 143  stopped by Ctrl-C or SIGTERM: nothing was written
        """

    /// `tether mock --help`.
    static let mock: String = """
        USAGE
          \(TetherCommand.mock.usage)

        Serves the responses recorded in FILE.har on 127.0.0.1 (port N, default a free one) until interrupted.
        Requests match on method, path and query; anything unrecorded gets 404 with a JSON body naming it.

        \(mockOptions.helpSections())
        """

    /// `tether serve --help`.
    static let serve: String = """
        USAGE
          \(TetherCommand.serve.usage)

        Serves each target's stub at its method and path (and query, when the contract has one): the status, the
        response headers and the body (a sample file byte for byte). A stub without Content-Type gets
        application/json (JSON), text/plain; charset=utf-8 (text) or application/octet-stream (other bytes).
        "stubBehavior": {"delayed": SECONDS} delays the answer; a networkError stub closes the connection, the
        timeout code -1001 holds it unanswered until the client gives up (at most 60 s). Unknown routes get 404
        naming the closest routes, another method on a known path 405. The URL is the first line on stdout, then one
        line per request. Ctrl-C or SIGTERM stops it (exit 130 or 143).

        \(serveOptions.helpSections())
        """
}
