//! One server's session, read in the order things must happen for its tools to reach a host:
//! spawn, handshake (`initialize` or `server/discover`), the `tools` capability, `tools/list`
//! (every page), and no unanswered `list_changed` afterwards.
//!
//! The session is the one in force at the cut (the last LLM request, or the end of the trace):
//! it starts at the server's last spawn before the cut and ends at its next spawn.

use serde_json::Value;

use super::index::LaneEvents;
use super::rules::hint;
use super::{Code, Ctx, ServerFinding};
use crate::i18n::Said;
use crate::trace::{Channel, Event, Kind, Lane};

mod steps;

/// How many stderr lines a crash report carries.
const STDERR_TAIL: usize = 5;

/// What the host got from one server.
pub(super) struct Server {
    pub name: String,
    pub finding: ServerFinding,
    /// The tools of the last listing, every page joined.
    pub listing: Option<Listing>,
    /// The `list_changed` notification the host did not act on, with the detail to cite.
    pub stale: Option<(usize, Said)>,
    /// The name it announced in its handshake: `serverInfo.title`, else `.name`.
    pub announced: Option<String>,
}

/// A server's last `tools/list`, its pages joined in order.
#[derive(Debug, Clone, Default)]
pub(super) struct Listing {
    /// Every tool, with the page and the result that listed it.
    pub tools: Vec<Listed>,
    /// The result of each page, in order.
    pub pages: Vec<usize>,
    /// The last page's result.
    pub result: usize,
    /// Whether the last page still had a `nextCursor` (a page the host never asked for).
    pub more: bool,
}

/// One tool of a listing.
#[derive(Debug, Clone)]
pub(super) struct Listed {
    pub tool: Value,
    /// 0 for the first page.
    pub page: usize,
    /// The result that listed it.
    pub at: usize,
}

impl Listing {
    /// The tools' definitions, in order.
    pub fn definitions(&self) -> Vec<Value> {
        self.tools.iter().map(|t| t.tool.clone()).collect()
    }
}

/// Every server lane of the trace, in order of first appearance.
pub(super) fn servers(ctx: &Ctx) -> Vec<Server> {
    ctx.index.lanes.iter().map(|ix| server(ctx, ix)).collect()
}

/// The server of the `at`th server lane, if there is one.
pub(super) fn server_at(ctx: &Ctx, at: usize) -> Option<Server> {
    ctx.index.lanes.get(at).map(|ix| server(ctx, ix))
}

fn str_at<'v>(v: &'v Value, pointer: &str) -> Option<&'v str> {
    v.pointer(pointer).and_then(Value::as_str)
}

/// The session's events and the facts read from them.
struct Session<'c, 'a> {
    ctx: &'c Ctx<'a>,
    lane: &'c Lane,
    /// The lane's events the doctor looks at.
    ix: &'c LaneEvents,
    name: String,
    start: usize,
    end: usize,
    /// The server's exit in this session, if it exited.
    exit: Option<usize>,
}

fn is_process(e: &Event, lane: &Lane, what: &[&str]) -> bool {
    e.channel == Channel::Process
        && (e.from == *lane || e.to == *lane)
        && e.process()
            .is_some_and(|p| what.contains(&p.event.as_str()))
}

fn server(ctx: &Ctx, ix: &LaneEvents) -> Server {
    let events = ctx.events;
    let spawns = &ix.spawns;
    let before_cut = spawns.partition_point(|&i| i < ctx.cut.min(events.len()));
    let start = match before_cut {
        0 => spawns.last().copied().unwrap_or(0),
        n => spawns[n - 1],
    };
    let end = spawns
        .iter()
        .copied()
        .find(|&i| i > start)
        .unwrap_or(events.len());
    let exit = ix
        .exits
        .iter()
        .copied()
        .find(|&i| (start..end).contains(&i));
    let s = Session {
        ctx,
        lane: &ix.lane,
        ix,
        name: ix.lane.server_name().unwrap_or_default().to_string(),
        start,
        end,
        exit,
    };
    s.read()
}

impl Session<'_, '_> {
    fn finding(
        &self,
        code: Option<Code>,
        at: Option<usize>,
        detail: impl Into<Said>,
    ) -> ServerFinding {
        let said: Said = detail.into();
        let revision = self
            .ctx
            .report
            .rpc
            .sessions
            .iter()
            .find(|(l, _)| l == self.lane)
            .and_then(|(_, s)| s.revision.clone());
        ServerFinding {
            server: self.name.clone(),
            code,
            seq: at.map(|i| self.ctx.seq(i)),
            hint: code.map_or_else(Said::empty, |c| hint(c, &self.name)),
            detail: said.english(),
            said,
            revision,
            listed: 0,
            visible: 0,
            stderr_tail: Vec::new(),
        }
    }

