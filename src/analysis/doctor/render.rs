//! The doctor's two outputs: lines for people, grouped by server, and JSON Lines for scripts.
//!
//! ```text
//! judged against the last LLM request #11 (Anthropic (Messages API))
//! server oddnames (2025-11-25): listed 4 tools (#7); 1 visible
//!   ✓ oddnames/get_time  visible-not-called  #11  sent to the model in the last LLM request (#11); ...
//!   ✗ oddnames/weather.lookup  name-rejected  #8  the host dropped it ...  → rename it on the server, ...
//! verdict: 3 of 4 tools not visible to the model: name-rejected ×3
//! ```

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;
use serde_json::{Map, Value};

use super::rules::provider_name;
use super::{Basis, Diagnosis, ServerFinding, ToolFinding};
use crate::analysis::hosts::By;
use crate::i18n::{Language, Words};

fn tool_line(out: &mut String, f: &ToolFinding, w: Words) {
    let mark = if f.visible { '✓' } else { '✗' };
    let mut name = match &f.server {
        Some(server) => format!("{server}/{}", f.tool),
        None => f.tool.clone(),
    };
    if f.expected {
        name.push_str(w.get("doctor_text.expected_mark"));
    }
    let seq = f.seq.map_or_else(|| "-".to_string(), |s| format!("#{s}"));
    let _ = write!(
        out,
        "  {mark} {name}  {}  {seq}  {}",
        f.code,
        f.detail_in(w)
    );
    if !f.hint.is_empty() {
        let _ = write!(out, "  → {}", f.hint_in(w));
    }
    out.push('\n');
}

fn server_line(out: &mut String, s: &ServerFinding, w: Words) {
    let revision = s
        .revision
        .as_deref()
        .map_or_else(String::new, |r| format!(" ({r})"));
    let head = w.fmt(
        "doctor_text.server",
        &[("name", s.server.as_str()), ("revision", revision.as_str())],
    );
    let _ = write!(out, "{head} ");
    let visible = s.visible.to_string();
    let visible = w.fmt("doctor_text.visible_count", &[("count", &visible)]);
    match s.code {
        Some(code) => {
            let mark = if s.failed() { '✗' } else { '!' };
            let seq = s.seq.map_or_else(|| "-".to_string(), |q| format!("#{q}"));
            let _ = write!(out, "{mark} {code}  {seq}  {}", s.detail_in(w));
            if !s.failed() {
                out.push_str(&visible);
            }
            if !s.hint.is_empty() {
                let _ = write!(out, "  → {}", s.hint_in(w));
            }
        }
        None => {
            let _ = write!(out, "{}{visible}", s.detail_in(w));
        }
    }
    out.push('\n');
    for line in &s.stderr_tail {
        let _ = writeln!(out, "    stderr: {line}");
    }
}

/// The report for people: what was judged, each server and its tools, a verdict (English).
pub fn text(d: &Diagnosis) -> String {
    text_in(d, Words::of(Language::En))
}

/// [`text`] in the language of `w` (`doctor_text.*` and `doctor_hint.*` keys): the framing,
/// the verdict, each finding's detail (`doctor_detail.*`) and each code's hint. Codes, names
/// and event numbers are the same in every language.
pub fn text_in(d: &Diagnosis, w: Words) -> String {
    let mut out = String::new();
    let provider = provider_name(d.basis.shape());
    let basis = match d.basis {
        Basis::LastRequest { seq, .. } => w.fmt(
            "doctor_text.judged_request",
            &[("seq", &seq.to_string()), ("provider", provider)],
        ),
        Basis::WouldBe { .. } => match &d.host {
            Some(h) => w.fmt(
                "doctor_text.judged_host",
                &[("host", h.name.as_str()), ("provider", provider)],
            ),
            None => w.fmt("doctor_text.judged_would_be", &[("provider", provider)]),
        },
    };
    let _ = writeln!(out, "{basis}");
    if let Some(line) = host_line(d, w) {
        let _ = writeln!(out, "{line}");
    }
    for s in &d.servers {
        server_line(&mut out, s, w);
        for f in d
            .tools
            .iter()
            .filter(|f| f.server.as_deref() == Some(&s.server))
        {
            tool_line(&mut out, f, w);
        }
    }
    super::remote::text(&mut out, &d.remote, w);
    let loose: Vec<&ToolFinding> = d.tools.iter().filter(|f| f.server.is_none()).collect();
    if !loose.is_empty() {
        let _ = writeln!(out, "{}", w.get("doctor_text.expected"));
        for f in loose {
            tool_line(&mut out, f, w);
        }
    }
    out.push_str(&verdict_in(d, w));
    out.push('\n');
    out
}

