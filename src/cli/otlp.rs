//! The OpenTelemetry flags every command that exports spans shares (`export --format otlp`, and
//! the live `--otlp-endpoint` of the proxies and `run`), and the standard variables behind them.

use clap::Args;

use crate::export::otlp::{Options, send::Endpoint};

#[derive(Debug, Clone, Args, Default)]
pub struct OtlpArgs {
    /// A header for the OTLP endpoint, KEY=VALUE (repeatable): auth and tenant headers. Also
    /// read from OTEL_EXPORTER_OTLP_HEADERS. Values are never printed or recorded.
    #[arg(long = "otlp-header", value_name = "K=V")]
    headers: Vec<String>,
    /// `http/protobuf` (default) or `http/json` (also OTEL_EXPORTER_OTLP_PROTOCOL).
    #[arg(long = "otlp-protocol", value_name = "PROTOCOL")]
    protocol: Option<String>,
    /// Include message content, tool arguments and tool results in the spans (off by default,
    /// as the conventions require).
    #[arg(long = "otlp-content")]
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
        Ok(Endpoint::resolve(
            url,
            &self.headers,
            self.protocol.as_deref(),
            &env,
        )?)
    }
}
