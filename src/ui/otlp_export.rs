//! File > Export > OpenTelemetry: the shown trace as spans, by the same mapping as `sightline
//! export --format otlp`, to an OTLP/JSON file or to an OTLP/HTTP endpoint with headers.
//!
//! Mapping a large trace and talking to a backend take time (a backend that hangs takes the
//! whole request timeout, with retries), so both run on a thread of their own with a copy of
//! the events; the frame only polls for the one-line outcome, which the status bar shows (the
//! error names the endpoint and the status, never a header's value). The endpoint window keeps
//! what was typed for the next export; the headers field is masked, one `KEY=VALUE` per line.

use std::path::PathBuf;
use std::sync::mpsc::{Receiver, channel};

use egui::Ui;

use super::store::TraceStore;
use crate::export::otlp::{self, Options, send};
use crate::i18n::Words;

/// Where the spans go.
pub enum Target {
    /// OTLP/JSON, one `ExportTraceServiceRequest` per line.
    File(PathBuf),
    /// OTLP/HTTP.
    Endpoint {
        url: String,
        headers: Vec<String>,
        json: bool,
    },
}

/// The endpoint window's fields and the export running, if any.
#[derive(Default)]
pub struct OtlpExport {
    pub open: bool,
    url: String,
    headers: String,
    json: bool,
    content: bool,
    /// Send was clicked: started at the next poll, where the events are at hand.
    pending: Option<Target>,
    running: Option<Receiver<Result<String, String>>>,
}

impl OtlpExport {
    /// Whether an export is on its way (the status bar shows a spinner).
    pub fn is_running(&self) -> bool {
        self.running.is_some()
    }

    /// The endpoint window; Send leaves the target for [`OtlpExport::take_pending`].
    pub fn window_ui(&mut self, ctx: &egui::Context, tr: Words<'_>) {
        if !self.open {
            return;
        }
        let mut open = self.open;
        let mut target = None;
        egui::Window::new(tr.get("otlp.title"))
            .open(&mut open)
            .collapsible(false)
            .resizable(false)
            .show(ctx, |ui| {
                target = self.fields_ui(ui, tr);
            });
        self.open = open && target.is_none();
        if target.is_some() {
            self.pending = target;
        }
    }

    /// What Send asked for, once.
    pub fn take_pending(&mut self) -> Option<Target> {
        self.pending.take()
    }

    fn fields_ui(&mut self, ui: &mut Ui, tr: Words<'_>) -> Option<Target> {
        ui.label(tr.get("otlp.endpoint"));
        ui.add(
            egui::TextEdit::singleline(&mut self.url)
                .hint_text("http://127.0.0.1:4318")
                .desired_width(380.0),
        );
        ui.label(tr.get("otlp.headers"));
        ui.add(
            egui::TextEdit::multiline(&mut self.headers)
                .password(true)
                .hint_text("Authorization=Bearer …")
                .desired_rows(2)
                .desired_width(380.0),
        );
        ui.checkbox(&mut self.json, tr.get("otlp.json"));
        ui.checkbox(&mut self.content, tr.get("otlp.content"));
        let ready = !self.url.trim().is_empty() && self.running.is_none();
        let send = ui.add_enabled(ready, egui::Button::new(tr.get("otlp.send")));
        send.clicked().then(|| Target::Endpoint {
            url: self.url.trim().to_string(),
            headers: self
                .headers
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(str::to_string)
                .collect(),
            json: self.json,
        })
    }

    /// Starts exporting the store's events to `target` on a thread; `wake` repaints the UI
    /// when the outcome is in.
    pub fn start(
        &mut self,
        store: &TraceStore,
        target: Target,
        wake: std::sync::Arc<dyn Fn() + Send + Sync>,
    ) {
        let header = match &store.source {
            super::store::Source::File(path) => crate::trace::load(path)
                .map(|t| t.header)
                .unwrap_or_else(|_| crate::trace::Header::new(store.title.clone())),
            _ => crate::trace::Header::new(store.title.clone()),
        };
        let events = store.events.clone();
        let options = Options {
            content: self.content,
            ..Options::default()
        };
        let (tx, rx) = channel();
        let spawned = std::thread::Builder::new()
            .name("otlp-export-app".into())
            .spawn(move || {
                let _ = tx.send(export(&header, &events, &options, target));
                wake();
            });
        match spawned {
            Ok(_) => self.running = Some(rx),
            Err(e) => {
                let (tx, rx) = channel();
                let _ = tx.send(Err(format!("cannot start the export's thread: {e}")));
                self.running = Some(rx);
            }
        }
    }

