//! The steps of an LLM API that is itself the MCP client (Anthropic's MCP connector, OpenAI's
//! `mcp` tools), drawn: a lane per remote server, named as the request names it, and under the
//! LLM row that holds each step, the arrows of that step between the LLM API (whose platform
//! runs the MCP client) and the server: `tools/list` and its tools, each `tools/call` with its
//! arguments and result, and the approval round trip with the host. None of them starts at the
//! host or is an event of its own: they happened inside one LLM exchange, which is why they
//! hang under its row ([`super::Diagram::hops`]) rather than being rows.

use super::{Hop, LaneInfo, LaneKind, Status, Style, visible};
use crate::analysis::Report;
use crate::i18n::Said;
use crate::trace::Lane;
use crate::wire::remote::{Problem, StepKind};

/// How many characters of arguments or a result a hop's label shows.
const HOP_CHARS: usize = 60;

/// The remote servers of `report` not already lanes, in order of first mention: a server the
/// trace also recorded (behind `sightline proxy --http`) keeps its own lane.
pub(super) fn lanes(report: &Report, have: &[LaneInfo]) -> Vec<LaneInfo> {
    let mut out: Vec<LaneInfo> = Vec::new();
    let names = report.llm.iter().flat_map(|x| {
        let declared = x.remote_servers.iter().map(|d| d.name.as_str());
        declared.chain(x.remote.iter().filter_map(|s| s.server.as_deref()))
    });
    for name in names {
        let lane = Lane::Server(name.into());
        if have.iter().chain(&out).any(|l| l.lane == lane) {
            continue;
        }
        out.push(LaneInfo {
            lane,
            title: visible(name, 40),
            kind: LaneKind::Remote,
        });
    }
    out
}

/// The hops under each LLM row, sorted by row.
pub(super) fn hops(report: &Report, lanes: &[LaneInfo]) -> Vec<(usize, Vec<Hop>)> {
    let Some(llm) = lanes.iter().position(|l| l.kind == LaneKind::Llm) else {
        return Vec::new();
    };
    let host = lanes.iter().position(|l| l.kind == LaneKind::Host);
    let lane_of = |server: Option<&str>| {
        let lane = Lane::Server(server?.into());
        lanes.iter().position(|l| l.lane == lane)
    };
    let text = |value: &str| visible(value, HOP_CHARS);
    let mut out: Vec<(usize, Vec<Hop>)> = Vec::new();
    for x in &report.llm {
        let (mut at_request, mut at_response) = (Vec::new(), Vec::new());
        for step in &x.remote {
            let tool = step.tool.as_deref().unwrap_or("?");
            let arguments = step
                .arguments
                .as_ref()
                .map_or(String::new(), |a| format!(" {}", text(&a.to_string())));
            let undeclared = x
                .remote_problems
                .iter()
                .any(|p| matches!(p, Problem::Undeclared { at, .. } if *at == step.at));
            let status = match undeclared {
                true => Status::Problem,
                false => Status::Ok,
            };
            let hop = |from, to, style, label: Said| Hop {
                from,
                to,
                style,
                status: status.clone(),
                label,
                lead: false,
            };
            let server = lane_of(step.server.as_deref());
            let back = |hops: &mut Vec<Hop>, server: usize| {
                let (style, label) = match (&step.error, &step.output) {
                    (Some(error), _) => (
                        Style::Error,
                        Said::new("label.hop_error").with("text", text(error)),
                    ),
                    (None, Some(output)) => (
                        Style::Response,
                        Said::new("label.hop_result").with("text", text(output)),
                    ),
                    (None, None) => return,
                };
                hops.push(hop(server, llm, style, label));
            };
            match (step.kind, server) {
                (StepKind::List, Some(server)) => {
                    let list = Said::plain("tools/list");
                    at_response.push(hop(llm, server, Style::Request, list));
                    let label = match &step.error {
                        Some(error) => Said::new("label.hop_error").with("text", text(error)),
                        None => Said::new("label.hop_listed")
                            .with("tools", text(&step.tools.join(", "))),
                    };
                    let style = match step.error {
                        Some(_) => Style::Error,
                        None => Style::Response,
                    };
                    at_response.push(hop(server, llm, style, label));
                }
                (StepKind::Call, Some(server)) => {
                    let label = Said::plain(format!("tools/call {tool}{arguments}"));
                    at_response.push(hop(llm, server, Style::Request, label));
                    back(&mut at_response, server);
                }
                (StepKind::ApprovalRequest, _) => {
                    if let Some(host) = host {
                        let label = Said::plain(format!("mcp_approval_request {tool}{arguments}"));
                        at_response.push(hop(llm, host, Style::Request, label));
                    }
                }
                (StepKind::ApprovalResponse, _) => {
                    if let Some(host) = host {
                        let answer = match step.approved {
                            Some(true) => "label.approve",
                            _ => "label.refuse",
                        };
                        let label = Said::new("label.approval_response")
                            .with_said("answer", Said::new(answer))
                            .with("id", &step.id);
                        at_request.push(hop(host, llm, Style::Response, label));
                    }
                }
                // A result without its call, or a step without a server: on the API's lifeline.
                (StepKind::Result | StepKind::List | StepKind::Call, _) => {
                    let label = match &step.error {
                        Some(error) => Said::new("label.lone_error")
                            .with("at", &step.at)
                            .with("text", text(error)),
                        None => Said::new("label.lone_result").with("at", &step.at),
                    };
                    let mut lone = hop(llm, llm, Style::Note, label);
                    lone.status = Status::Problem;
                    at_response.push(lone);
                }
            }
        }
        if !at_request.is_empty() {
            out.push((x.request, at_request));
        }
        if let Some(response) = x.response.filter(|_| !at_response.is_empty()) {
            out.push((response, at_response));
        }
    }
    out.sort_by_key(|h| h.0);
    out
}
