//! The doctor's probe: what a host does with a server before its first LLM request, and no more.
//!
//! A plain JSON-RPC client rather than the host's rmcp client, because the probe must go on
//! where rmcp would stop and stop where a careful host would: it records every answer, waits
//! a bounded time for each, answers the server's `ping` (and refuses its other requests), and
//! behaves like a strict host: it does not ask for tools when the handshake advertises none,
//! and it disconnects when the server names a revision it cannot speak. When it gives up it
//! says so in a `note`, so the doctor can tell a server that hung from one that crashed.
//!
//! It talks to the server through the tap over a socket pair
//! ([`crate::tap::stdio::socket_pair`]), like [`crate::host::mcp`], so the trace holds exactly
//! the bytes that crossed.

use std::io::{self, Read as _, Write as _};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::analysis::explain::INITIALIZE_REVISIONS;
use crate::host::scenario::Protocol;
use crate::tap::stdio::PairStream;
use crate::tap::{Recorder, ServerCommand, StdioTap, TapError};
use crate::trace::Lane;

const STATELESS: &str = "2026-07-28";
/// Pages of `tools/list` the probe follows before it stops.
const MAX_PAGES: usize = 100;

/// Spawns `cmd` behind the tap, does the handshake and `tools/list`, and stops the server.
/// A command that cannot be started is recorded as a `spawn-failed` event, not an error.
pub fn probe(
    cmd: &ServerCommand,
    recorder: Arc<Recorder>,
    protocol: Protocol,
    timeout: Duration,
) -> anyhow::Result<()> {
    let (host_end, tap_end) = crate::tap::stdio::socket_pair()?;
    let tap_in = tap_end.try_clone()?;
    let tap = match StdioTap::spawn(
        cmd,
        recorder.clone(),
        Lane::Host,
        Box::new(tap_in),
        Box::new(CloseOnDrop(tap_end)),
        None,
    ) {
        Ok(tap) => tap,
        Err(TapError::Spawn { .. }) => return Ok(()),
        Err(err) => return Err(err.into()),
    };
    let mut client = Client {
        stream: host_end,
        pending: Vec::new(),
        next_id: 0,
        timeout,
        recorder,
    };
    client.session(protocol);
    // Closing our end makes the tap close the server's stdin; then wait for its exit.
    drop(client);
    tap.shutdown();
    Ok(())
}

/// The tap's write half toward the probe: when the server's stdout ends, the probe sees EOF.
struct CloseOnDrop(PairStream);

impl io::Write for CloseOnDrop {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

impl Drop for CloseOnDrop {
    fn drop(&mut self) {
        let _ = self.0.shutdown(std::net::Shutdown::Write);
    }
}

enum Reply {
    Result(Value),
    Error,
    /// The server closed its stdout (it exited, most likely).
    Closed,
    TimedOut,
}

struct Client {
    stream: PairStream,
    /// Bytes read past the last complete line.
    pending: Vec<u8>,
    next_id: i64,
    timeout: Duration,
    recorder: Arc<Recorder>,
}

impl Client {
    fn note(&self, text: &str) {
        self.recorder
            .record_note(Lane::Host, Lane::Host, &format!("doctor: {text}"));
    }

    fn send(&mut self, msg: &Value) -> bool {
        let mut line = msg.to_string();
        line.push('\n');
        self.stream.write_all(line.as_bytes()).is_ok()
    }

    /// The next line from the server, `Ok(None)` at EOF, `Err` past the deadline.
    fn line(&mut self, deadline: Instant) -> Result<Option<Vec<u8>>, ()> {
        let mut chunk = vec![0u8; 64 * 1024];
        loop {
            if let Some(at) = memchr::memchr(b'\n', &self.pending) {
                let mut line: Vec<u8> = self.pending.drain(..=at).collect();
                line.pop();
                return Ok(Some(line));
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(());
            }
            if self.stream.set_read_timeout(Some(left)).is_err() {
                return Ok(None);
            }
            match self.stream.read(&mut chunk) {
                Ok(0) => return Ok(None),
                Ok(n) => self.pending.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) =>
                {
                    return Err(());
                }
                Err(_) => return Ok(None),
            }
        }
    }

