//! `sightline doctor --host all`: one table, the listed tools by the hosts, each cell the
//! verdict code that host's profile gives, for a server author who wants to know where their
//! server works. The same diagnosis is run once per profile ([`HostChoice::Named`]).

use std::fmt::Write as _;

use serde::Serialize;

use super::{Code, Diagnosis, DoctorOptions, HostChoice, diagnose};
use crate::analysis::Report;
use crate::analysis::hosts::profiles;
use crate::i18n::Words;
use crate::trace::Event;

/// One row: a tool (`server/tool`) and its code under each host, in [`Matrix::hosts`]' order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    pub server: Option<String>,
    pub tool: String,
    pub codes: Vec<Code>,
}

/// The tools by hosts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Matrix {
    /// Profile ids, in column order.
    pub hosts: Vec<String>,
    pub rows: Vec<Row>,
    /// Each host's diagnosis, for the details behind a cell.
    #[serde(skip)]
    pub diagnoses: Vec<Diagnosis>,
}

impl Matrix {
    /// True when every tool is visible under every host.
    pub fn all_visible(&self) -> bool {
        self.diagnoses.iter().all(Diagnosis::all_visible)
    }
}

/// The diagnosis under every profile.
pub fn matrix(events: &[Event], report: &Report, options: &DoctorOptions) -> Matrix {
    let mut hosts = Vec::new();
    let mut diagnoses = Vec::new();
    for p in profiles() {
        let mut o = options.clone();
        o.host = HostChoice::Named(p);
        hosts.push(p.id.clone());
        diagnoses.push(diagnose(events, report, &o));
    }
    let mut rows: Vec<Row> = Vec::new();
    for (h, d) in diagnoses.iter().enumerate() {
        for f in &d.tools {
            let row = match rows
                .iter_mut()
                .position(|r| r.server == f.server && r.tool == f.tool)
            {
                Some(at) => &mut rows[at],
                None => {
                    rows.push(Row {
                        server: f.server.clone(),
                        tool: f.tool.clone(),
                        codes: Vec::new(),
                    });
                    let last = rows.len() - 1;
                    &mut rows[last]
                }
            };
            row.codes.resize(h, Code::ExpectedNotListed);
            row.codes.push(f.code);
        }
    }
    for r in &mut rows {
        r.codes.resize(hosts.len(), Code::ExpectedNotListed);
    }
    Matrix {
        hosts,
        rows,
        diagnoses,
    }
}

/// The table for people: a column per host, `✓`/`✗` and the code in each cell, then each
/// server-level finding a host gives, then a legend line per host.
pub fn matrix_text(m: &Matrix, w: Words) -> String {
    let name = |r: &Row| match &r.server {
        Some(s) => format!("{s}/{}", r.tool),
        None => r.tool.clone(),
    };
    let cell = |c: Code| format!("{} {c}", if c.is_visible() { '✓' } else { '✗' });
    let first = m
        .rows
        .iter()
        .map(|r| name(r).chars().count())
        .chain([w.get("doctor_matrix.tool").chars().count()])
        .max()
        .unwrap_or(4);
    let widths: Vec<usize> = m
        .hosts
        .iter()
        .enumerate()
        .map(|(h, id)| {
            m.rows
                .iter()
                .map(|r| cell(r.codes[h]).chars().count())
                .chain([id.chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    let pad = |s: &str, n: usize| format!("{s}{}", " ".repeat(n.saturating_sub(s.chars().count())));
    let _ = write!(out, "{}", pad(w.get("doctor_matrix.tool"), first));
    for (id, width) in m.hosts.iter().zip(&widths) {
        let _ = write!(out, "  {}", pad(id, *width));
    }
    out = out.trim_end().to_string();
    out.push('\n');
    for r in &m.rows {
        let mut line = pad(&name(r), first);
        for (c, width) in r.codes.iter().zip(&widths) {
            let _ = write!(line, "  {}", pad(&cell(*c), *width));
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    for (id, d) in m.hosts.iter().zip(&m.diagnoses) {
        for s in d.servers.iter().filter(|s| s.code.is_some()) {
            let code = s.code.map_or("", Code::as_str);
            let seq = s.seq.map_or_else(|| "-".to_string(), |q| format!("#{q}"));
            let _ = writeln!(
                out,
                "{id}: server {}  {code}  {seq}  {}",
                s.server,
                s.detail_in(w)
            );
        }
    }
    let visible: Vec<String> = m
        .hosts
        .iter()
        .zip(&m.diagnoses)
        .map(|(id, d)| {
            let n = d.tools.iter().filter(|t| t.visible).count();
            format!("{id} {n}/{}", d.tools.len())
        })
        .collect();
    let _ = writeln!(
        out,
        "{}",
        w.fmt("doctor_matrix.visible", &[("list", &visible.join(", "))])
    );
    out
}

/// The table as one JSON document: `hosts`, and `rows` of `server`, `tool`, `codes`.
pub fn matrix_json(m: &Matrix) -> String {
    serde_json::to_string(m).unwrap_or_default()
}