/// The host profile the diagnosis used, and how it was chosen, in the language of `w`.
pub fn host_line(d: &Diagnosis, w: Words) -> Option<String> {
    let h = d.host.as_ref()?;
    Some(match &h.recognised {
        Some(r) => {
            let by = match r.by {
                By::ClientInfo => "host_profile.by_client_info",
                By::UserAgent => "host_profile.by_user_agent",
                By::Tools => "host_profile.by_tools",
            };
            w.fmt(
                "doctor_text.host_recognised",
                &[
                    ("host", h.name.as_str()),
                    ("by", w.get(by)),
                    ("evidence", r.evidence.as_str()),
                    ("seq", &r.seq.to_string()),
                ],
            )
        }
        None => w.fmt("doctor_text.host_named", &[("host", h.name.as_str())]),
    })
}

/// One line, in the language of `w`: how many tools are not visible, and why, by code.
pub fn verdict_in(d: &Diagnosis, w: Words) -> String {
    let provider = provider_name(d.basis.shape());
    let to = if d.basis.would_be() {
        let total = d.tools.len().to_string();
        w.fmt(
            "doctor_text.to_would",
            &[("provider", provider), ("total", &total)],
        )
    } else {
        w.fmt(
            "doctor_text.to_model",
            &[("total", &d.tools.len().to_string())],
        )
    };
    let total = d.tools.len();
    let hidden: Vec<&ToolFinding> = d.tools.iter().filter(|f| !f.visible).collect();
    let failed: Vec<&ServerFinding> = d.servers.iter().filter(|s| s.failed()).collect();
    let verdict = |text: String| w.fmt("doctor_text.verdict", &[("text", &text)]);
    if d.servers.is_empty() && total == 0 {
        if !d.remote.is_empty() {
            let count = d.remote.len().to_string();
            return verdict(w.fmt("doctor_text.remote_only", &[("count", &count)]));
        }
        return verdict(w.get("doctor_text.no_server").to_string());
    }
    if hidden.is_empty() && failed.is_empty() {
        let total = total.to_string();
        return verdict(w.fmt("doctor_text.all", &[("total", &total), ("to", &to)]));
    }
    let mut parts = Vec::new();
    if !hidden.is_empty() {
        let mut by_code: BTreeMap<&str, usize> = BTreeMap::new();
        for f in &hidden {
            *by_code.entry(f.code.as_str()).or_default() += 1;
        }
        let codes: Vec<String> = by_code.iter().map(|(c, n)| format!("{c} ×{n}")).collect();
        let not = if d.basis.would_be() {
            w.get("doctor_text.not_would")
        } else {
            w.get("doctor_text.not_model")
        };
        let (count, total) = (hidden.len().to_string(), total.to_string());
        parts.push(w.fmt(
            "doctor_text.hidden",
            &[
                ("count", &count),
                ("total", &total),
                ("not", not),
                ("codes", &codes.join(", ")),
            ],
        ));
    }
    if !failed.is_empty() {
        let names: Vec<String> = failed
            .iter()
            .map(|s| format!("{} ({})", s.server, s.code.map_or("", |c| c.as_str())))
            .collect();
        let count = failed.len().to_string();
        parts.push(w.fmt(
            "doctor_text.failed",
            &[("count", &count), ("names", &names.join(", "))],
        ));
    }
    verdict(parts.join("; "))
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
/// (`"record":"tool"`), then expected tools no server can be tied to, then the remote
/// servers an LLM API connected to itself (`"record":"remote"`).
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
    if let Some(h) = &d.host {
        let by = h.recognised.as_ref().map(|r| {
            let by = match r.by {
                By::ClientInfo => "clientInfo",
                By::UserAgent => "user-agent",
                By::Tools => "tools",
            };
            serde_json::json!({"by": by, "seq": r.seq, "evidence": r.evidence})
        });
        let host = serde_json::json!({"id": h.id, "name": h.name, "recognised": by});
        out.push_str(&record("host", &host));
        out.push('\n');
    }
    for r in &d.remote {
        out.push_str(&record("remote", r));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::doctor::Code;
    use crate::analysis::doctor::rules::{hint, tool_hint};
    use crate::i18n::Said;

    /// Each code's hint, and each hint written for one tool, has its own text in Portuguese and
    /// Spanish, with the names it quotes kept.
    #[test]
    fn every_hint_is_said_in_each_language() {
        let mut hints: Vec<Said> = Code::ALL.iter().map(|c| hint(*c, "weather")).collect();
        let why =
            "the host drops every tool of server `o` because `a.b` is invalid (all or nothing)";
        for code in [
            Code::NameRejected,
            Code::ServerDropped,
            Code::DuplicateName,
            Code::HostFiltered,
        ] {
            hints.push(tool_hint(code, "weather", "a.b", why));
        }
        for said in hints.iter().filter(|h| !h.is_empty()) {
            let en = said.english();
            assert!(!en.contains("{s"), "a placeholder left: {en}");
            for lang in [Language::Pt, Language::Es] {
                let text = said.say(Words::of(lang));
                assert_ne!(text, en, "{:?} in {}", said.keys(), lang.code());
                for quoted in en.split('`').skip(1).step_by(2) {
                    assert!(text.contains(quoted), "{text} lost `{quoted}`");
                }
            }
        }
        assert!(hint(Code::VisibleCalled, "weather").is_empty());
    }
}
