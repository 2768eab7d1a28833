//! The OpenTelemetry flags every command that exports spans shares (`export --format otlp`, and
//! the live `--otlp-endpoint` of the proxies, `run` and `wrap`), the standard variables behind
//! them, and the recorder's sink that hands events to the live exporter.

use std::path::PathBuf;
use std::sync::{Arc, Weak};

use crate::cli::errors::{Context as _, Saying};
use crate::i18n::Said;
use clap::Args;

use crate::export::otlp::live::{Live, LiveQueue, SHUTDOWN_GRACE};
use crate::export::otlp::send::Sender;
use crate::export::otlp::{Options, send::Endpoint};
use crate::tap::Recorder;
use crate::tap::recorder::{EventSink, LineBatch};
use crate::trace::{Event, Header, Lane, TraceError};

#[derive(Debug, Clone, Args, Default)]
pub struct OtlpArgs {
    /// A header for the OTLP endpoint, KEY=VALUE (repeatable): auth and tenant headers. Also
    /// read from OTEL_EXPORTER_OTLP_HEADERS. Values are never printed or recorded.
    #[arg(long = "otlp-header", id = "otlp_header", value_name = "K=V")]
    headers: Vec<String>,
    /// `http/protobuf` (default) or `http/json` (also OTEL_EXPORTER_OTLP_PROTOCOL).
    #[arg(long = "otlp-protocol", id = "otlp_protocol", value_name = "PROTOCOL")]
    protocol: Option<String>,
    /// Include message content, tool arguments and tool results in the spans (off by default,
    /// as the conventions require).
    #[arg(long = "otlp-content", id = "otlp_content")]
    content: bool,
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

impl OtlpArgs {
    /// What the mapping includes; `service.name` from OTEL_SERVICE_NAME.
    pub fn options(&self) -> Options {
        Options {
            service_name: env("OTEL_SERVICE_NAME")
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| "sightline".into()),
            content: self.content,
        }
    }

    /// The endpoint named by the standard variables, if any.
    pub fn env_endpoint(&self) -> Option<String> {
        env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
            .or_else(|| env("OTEL_EXPORTER_OTLP_ENDPOINT"))
            .filter(|s| !s.is_empty())
    }

    /// The endpoint: `url` if given, else the standard variables.
    pub fn endpoint(&self, url: Option<&str>) -> anyhow::Result<Endpoint> {
        self.endpoint_with(url, Vec::new())
    }

    /// Like [`OtlpArgs::endpoint`], with `first` headers (`K=V`) before the flags' (which win).
    fn endpoint_with(&self, url: Option<&str>, mut first: Vec<String>) -> anyhow::Result<Endpoint> {
        first.extend(self.headers.iter().cloned());
        Ok(Endpoint::resolve(
            url,
            &first,
            self.protocol.as_deref(),
            &env,
        )?)
    }
}

impl LiveArgs {
    /// The flags as `sightline proxy` arguments, for `wrap` to write into a host's config. The
    /// header values never go into the config (often committed, readable by other programs):
    /// `--otlp-header`s are written to a file only the user can read, in the data directory,
    /// and the config names the file.
    pub fn proxy_args(&self) -> anyhow::Result<Vec<String>> {
        let Some(url) = &self.endpoint else {
            return Ok(Vec::new());
        };
        // Refuse now what the proxy would refuse when the host starts it.
        self.otlp.endpoint(Some(url))?;
        // The config is often committed and readable by other programs: a credential in the
        // URL would sit there in the clear, so it has to come as a header (kept in a file).
        let (shown, secrets) = crate::wire::redact_url::redact_url(url);
        if !secrets.is_empty() {
            return super::errors::fail(
                Said::new("cli_error.otlp_url_credentials").with("url", shown),
            );
        }
        let mut out = vec!["--otlp-endpoint".to_string(), url.clone()];
        let file = match &self.headers_file {
            Some(file) => Some(std::path::absolute(file)?),
            None if !self.otlp.headers.is_empty() => Some(write_headers_file(&self.otlp.headers)?),
            None => None,
        };
        if let Some(file) = file {
            out.extend([
                "--otlp-headers-file".to_string(),
                file.display().to_string(),
            ]);
        }
        if let Some(p) = &self.otlp.protocol {
            out.extend(["--otlp-protocol".to_string(), p.clone()]);
        }
        if self.otlp.content {
            out.push("--otlp-content".into());
        }
        Ok(out)
    }
}

/// Writes `K=V` headers to `DATA_DIR/otlp/headers-HASH.txt`, mode 0600 (the same headers give
/// the same file); returns its path. On Windows the data dir is under the user's profile, whose
/// ACL already keeps other users out; the file gets it ([`crate::tap::wrap::file::open_private`]).
fn write_headers_file(headers: &[String]) -> anyhow::Result<PathBuf> {
    use sha2::Digest as _;
    use std::io::Write as _;
    let text = headers.join("\n") + "\n";
    let hash = sha2::Sha256::digest(text.as_bytes());
    let name: String = hash[..6].iter().map(|b| format!("{b:02x}")).collect();
    let dir = crate::tap::paths::data_dir().join("otlp");
    std::fs::create_dir_all(&dir)
        .within(|| Said::new("cli_error.cannot_create").with("path", dir.display()))?;
    let path = std::path::absolute(dir.join(format!("headers-{name}.txt")))?;
    let mut file = crate::tap::wrap::file::open_private(&path)
        .within(|| Said::new("cli_error.cannot_write").with("path", path.display()))?;
    file.write_all(
        format!("# OTLP headers for sightline proxy --otlp-headers-file (written by sightline wrap)\n{text}")
            .as_bytes(),
    )
    .within(|| Said::new("cli_error.cannot_write").with("path", path.display()))?;
    Ok(path)
}

