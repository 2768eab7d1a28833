//! `sightline summary --json`: the same reading as the text summary, one JSON record per
//! event, for scripts (`jq`) rather than people. Nulls and `false` are left out, so a record
//! says only what is true of its event.

use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::analysis::Report;
use crate::trace::{Event, Pairing};

/// One derived JSON record per event (`sightline summary --json`), one per line.
pub fn json_lines(events: &[Event], report: &Report) -> String {
    let mut out = Vec::new();
    // Writing into memory cannot fail.
    let _ = write_json_lines(&mut out, events, report);
    String::from_utf8_lossy(&out).into_owned()
}

/// Writes [`json_lines`] to `w`, a record at a time.
pub fn write_json_lines(
    w: &mut dyn std::io::Write,
    events: &[Event],
    report: &Report,
) -> std::io::Result<()> {
    write_json_lines_kept(w, events, report, &|_| true)
}

/// [`write_json_lines`] for the events `keep` keeps (a display filter, `--filter`).
pub fn write_json_lines_kept(
    w: &mut dyn std::io::Write,
    events: &[Event],
    report: &Report,
    keep: &dyn Fn(usize) -> bool,
) -> std::io::Result<()> {
    let mut out = String::new();
    for (i, (event, d)) in events.iter().zip(&report.rpc.derived).enumerate() {
        if !keep(i) {
            continue;
        }
        w.write_all(out.as_bytes())?;
        out.clear();
        let (paired, unanswered, cancelled_by) = match &d.pairing {
            Pairing::AnsweredBy(s) | Pairing::Answers(s) => (Some(*s), None, None),
            Pairing::Unanswered(why) => (None, Some(why.clone()), None),
            Pairing::Cancelled(s) => (None, None, Some(*s)),
            Pairing::None | Pairing::Orphan => (None, None, None),
        };
        let record = json!({
            "seq": event.seq,
            "time": crate::trace::format_time(event.time),
            "from": event.from,
            "to": event.to,
            "channel": event.channel,
            "kind": d.kind.as_str(),
            "method": d.method,
            "id": d.id.as_ref().map(rpc_id_json),
            "paired": paired,
            "latency_ms": d.latency_us().map(|us| us as f64 / 1000.0),
            "unanswered": unanswered,
            "cancelled_by": cancelled_by,
            "orphan": d.pairing == Pairing::Orphan,
            "revision": d.revision,
            "detail": d.detail,
            "problem": d.problem().map(ToString::to_string),
            "error": d.error().map(|(code, message)| json!({"code": code, "message": message})),
            "retry_of": d.retry_of(),
            "input_required": d.input_required,
            "subscription": d.subscription(),
        });
        let mut record = strip_nulls(record);
        let llm = report.llm_of(i).map(|(n, _)| &report.llm[n]);
        if let (Some(x), Value::Object(map)) = (llm, &mut record) {
            let calls: Vec<Value> = x
                .tool_calls
                .iter()
                .map(|(id, name, args)| json!({"id": id, "name": name, "arguments": args}))
                .collect();
            let llm = if x.request == i {
                json!({"shape": x.shape.map(|s| s.as_str()), "tools": x.tools, "tool_results": x.tool_results})
            } else {
                json!({"status": x.status, "stop_reason": x.stop_reason, "tool_calls": calls, "streamed": x.streamed, "problem": x.problem})
            };
            map.insert("llm".into(), llm);
        }
        if let (Some(c), Value::Object(map)) = (report.chain_of_call(i), &mut record) {
            map.insert(
                "model_call".into(),
                json!({"id": c.call_id, "asked_in": events[c.asked_in].seq}),
            );
        }
        let _ = writeln!(out, "{record}");
    }
    w.write_all(out.as_bytes())
}

/// The id as it was on the wire: a JSON number stays a number, a string a string.
fn rpc_id_json(id: &crate::trace::RpcId) -> Value {
    match id {
        crate::trace::RpcId::Int(i) => Value::from(*i),
        crate::trace::RpcId::Number(n) => {
            serde_json::from_str(n).unwrap_or_else(|_| Value::String(n.to_string()))
        }
        crate::trace::RpcId::String(s) => Value::String(s.to_string()),
    }
}

fn strip_nulls(v: Value) -> Value {
    match v {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(_, v)| !v.is_null() && *v != Value::Bool(false))
                .collect(),
        ),
        other => other,
    }
}
