//! What a profile says of a server's session: too slow to start for the host's timeout, a
//! list the host would keep after `tools/list_changed`, or pages of `tools/list` it does not
//! read (Claude Code before 2.1.144, by the version its `clientInfo` names).

use serde_json::Value;

use super::{Verdict, cite, name_of};
use crate::analysis::doctor::index::LaneEvents;
use crate::analysis::doctor::session::{Listed, Listing};
use crate::analysis::doctor::{Code, Ctx};
use crate::analysis::hosts::{Profile, Recognised, Support};
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

/// The host's version as a verdict names it: ` 2.1.100 (clientInfo, #1)`, or that none was
/// recorded.
fn version_said(host: Option<&Recognised>) -> Said {
    match host.and_then(|r| Some((r.version.as_deref()?, r.seq))) {
        Some((v, seq)) => Said::new("doctor_host.version")
            .with("version", v)
            .with("seq", seq),
        None => Said::new("doctor_host.version_unknown"),
    }
}

fn pages_hint(p: &Profile, until: Option<&str>) -> Said {
    match until {
        Some(until) => Said::new("doctor_host.hint_pages_upgrade")
            .with("host", &p.name)
            .with("until", until),
        None => Said::new("doctor_host.hint_pages"),
    }
}

/// A tool on a later page than the first under a host that reads only the first: `v` (the
/// verdict of its other rules) replaced when the recorded version reads one page, or, when
/// no version is recorded and the tool would be visible, said with the version that would
/// not read it. `host`: the recognised host, when it is this profile's.
pub(super) fn paged(
    ctx: &Ctx,
    p: &Profile,
    host: Option<&Recognised>,
    listed: &Listed,
    v: Verdict,
) -> Verdict {
    let Some(rule) = p.pagination.as_ref().filter(|_| listed.page > 0) else {
        return v;
    };
    let until = rule.rule.until.as_deref();
    let version = host.and_then(|r| r.version.as_deref());
    let where_ = |key| {
        Said::new(key)
            .with("host", &p.name)
            .with("name", name_of(&listed.tool))
            .with("page", listed.page + 1)
            .with("seq", ctx.seq(listed.at))
            .with("until", until.unwrap_or_default())
            .with_said("cite", cite(p, rule))
    };
    match rule.rule.first_page_only(version) {
        Some(false) => v,
        Some(true) => Verdict {
            code: Code::PageNotRead,
            at: listed.at,
            said: where_("doctor_host.page_unread").with_said("version", version_said(host)),
            hint: pages_hint(p, until),
        },
        None if v.code.is_visible() => Verdict {
            said: where_("doctor_host.page_maybe").with_said("said", v.said),
            hint: pages_hint(p, until),
            ..v
        },
        None => v,
    }
}

/// A listing whose last page has a `nextCursor` the recorded host never followed, under a
/// profile that reads only the first page at its version (or at some version, none
/// recorded): the server-level verdict, at the last page's result.
pub(super) fn unfollowed(
    ctx: &Ctx,
    p: &Profile,
    host: Option<&Recognised>,
    listing: &Listing,
) -> Option<(Code, usize, Said, Said)> {
    let rule = p.pagination.as_ref().filter(|_| listing.more)?;
    let host = host?;
    let until = rule.rule.until.as_deref();
    if rule.rule.first_page_only(host.version.as_deref()) == Some(false) {
        return None;
    }
    let said = Said::new("doctor_host.pages_unfollowed")
        .with("host", &p.name)
        .with_said("version", version_said(Some(host)))
        .with("seq", ctx.seq(listing.result))
        .with("count", listing.tools.len())
        .with("until", until.unwrap_or_default())
        .with_said("cite", cite(p, rule));
    Some((
        Code::PageNotRead,
        listing.result,
        said,
        pages_hint(p, until),
    ))
}
