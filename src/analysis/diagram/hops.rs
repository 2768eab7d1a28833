//! Arrows that happened inside one LLM exchange and are no event of their own, hung under
//! (or, for a lead, just above) the row of the event that shows them ([`Diagram::hops`]):
//! the steps of an API that is itself the MCP client ([`super::remote`]), and what a recorded
//! host did on its own side, which no event records. For a recorded host, that is the user's
//! words, an arrow from the User lane just above the request that carries them, and each tool
//! the host (or the API) runs itself, a note on its own lifeline under the answer that asked
//! for it (Claude Code's `ToolSearch` and `Bash`, Codex's shell, the API's `web_search`).
//! Without them a real host's recording starts with a request nobody asked for and shows
//! calls that go nowhere; with them the picture says who asked, and that no MCP server saw
//! those calls.
//!
//! Sightline's own host records its user as events, so a trace with any User lane event gets
//! no user hops.

use super::{Diagram, LaneInfo, LaneKind, Row, Status, Style, visible};
use crate::analysis::Report;
use crate::i18n::{Language, Said, Words};
use crate::trace::{Event, Lane};
use crate::wire::offered::{CallKind, Kind};

/// One arrow inside an exchange: of the API's MCP client, of its approval round trip with the
/// host, the user's words, or a tool run on a lifeline of its own (`from == to`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hop {
    /// Lane indices.
    pub from: usize,
    pub to: usize,
    /// [`Style::Request`] out, [`Style::Response`] back, [`Style::Error`] for an error,
    /// [`Style::Note`] for a step on one lifeline.
    pub style: Style,
    pub status: Status,
    /// `tools/call get_weather {"location":"Seoul"}`, `result "Sunny, 24°C"`, the user's words:
    /// kept unsaid, so every picture says it in its reader's language ([`Hop::label_in`]).
    pub label: Said,
    /// Drawn above the row's own arrow, not under it: what happened before its event (the
    /// user's words come before the request that carries them).
    pub lead: bool,
}

impl Hop {
    /// The label in `lang`: its own words translated, the protocol's names and what a party
    /// wrote as they are.
    pub fn label_in(&self, lang: Language) -> String {
        self.label.say(Words::of(lang))
    }

    /// The hop as a row of event `event` (the event whose exchange it is inside), to draw.
    pub fn row(&self, event: usize) -> Row {
        Row::new(event, self.from, self.to, self.style, self.status.clone())
    }
}

impl Diagram {
    /// The hops of row `row`, its leads first (see [`Hop`]); empty for most rows.
    pub fn hops(&self, row: usize) -> &[Hop] {
        match self.hops.binary_search_by_key(&row, |h| h.0) {
            Ok(k) => &self.hops[k].1,
            Err(_) => &[],
        }
    }

    /// How many of row `row`'s hops are drawn above its own arrow.
    pub fn leads(&self, row: usize) -> usize {
        self.hops(row).iter().take_while(|h| h.lead).count()
    }

    /// Row `row`'s hops, each with its line in the row's block: the leads take the first
    /// lines, the row's own arrow the next ([`Diagram::leads`]), the others the lines after.
    pub fn hop_lines(&self, row: usize) -> impl Iterator<Item = (usize, &Hop)> {
        let leads = self.leads(row);
        let line = move |k: usize| if k < leads { k } else { k + 1 };
        self.hops(row)
            .iter()
            .enumerate()
            .map(move |(k, h)| (line(k), h))
    }

    /// The rows that have hops, in order.
    pub fn hop_rows(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.hops.iter().map(|(row, hops)| (*row, hops.len()))
    }

    /// How many hops the whole diagram has (what a painter adds room for).
    pub fn hop_count(&self) -> usize {
        self.hops.iter().map(|h| h.1.len()).sum()
    }
}

/// How many characters of the user's words, or of a call's arguments, a hop's label shows.
const WORDS_CHARS: usize = 60;

/// The hops of the host's own side, by row (sorted, a row once).
/// `users_recorded`: whether the trace has User lane events of its own ([`users_recorded`]).
pub(super) fn hops(
    report: &Report,
    lanes: &[LaneInfo],
    users_recorded: bool,
) -> Vec<(usize, Vec<Hop>)> {
    let lane = |kind: LaneKind| lanes.iter().position(|l| l.kind == kind);
    let (Some(user), Some(host), Some(llm)) = (
        lane(LaneKind::User),
        lane(LaneKind::Host),
        lane(LaneKind::Llm),
    ) else {
        return Vec::new();
    };
    let mut out: Vec<(usize, Vec<Hop>)> = Vec::new();
    let mut said: Option<&str> = None;
    for x in report.llm.iter().filter(|x| x.sampling_for.is_none()) {
        // A host sends the same words again in side requests (a title, a quota check): the
        // user said them once.
        if let Some(words) = x.user_words.as_deref().filter(|_| !users_recorded)
            && said != Some(words)
        {
            said = Some(words);
            let hop = Hop {
                from: user,
                to: host,
                style: Style::Request,
                status: Status::Ok,
                label: Said::plain(visible(words, WORDS_CHARS)),
                lead: true,
            };
            out.push((x.request, vec![hop]));
        }
        let Some(response) = x.response else { continue };
        let mut runs = Vec::new();
        for call in &x.calls {
            let whose = match call.kind {
                CallKind::Server => llm,
                CallKind::Client => match x.offered.find(&call.name, call.namespace.as_deref()) {
                    Some(t) if t.kind == Kind::Host => host,
                    Some(t) if t.kind == Kind::Api => llm,
                    _ => continue,
                },
            };
            let arguments = x
                .tool_calls
                .iter()
                .find(|(id, _, _)| !call.id.is_empty() && *id == call.id)
                .and_then(|(_, _, a)| a.as_ref())
                .map_or(String::new(), |a| {
                    format!(" {}", visible(&a.to_string(), WORDS_CHARS))
                });
            runs.push(Hop {
                from: whose,
                to: whose,
                style: Style::Note,
                status: Status::Ok,
                label: Said::plain(format!("{}{arguments}", visible(&call.name, WORDS_CHARS))),
                lead: false,
            });
        }
        if !runs.is_empty() {
            out.push((response, runs));
        }
    }
    out.sort_by_key(|h| h.0);
    out
}

/// Whether any of `events` goes to or from the User lane.
pub(super) fn users_recorded(events: &[Event]) -> bool {
    events
        .iter()
        .any(|e| e.from == Lane::User || e.to == Lane::User)
}

/// `a` and `b` (each sorted by row) as one table, a row once: its leads first, then the rest,
/// each in the order they came.
pub(super) fn merge(
    a: Vec<(usize, Vec<Hop>)>,
    b: Vec<(usize, Vec<Hop>)>,
) -> Vec<(usize, Vec<Hop>)> {
    let mut all: Vec<(usize, Vec<Hop>)> = a.into_iter().chain(b).collect();
    all.sort_by_key(|h| h.0);
    let mut out: Vec<(usize, Vec<Hop>)> = Vec::with_capacity(all.len());
    for (row, hops) in all {
        match out.last_mut() {
            Some((last, into)) if *last == row => into.extend(hops),
            _ => out.push((row, hops)),
        }
    }
    for (_, hops) in &mut out {
        hops.sort_by_key(|h| !h.lead);
    }
    out
}