    fn failed(&self, code: Code, at: usize, detail: impl Into<Said>) -> Server {
        let mut finding = self.finding(Some(code), Some(at), detail);
        if code == Code::ServerCrashed {
            finding.stderr_tail = self.stderr_tail(at);
        }
        Server {
            name: self.name.clone(),
            finding,
            listing: None,
            stale: None,
            announced: None,
        }
    }

    /// Host requests to this server with one of `methods` (of those the reader follows),
    /// before the cut.
    fn requests(&self, methods: &[&str]) -> Vec<usize> {
        let range = self.start..self.end.min(self.ctx.cut);
        self.ix
            .requests
            .iter()
            .filter(|(i, m)| range.contains(i) && methods.contains(m))
            .map(|&(i, _)| i)
            .collect()
    }

    /// The last stderr lines before `at` (an exit), oldest first.
    fn stderr_tail(&self, at: usize) -> Vec<String> {
        let mut tail: Vec<String> = self
            .ix
            .stderr
            .iter()
            .rev()
            .filter(|&&i| (self.start..at).contains(&i))
            .take(STDERR_TAIL)
            .map(|&i| self.ctx.events[i].text().into_owned())
            .collect();
        tail.reverse();
        tail
    }

    /// The exit that left the request at `req` unanswered, unless the host (or Sightline)
    /// stopped the server or gave up on it first.
    fn crash_during(&self, req: usize) -> Option<usize> {
        let exit = self.exit?;
        if self.ctx.answer(req).is_some() || self.stopped_by_host(exit) {
            return None;
        }
        self.gave_up(req).is_none().then_some(exit)
    }

    /// A host note after the request at `req` and before the server's exit (or the end): the
    /// host saying it stopped waiting.
    fn gave_up(&self, req: usize) -> Option<usize> {
        let until = self.exit.unwrap_or(self.end).max(req);
        self.host_notes(req..until)
            .find(|&i| self.ctx.events[i].to == Lane::Host)
    }