    /// Sends a request and waits for its answer, answering the server's own requests meanwhile.
    fn request(&mut self, method: &str, params: Value) -> Reply {
        let id = self.next_id;
        self.next_id += 1;
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        if !self.send(&msg) {
            return Reply::Closed;
        }
        let deadline = Instant::now() + self.timeout;
        loop {
            let line = match self.line(deadline) {
                Ok(Some(line)) => line,
                Ok(None) => return Reply::Closed,
                Err(()) => {
                    self.note(&format!(
                        "gives up: no answer to {method} within {} s",
                        self.timeout.as_secs()
                    ));
                    return Reply::TimedOut;
                }
            };
            let Ok(v) = serde_json::from_slice::<Value>(&line) else {
                continue;
            };
            if let (Some(m), Some(rid)) = (v.get("method").and_then(Value::as_str), v.get("id")) {
                let answer = if m == "ping" {
                    json!({"jsonrpc": "2.0", "id": rid, "result": {}})
                } else {
                    json!({"jsonrpc": "2.0", "id": rid,
                           "error": {"code": -32601, "message": "Method not found"}})
                };
                self.send(&answer);
                continue;
            }
            if v.get("method").is_some() || v.get("id") != Some(&json!(id)) {
                continue;
            }
            return match v.get("result") {
                Some(result) => Reply::Result(result.clone()),
                None => Reply::Error,
            };
        }
    }

    fn client_info() -> Value {
        json!({"name": "sightline-doctor", "version": env!("CARGO_PKG_VERSION")})
    }

    fn stateless_meta() -> Value {
        json!({
            "io.modelcontextprotocol/protocolVersion": STATELESS,
            "io.modelcontextprotocol/clientInfo": Client::client_info(),
            "io.modelcontextprotocol/clientCapabilities": {}
        })
    }

    fn session(&mut self, protocol: Protocol) {
        if protocol != Protocol::V2025_11_25 {
            let discover = json!({"_meta": Client::stateless_meta()});
            match self.request("server/discover", discover) {
                Reply::Result(result) => {
                    let speaks = result
                        .get("supportedVersions")
                        .and_then(Value::as_array)
                        .is_none_or(|v| v.iter().any(|v| v.as_str() == Some(STATELESS)));
                    if !speaks {
                        self.note(&format!(
                            "server/discover does not list {STATELESS}; disconnecting"
                        ));
                    } else if self.advertises_tools(&result) {
                        self.list_tools(Some(Client::stateless_meta()));
                    }
                    return;
                }
                Reply::Error if protocol == Protocol::Auto => {}
                _ => return,
            }
        }
        let initialize = json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": Client::client_info()
        });
        let Reply::Result(result) = self.request("initialize", initialize) else {
            return;
        };
        let version = result.get("protocolVersion").and_then(Value::as_str);
        if !version.is_some_and(|v| INITIALIZE_REVISIONS.contains(&v)) {
            self.note(&format!(
                "the server answered protocolVersion {}, which this host cannot use; disconnecting",
                result.get("protocolVersion").unwrap_or(&Value::Null)
            ));
            return;
        }
        if !self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})) {
            return;
        }
        if self.advertises_tools(&result) {
            self.list_tools(None);
        }
    }

    /// Whether the handshake result has `capabilities.tools`; a strict host asks for tools only
    /// then.
    fn advertises_tools(&self, result: &Value) -> bool {
        let tools = result.pointer("/capabilities/tools").is_some();
        if !tools {
            self.note(
                "the server advertises no tools capability, so a host does not ask for its tools",
            );
        }
        tools
    }

    /// `tools/list`, following `nextCursor`.
    fn list_tools(&mut self, meta: Option<Value>) {
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let mut params = serde_json::Map::new();
            if let Some(c) = &cursor {
                params.insert("cursor".into(), c.clone().into());
            }
            if let Some(m) = &meta {
                params.insert("_meta".into(), m.clone());
            }
            let Reply::Result(result) = self.request("tools/list", Value::Object(params)) else {
                return;
            };
            cursor = result
                .get("nextCursor")
                .and_then(Value::as_str)
                .map(str::to_string);
            if cursor.is_none() {
                return;
            }
        }
        self.note(&format!("stops after {MAX_PAGES} pages of tools/list"));
    }
}