    /// The outcome, once the export is done.
    pub fn poll(&mut self) -> Option<Result<String, String>> {
        let outcome = self.running.as_ref()?.try_recv().ok()?;
        self.running = None;
        Some(outcome)
    }
}

/// The export itself (the export thread): one line for the status bar either way.
fn export(
    header: &crate::trace::Header,
    events: &[crate::trace::Event],
    options: &Options,
    target: Target,
) -> Result<String, String> {
    let report = crate::analysis::report(events);
    let spans = otlp::spans(header, events, &report, options);
    let count = spans.len();
    let requests = otlp::requests(spans, options);
    match target {
        Target::File(path) => {
            let mut text = String::new();
            for r in &requests {
                text.push_str(&otlp::to_json(r));
                text.push('\n');
            }
            std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
            Ok(format!("{count} spans written to {}", path.display()))
        }
        Target::Endpoint { url, headers, json } => {
            let env = |name: &str| std::env::var(name).ok();
            let protocol = json.then_some("http/json");
            let endpoint = send::Endpoint::resolve(Some(&url), &headers, protocol, &env)
                .map_err(|e| e.to_string())?;
            let shown = endpoint.url.clone();
            let sender = send::Sender::new(endpoint, crate::tap::client::http())
                .map_err(|e| e.to_string())?;
            let runtime = crate::tap::runtime::one_thread()
                .map_err(|e| format!("cannot start the async runtime: {e}"))?;
            runtime.block_on(async {
                for r in &requests {
                    sender.send(r).await.map_err(|e| e.to_string())?;
                }
                Ok::<(), String>(())
            })?;
            Ok(format!("{count} spans sent to {shown}"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The file target writes what `sightline export --format otlp --out` writes.
    #[test]
    fn the_file_target_is_the_commands_export() {
        let dir = tempfile::tempdir().expect("tmp");
        let events = crate::trace::load_from_reader(
            concat!(
                r#"{"sightline_trace":1,"created":"2026-12-01T08:00:00.000000Z","sightline_version":"0","title":"t"}"#,
                "\n",
                r#"{"seq":0,"time":"2026-12-01T08:00:00.000000Z","from":"host","to":"server:s","channel":"stdio","raw":"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}"}"#,
                "\n",
                r#"{"seq":1,"time":"2026-12-01T08:00:00.001000Z","from":"server:s","to":"host","channel":"stdio","raw":"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[]}}"}"#,
            )
            .as_bytes(),
        )
        .expect("trace");
        let path = dir.path().join("t.otlp.json");
        let line = export(
            &events.header,
            &events.events,
            &Options::default(),
            Target::File(path.clone()),
        )
        .expect("export");
        assert!(line.starts_with("2 spans written to"), "{line}");
        let text = std::fs::read_to_string(&path).expect("read");
        let report = crate::analysis::report(&events.events);
        let spans = otlp::spans(&events.header, &events.events, &report, &Options::default());
        let expected = otlp::to_json(&otlp::requests(spans, &Options::default())[0]);
        assert_eq!(text.trim_end(), expected);
    }

    /// An endpoint that refuses: one line naming it, no header value.
    #[test]
    fn a_refused_endpoint_is_one_line_without_the_header() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("port")
            .port();
        let header = crate::trace::Header::new("t");
        let err = export(
            &header,
            &[],
            &Options::default(),
            Target::Endpoint {
                url: format!("http://127.0.0.1:{port}"),
                headers: vec!["Authorization=Bearer sk-app-SECRET".into()],
                json: false,
            },
        )
        .expect_err("refused");
        assert!(
            err.contains(&format!("127.0.0.1:{port}/v1/traces")),
            "{err}"
        );
        assert!(!err.contains("sk-app") && !err.contains('\n'), "{err}");
    }
}
