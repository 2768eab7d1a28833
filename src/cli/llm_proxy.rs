//! `sightline llm-proxy`: put Sightline between a host and its LLM API.
//!
//! The proxy itself is [`crate::tap::llm_proxy`]; this is its command line: check the
//! addresses, open the trace, say on stderr where it listens and where the trace goes, serve
//! until Ctrl-C / SIGTERM / SIGHUP, then flush the trace.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use crate::cli::errors::Context as _;
use crate::i18n::Said;
use clap::Args;

use crate::tap::Recorder;
use crate::tap::llm_proxy::LlmProxy;
use crate::trace::{Header, TraceWriter};

#[derive(Debug, Args)]
pub struct LlmProxyArgs {
    /// Address to listen on. Loopback only unless --allow-remote; port 0 picks a free one.
    #[arg(long, default_value = "127.0.0.1:0")]
    listen: SocketAddr,
    /// The API the requests go to, e.g. https://api.anthropic.com or https://api.openai.com;
    /// each request's path and query are appended.
    #[arg(long, value_name = "URL")]
    upstream: String,
    /// Where to write the trace. Default: a timestamped file in the platform's data directory
    /// (override the directory with SIGHTLINE_DATA_DIR).
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// Record into session NAME beside the MCP proxies of the same session (see `sightline
    /// proxy --session`), so the host's whole loop is one trace. Conflicts with --trace.
    #[arg(long, value_name = "NAME", conflicts_with = "trace", value_parser = crate::tap::paths::session_name)]
    session: Option<String>,
    /// Accept connections from other machines (a --listen address that is not loopback).
    #[arg(long)]
    allow_remote: bool,
    /// Seconds to wait for the API's response headers before answering 504 and noting it in
    /// the trace (0: wait forever). Not applied to a GET.
    #[arg(long, value_name = "SECS", default_value_t = crate::tap::llm_proxy::HEADER_TIMEOUT.as_secs())]
    header_timeout: u64,
    #[command(flatten)]
    live: super::otlp::LiveArgs,
}

pub fn run(args: LlmProxyArgs) -> anyhow::Result<ExitCode> {
    if !args.listen.ip().is_loopback() && !args.allow_remote {
        anyhow::bail!(
            "refusing to listen on {}, which is not a loopback address: anyone who can reach it \
             could use the API keys that pass through; add --allow-remote if that is intended",
            args.listen
        );
    }
    let shown = crate::wire::redact_url::redact_url(args.upstream.trim_end_matches('/')).0;
    let mut header = Header::new(format!("sightline llm-proxy --upstream {shown}"));
    let path = super::edges::trace_path(
        args.trace.as_ref(),
        args.session.as_deref(),
        "llm",
        &mut header,
    );
    let writer = TraceWriter::create(&path, &header)?;
    let recorder = Recorder::start(vec![Box::new(writer)]);
    let live = args.live.start(&recorder, &header)?;
    let runtime = super::edges::runtime()?;
    let served = runtime.block_on(async {
        let proxy = LlmProxy::bind(args.listen, &args.upstream, recorder.clone())
            .await?
            .header_timeout(
                (args.header_timeout > 0).then(|| Duration::from_secs(args.header_timeout)),
            );
        let base = format!("http://{}", proxy.local_addr());
        eprintln!("sightline: llm-proxy listening on {base}, forwarding to {shown}");
        eprintln!("sightline: recording to {}", path.display());
        eprintln!(
            "sightline: point a host at it: ANTHROPIC_BASE_URL={base}  OPENAI_BASE_URL={base}/v1"
        );
        proxy
            .serve(super::edges::stopped(), super::edges::GRACE)
            .await
            .within(|| Said::new("cli_error.proxy_stopped"))
    });
    super::otlp::finish(live);
    let report = super::edges::finish_recording(&recorder);
    served?;
    eprintln!(
        "sightline: llm-proxy stopped; {} events recorded in {}",
        report.events,
        path.display()
    );
    Ok(ExitCode::SUCCESS)
}
