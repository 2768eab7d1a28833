//! The doctor's two outputs: lines for people, grouped by server, and JSON Lines for scripts.
//!
//! ```text
//! judged against the last LLM request #11 (Anthropic (Messages API))
//! server oddnames (2025-11-25): listed 4 tool(s) (#7); 1 visible
//!   ✓ oddnames/get_time  visible-not-called  #11  sent to the model in the last LLM request (#11); ...
//!   ✗ oddnames/weather.lookup  name-rejected  #8  the host dropped it ...  → rename it on the server, ...
//! verdict: 3 of 4 tool(s) not visible to the model: name-rejected ×3
//! ```

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;
use serde_json::{Map, Value};

use super::rules::provider_name;
use super::{Basis, Diagnosis, ServerFinding, ToolFinding};

fn tool_line(out: &mut String, f: &ToolFinding) {
    let mark = if f.visible { '✓' } else { '✗' };
    let mut name = match &f.server {
        Some(server) => format!("{server}/{}", f.tool),
        None => f.tool.clone(),
    };
    if f.expected {
        name.push_str(" (expected)");
    }
    let seq = f.seq.map_or_else(|| "-".to_string(), |s| format!("#{s}"));
    let _ = write!(out, "  {mark} {name}  {}  {seq}  {}", f.code, f.detail);
    if !f.hint.is_empty() {
        let _ = write!(out, "  → {}", f.hint);
    }
    out.push('\n');
}

fn server_line(out: &mut String, s: &ServerFinding) {
    let revision = s
        .revision
        .as_deref()
        .map_or_else(String::new, |r| format!(" ({r})"));
    let _ = write!(out, "server {}{revision}: ", s.server);
    match s.code {
        Some(code) => {
            let mark = if s.failed() { '✗' } else { '!' };
            let seq = s.seq.map_or_else(|| "-".to_string(), |q| format!("#{q}"));
            let _ = write!(out, "{mark} {code}  {seq}  {}", s.detail);
            if !s.failed() {
                let _ = write!(out, "; {} visible", s.visible);
            }
            if !s.hint.is_empty() {
                let _ = write!(out, "  → {}", s.hint);
            }
        }
        None => {
            let _ = write!(out, "{}; {} visible", s.detail, s.visible);
        }
    }
    out.push('\n');
    for line in &s.stderr_tail {
        let _ = writeln!(out, "    stderr: {line}");
    }
}

/// The report for people: what was judged, each server and its tools, a verdict.
pub fn text(d: &Diagnosis) -> String {
    let mut out = String::new();
    let _ = match d.basis {
        Basis::LastRequest { seq, shape } => writeln!(
            out,
            "judged against the last LLM request #{seq} ({})",
            provider_name(shape)
        ),
        Basis::WouldBe { shape } => writeln!(
            out,
            "no LLM request in this trace: judged as a host would send the tools to {}",
            provider_name(shape)
        ),
    };
    for s in &d.servers {
        server_line(&mut out, s);
        for f in d
            .tools
            .iter()
            .filter(|f| f.server.as_deref() == Some(&s.server))
        {
            tool_line(&mut out, f);
        }
    }
    let loose: Vec<&ToolFinding> = d.tools.iter().filter(|f| f.server.is_none()).collect();
    if !loose.is_empty() {
        out.push_str("expected\n");
        for f in loose {
            tool_line(&mut out, f);
        }
    }
    out.push_str(&verdict(d));
    out.push('\n');
    out
}

/// One line: how many tools are not visible, and why, by code.
pub fn verdict(d: &Diagnosis) -> String {
    let to = if d.basis.would_be() {
        format!("would be visible to {}", provider_name(d.basis.shape()))
    } else {
        "are visible to the model".to_string()
    };
    let total = d.tools.len();
    let hidden: Vec<&ToolFinding> = d.tools.iter().filter(|f| !f.visible).collect();
    let failed: Vec<&ServerFinding> = d.servers.iter().filter(|s| s.failed()).collect();
    if d.servers.is_empty() && total == 0 {
        return "verdict: no MCP server in this trace".to_string();
    }
    if hidden.is_empty() && failed.is_empty() {
        return format!("verdict: all {total} tool(s) {to}");
    }
    let mut parts = Vec::new();
    if !hidden.is_empty() {
        let mut by_code: BTreeMap<&str, usize> = BTreeMap::new();
        for f in &hidden {
            *by_code.entry(f.code.as_str()).or_default() += 1;
        }
        let codes: Vec<String> = by_code.iter().map(|(c, n)| format!("{c} ×{n}")).collect();
        let not = if d.basis.would_be() {
            "would not be visible"
        } else {
            "not visible to the model"
        };
        parts.push(format!(
            "{} of {total} tool(s) {not}: {}",
            hidden.len(),
            codes.join(", ")
        ));
    }
    if !failed.is_empty() {
        let names: Vec<String> = failed
            .iter()
            .map(|s| format!("{} ({})", s.server, s.code.map_or("", |c| c.as_str())))
            .collect();
        parts.push(format!(
            "{} server(s) listed no tools: {}",
            failed.len(),
            names.join(", ")
        ));
    }
    format!("verdict: {}", parts.join("; "))
}

fn record(kind: &str, value: &impl Serialize) -> String {
    let mut map = Map::new();
    map.insert("record".into(), Value::from(kind));
    if let Ok(Value::Object(fields)) = serde_json::to_value(value) {
        map.extend(fields);
    }
    Value::Object(map).to_string()
}

/// One JSON object per line: each server (`"record":"server"`) followed by its tools
/// (`"record":"tool"`), then expected tools no server can be tied to.
pub fn json_lines(d: &Diagnosis) -> String {
    let mut out = String::new();
    for s in &d.servers {
        out.push_str(&record("server", s));
        out.push('\n');
        for f in d
            .tools
            .iter()
            .filter(|f| f.server.as_deref() == Some(&s.server))
        {
            out.push_str(&record("tool", f));
            out.push('\n');
        }
    }
    for f in d.tools.iter().filter(|f| f.server.is_none()) {
        out.push_str(&record("tool", f));
        out.push('\n');
    }
    out
}