    /// The host's notes in `range`, in order.
    fn host_notes(&self, range: std::ops::Range<usize>) -> impl Iterator<Item = usize> + '_ {
        let notes = &self.ctx.index.host_notes;
        let from = notes.partition_point(|&i| i < range.start);
        notes[from..]
            .iter()
            .copied()
            .take_while(move |&i| i < range.end)
    }

    fn stopped_by_host(&self, exit: usize) -> bool {
        self.ctx.events[exit]
            .process()
            .is_some_and(|p| p.detail.is_some())
    }

    fn describe_exit(&self, exit: usize) -> Said {
        let p = self.ctx.events[exit].process().cloned().unwrap_or_default();
        let seq = self.ctx.seq(exit);
        match (p.code, p.signal) {
            (Some(code), _) => Said::new("doctor_server.exited_code").with("code", code),
            (None, Some(signal)) => Said::new("doctor_server.killed")
                .with("signal", signal)
                .with("name", crate::trace::signal_name(signal)),
            (None, None) => Said::new("doctor_server.exited"),
        }
        .with("seq", seq)
    }

    /// The server's exit left `before` (a request, said) unanswered: how it ended and the
    /// last lines it wrote to stderr.
    fn crashed(&self, exit: usize, before: Said) -> Server {
        let tail = self.stderr_tail(exit);
        let stderr = if tail.is_empty() {
            Said::new("doctor_server.no_stderr")
        } else {
            let lines: Vec<String> = tail.iter().map(|l| format!("{l:?}")).collect();
            Said::new("doctor_server.last_stderr").with("lines", lines.join(" / "))
        };
        let detail = Said::new("doctor_server.crashed")
            .with_said("exit", self.describe_exit(exit))
            .with_said("before", before)
            .with_said("stderr", stderr);
        self.failed(Code::ServerCrashed, exit, detail)
    }

    fn read(&self) -> Server {
        let ctx = self.ctx;
        let e = &ctx.events[self.start];
        if is_process(e, self.lane, &["spawn-failed"]) {
            let p = e.process().cloned().unwrap_or_default();
            // The reason is the system's, as recorded: quoted where the sentence is not English.
            let detail = match p.detail {
                Some(reason) => Said::new("doctor_server.not_started").with("reason", reason),
                None => Said::new("doctor_server.not_started_no_reason"),
            }
            .with("command", p.command.join(" "));
            return self.failed(Code::ServerFailedToStart, self.start, detail);
        }

        // The handshake: the last one that succeeded (so an `auto` fallback from
        // server/discover to initialize counts), else the last one tried.
        let handshakes = self.requests(&["initialize", "server/discover"]);
        let succeeded = |&h: &usize| {
            ctx.answer(h)
                .is_some_and(|r| ctx.report.rpc.derived[r].kind == Kind::Response)
        };
        let handshake = handshakes
            .iter()
            .rev()
            .find(|h| succeeded(h))
            .or(handshakes.last())
            .copied();
        let mut no_tools = None;
        let mut notes = Vec::new();
        let mut after = handshake;
        if let Some(h) = handshake {
            match self.handshake(h, &mut notes) {
                Ok((result, tools_capability)) => {
                    after = Some(result);
                    if !tools_capability {
                        no_tools = Some(result);
                    }
                }
                Err(server) => return *server,
            }
        }

        let lists = self.requests(&["tools/list"]);
        let Some(&last) = lists.last() else {
            if let Some(result) = no_tools {
                return self.no_tools(result, Said::new("doctor_server.list_never_sent"));
            }
            if let Some(exit) = self
                .exit
                .filter(|&x| !self.stopped_by_host(x) && abnormal(ctx, x))
            {
                // With no handshake recorded, the server died before the first request
                // reached it: that request, not tools/list, is what it never answered.
                let before = match handshake {
                    Some(_) => Said::new("doctor_server.list_not_sent"),
                    None => Said::new("doctor_server.handshake_not_sent"),
                };
                return self.crashed(exit, before);
            }
            let at = after.unwrap_or(self.start);
            let what = match (handshake, ctx.cut < ctx.events.len()) {
                (Some(_), true) => {
                    Said::new("doctor_server.list_never_sent_before").with("seq", ctx.seq(at))
                }
                (Some(_), false) => {
                    Said::new("doctor_server.handshake_no_list").with("seq", ctx.seq(at))
                }
                (None, _) => Said::new("doctor_server.nothing_sent"),
            };
            return self.failed(Code::ToolsListNeverSent, at, what);
        };

        let listing = self.listing(&lists);
        let mut server = match self.list_outcome(last, no_tools) {
            Some(failed) => Server {
                listing: listing.clone(),
                ..failed
            },
            None => {
                if no_tools.is_some() {
                    notes.push(Said::new("doctor_detail.no_tools_capability"));
                }
                let Listing { tools, result, .. } = listing.clone().unwrap_or_default();
                let mut detail = Said::new("doctor_detail.listed")
                    .with("count", tools.len())
                    .with("seq", ctx.seq(result));
                for note in notes {
                    detail = Said::new("doctor_detail.then")
                        .with_said("a", detail)
                        .with_said("b", note);
                }
                Server {
                    name: self.name.clone(),
                    finding: self.finding(None, Some(result), detail),
                    listing: listing.clone(),
                    stale: None,
                    announced: None,
                }
            }
        };
        server.finding.listed = listing.as_ref().map_or(0, |l| l.tools.len());
        server.announced = after.and_then(|r| {
            let info = ctx.json(r)?.pointer("/result/serverInfo")?.clone();
            let named = |k: &str| info.get(k)?.as_str().filter(|t| !t.is_empty());
            named("title").or_else(|| named("name")).map(str::to_string)
        });
        if let Some(l) = &listing {
            server.stale = self.stale(l.result);
            if let (None, Some((at, detail))) = (server.finding.code, &server.stale) {
                server.finding.code = Some(Code::StaleList);
                server.finding.seq = Some(ctx.seq(*at));
                server.finding.said = Said::new("doctor_detail.then")
                    .with_said("a", server.finding.said.clone())
                    .with_said("b", detail.clone());
                server.finding.detail = server.finding.said.english();
                server.finding.hint = hint(Code::StaleList, &self.name);
            }
        }
        server
    }
}

/// An exit with a non-zero code or a signal.
fn abnormal(ctx: &Ctx, exit: usize) -> bool {
    ctx.events[exit]
        .process()
        .is_some_and(|p| p.code.is_some_and(|c| c != 0) || p.signal.is_some())
}
