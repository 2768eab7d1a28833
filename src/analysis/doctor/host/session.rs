//! What a profile says of a server's session: too slow to start for the host's timeout, or a
//! list the host would keep after `tools/list_changed`.

use serde_json::Value;

use super::{cite, name_of};
use crate::analysis::doctor::index::LaneEvents;
use crate::analysis::doctor::{Code, Ctx};
use crate::analysis::hosts::{Profile, Support};
use crate::i18n::Said;

/// The events of `server`'s lane.
fn lane<'c>(ctx: &'c Ctx, server: &str) -> Option<&'c LaneEvents> {
    ctx.index
        .lanes
        .iter()
        .find(|l| l.lane.server_name() == Some(server))
}

/// The session's spawn: the last before the cut.
fn spawn(ctx: &Ctx, l: &LaneEvents) -> Option<usize> {
    l.spawns
        .iter()
        .copied()
        .rfind(|&i| i < ctx.cut)
        .or(l.spawns.first().copied())
}

/// A server that answered its handshake later than the host's startup timeout.
pub(super) fn too_slow(ctx: &Ctx, p: &Profile, server: &str) -> Option<(Code, usize, Said, Said)> {
    let timeout = p.startup_timeout.as_ref()?;
    let l = lane(ctx, server)?;
    let start = spawn(ctx, l)?;
    let (request, _) = l
        .requests
        .iter()
        .find(|(i, m)| *i > start && matches!(*m, "initialize" | "server/discover"))?;
    let answer = ctx.answer(*request)?;
    let ms = (ctx.events[answer].time - ctx.events[start].time).num_milliseconds();
    if ms <= i64::try_from(timeout.rule.ms).unwrap_or(i64::MAX) {
        return None;
    }
    let said = Said::new("doctor_host.too_slow")
        .with("host", &p.name)
        .with("seq", ctx.seq(answer))
        .with("spawn", ctx.seq(start))
        .with("ms", ms)
        .with("max", timeout.rule.ms)
        .with_said("cite", cite(p, timeout));
    let hint = Said::new("doctor_hint.too_slow_to_start").with("server", server);
    Some((Code::TooSlowToStart, answer, said, hint))
}

/// Under a host that ignores `tools/list_changed`: the tools of the last listing its first
/// listing lacked, each with the notification and the detail.
pub(super) fn stale(
    ctx: &Ctx,
    p: &Profile,
    server: &str,
    tools: &[Value],
) -> Vec<(String, (usize, Said))> {
    let Some(rule) = p
        .list_changed
        .as_ref()
        .filter(|r| r.rule.support == Support::Ignored)
    else {
        return Vec::new();
    };
    let Some(l) = lane(ctx, server) else {
        return Vec::new();
    };
    let start = spawn(ctx, l).unwrap_or(0);
    let first = l
        .requests
        .iter()
        .find(|(i, m)| *i >= start && *m == "tools/list")
        .and_then(|(i, _)| ctx.answer(*i));
    let Some(first) = first else {
        return Vec::new();
    };
    let Some(changed) = l.list_changed.iter().copied().find(|&i| i > first) else {
        return Vec::new();
    };
    let known: Vec<String> = ctx
        .json(first)
        .and_then(|v| {
            v.pointer("/result/tools")
                .and_then(Value::as_array)
                .cloned()
        })
        .unwrap_or_default()
        .iter()
        .map(|t| name_of(t).to_string())
        .collect();
    tools
        .iter()
        .map(name_of)
        .filter(|n| !known.iter().any(|k| k == n))
        .map(|n| {
            let said = Said::new("doctor_host.stale")
                .with("host", &p.name)
                .with("seq", ctx.seq(changed))
                .with("name", n)
                .with_said("cite", cite(p, rule));
            (n.to_string(), (changed, said))
        })
        .collect()
}