/// The live-streaming flags of `proxy`, `proxy --http`, `llm-proxy`, `run` and `wrap`.
#[derive(Debug, Clone, Args, Default)]
pub struct LiveArgs {
    /// Stream spans to this OTLP/HTTP traces endpoint while recording (a URL with no path gets
    /// /v1/traces), each request/response pair once complete. Never slows forwarding: when the
    /// backend is down or slow, spans are dropped, counted and the count noted in the trace.
    #[arg(long = "otlp-endpoint", id = "otlp_endpoint", value_name = "URL")]
    pub endpoint: Option<String>,
    /// Headers for --otlp-endpoint from FILE, one KEY=VALUE per line (`wrap` writes one, so a
    /// secret is neither in the host's config nor on a command line). --otlp-header wins.
    #[arg(
        long = "otlp-headers-file",
        id = "otlp_headers_file",
        value_name = "FILE",
        requires = "otlp_endpoint"
    )]
    pub headers_file: Option<PathBuf>,
    #[command(flatten)]
    pub otlp: OtlpArgs,
}

/// `K=V` lines of a headers file (blank lines and `#` comments skipped).
pub fn read_headers_file(path: &std::path::Path) -> anyhow::Result<Vec<String>> {
    let text = crate::trace::encoding::read_to_string(path)
        .within(|| Said::new("cli_error.otlp_headers").with("path", path.display()))?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if !line.contains('=') {
            return Err(Saying(
                Said::new("cli_error.not_key_value")
                    .with("path", path.display())
                    .with("line", n + 1),
            )
            .into());
        }
        out.push(line.to_string());
    }
    Ok(out)
}

impl LiveArgs {
    /// Starts streaming `recorder`'s events when --otlp-endpoint is given: the header is the
    /// trace file's (the trace id comes from it, as `export` of the file does).
    pub fn start(
        &self,
        recorder: &Arc<Recorder>,
        header: &Header,
    ) -> anyhow::Result<Option<LiveExport>> {
        let Some(url) = &self.endpoint else {
            return Ok(None);
        };
        let first = match &self.headers_file {
            Some(path) => read_headers_file(path)?,
            None => Vec::new(),
        };
        let endpoint = self.otlp.endpoint_with(Some(url), first)?;
        let shown = endpoint.shown();
        let sender = Sender::new(endpoint, crate::tap::client::http())?;
        let weak: Weak<Recorder> = Arc::downgrade(recorder);
        let on_outage = Box::new(move |text: &str| {
            tracing::warn!("{text}");
            if let Some(recorder) = weak.upgrade() {
                recorder.record_note(Lane::Host, Lane::Host, text);
            }
        });
        let live = crate::tap::runtime::one_thread()
            .and_then(|runtime| {
                Live::start(
                    header.clone(),
                    self.otlp.options(),
                    sender,
                    runtime,
                    on_outage,
                )
            })
            .within(|| Said::new("cli_error.otlp_thread"))?;
        recorder.add_sink(Box::new(LiveSink(live.queue())));
        tracing::info!("streaming spans to {shown}");
        Ok(Some(LiveExport {
            live,
            recorder: recorder.clone(),
        }))
    }
}

/// Live streaming in progress; [`LiveExport::finish`] before the recorder finishes.
pub struct LiveExport {
    live: Live,
    recorder: Arc<Recorder>,
}

impl LiveExport {
    /// Sends what is left (within a short grace) and records what was sent and dropped as a
    /// note in the trace; says so on stderr when spans were dropped.
    pub fn finish(self) {
        let report = self.live.finish(SHUTDOWN_GRACE);
        let note = report.note();
        self.recorder.record_note(Lane::Host, Lane::Host, &note);
        if report.dropped > 0 || report.dropped_events > 0 {
            eprintln!("sightline: warning: {note}");
        } else {
            tracing::info!("{note}");
        }
    }
}

/// Where finishing is optional (an early error): finishes when there is something to finish.
pub fn finish(live: Option<LiveExport>) {
    if let Some(live) = live {
        live.finish();
    }
}

/// The recorder's sink for live export: under the recorder's lock it only offers a copy of the
/// event to the exporter's bounded queue, which never waits.
struct LiveSink(LiveQueue);

impl EventSink for LiveSink {
    fn write(&mut self, event: &Event) -> Result<(), TraceError> {
        self.0.offer(event.clone());
        Ok(())
    }

    fn write_lines(&mut self, batch: &LineBatch) -> Result<(), TraceError> {
        batch.events().for_each(|event| self.0.offer(event));
        Ok(())
    }

    fn flush(&mut self) -> Result<(), TraceError> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::trace::encoding::Encoding;

    #[test]
    fn a_headers_file_as_windows_editors_and_powershell_save_it_is_read() {
        // `echo "Authorization=Bearer t" > h.txt` in Windows PowerShell 5.1 is UTF-16 with CRLF.
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("h.txt");
        let text = "# the team's collector\r\nAuthorization=Bearer t\r\n\r\nX-Team=a\r\n";
        for encoding in [
            Encoding::Utf8,
            Encoding::Utf8Bom,
            Encoding::Utf16Le,
            Encoding::Utf16Be,
        ] {
            std::fs::write(&path, encoding.encode(text)).expect("write");
            let headers = super::read_headers_file(&path).expect("read");
            assert_eq!(
                headers,
                ["Authorization=Bearer t", "X-Team=a"],
                "{encoding:?}"
            );
        }
    }
}
