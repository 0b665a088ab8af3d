// TRANSPORT: how requests travel, for every command that sends them.

extension HelpSection {
    /// Concurrency, timeouts, body size, TLS.
    public static let transport = HelpSection(
        title: "TRANSPORT", note: "Proxies come from http_proxy, https_proxy and no_proxy, as for curl.")
}

extension TransportOptions: OptionGroup {
    /// `--jobs`, `--jobs-per-host`, `--rate`, `--retries`, `--timeout`, `--connect-timeout`, `--max-body`,
    /// `--insecure`, `--cacert`.
    public static let options: [Option<TransportOptions>] = [
        .value(
            "--jobs", "N", section: .transport, help: "requests in flight at once",
            defaultValue: String(TransportOptions().jobs)
        ) { options, text throws(InvalidValue) in
            options.jobs = try ValueReader.wholeNumber(text, in: 1...256)
        },
        .value(
            "--jobs-per-host", "N", section: .transport, help: "requests in flight at once to one host",
            defaultValue: "as --jobs"
        ) { options, text throws(InvalidValue) in
            options.hostLimits.jobsPerHost = try ValueReader.wholeNumber(text, in: 1...256)
        },
        .value(
            "--rate", "N/s", section: .transport, help: "start at most N requests a second to one host (retries count)",
            defaultValue: "no limit"
        ) { options, text throws(InvalidValue) in
            options.hostLimits.requestsPerSecond = try ValueReader.rate(text)
        },
        .value(
            "--retries", "N", section: .transport,
            help: "send again after a transport error, a 5xx or a 429 (never a 4xx or a drift), up to N times, "
                + "backing off from \(ValueReader.text(seconds: RetryPolicy().baseDelay))s with jitter and honouring "
                + "Retry-After up to \(ValueReader.text(seconds: RetryPolicy().maxDelay))s",
            defaultValue: String(RetryPolicy().retries)
        ) { options, text throws(InvalidValue) in
            options.retry.retries = try ValueReader.wholeNumber(text, in: 0...10)
        },
        .value(
            "--timeout", "SECONDS", section: .transport, help: "per request, start to last byte",
            defaultValue: ValueReader.text(seconds: TransportOptions().timeout)
        ) { options, text throws(InvalidValue) in
            options.timeout = try ValueReader.seconds(text, in: 0.001...86_400)
        },
        .value(
            "--connect-timeout", "SECONDS", section: .transport, help: "per connection",
            defaultValue: ValueReader.text(seconds: TransportOptions().connectTimeout)
        ) { options, text throws(InvalidValue) in
            options.connectTimeout = try ValueReader.seconds(text, in: 0.001...86_400)
        },
        .value(
            "--max-body", "BYTES", section: .transport, help: "largest body accepted, e.g. 1048576, 512K, 64M",
            defaultValue: ValueReader.text(bytes: TransportOptions().maxBodyBytes)
        ) { options, text throws(InvalidValue) in
            options.maxBodyBytes = try ValueReader.byteCount(text)
        },
        .flag("--insecure", section: .transport, help: "do not verify TLS certificates") { $0.isInsecure = true },
        .value("--cacert", "FILE", section: .transport, help: "trust the CA certificates in FILE (PEM)") {
            options, text throws(InvalidValue) in
            options.caCertificatePath = try ValueReader.readableFile(text)
        },
    ]
}
