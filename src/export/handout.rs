//! A handout for a class: the sequence diagram, then every step with its narration and the
//! message as it crossed, in one printable page (`sightline export TRACE --format handout
//! [--md] --lang en|pt|es`).
//!
//! A workshop ends with something to take home. The page is what teaching mode shows, laid
//! out for paper: the diagram first (the SVG of [`super::svg`] in HTML, the Mermaid of
//! [`super::mermaid`] in Markdown, which GitHub draws), then one block per event with its
//! number, its arrow, the narration ([`crate::analysis::narration`], in the chosen language)
//! and the raw text. The HTML carries its own print style sheet (A4 margins, no block split
//! across pages, long lines wrapped) and loads nothing, which its Content-Security-Policy
//! makes the browser's rule. The raw text is never reformatted: it is escaped for the page and
//! shown as recorded. In Markdown every text the trace gave (a title, a tool name, a stderr
//! line) is escaped ([`super::markup::markdown`]) and every code span and fence outlasts the
//! backticks inside it: the handout is meant to be published, and a server's words must not
//! become the page's HTML or swallow the rest of it.

use std::fmt::Write as _;

use super::markup::{html as escape, markdown as md, markdown_code, markdown_fence};
use crate::analysis::Report;
use crate::analysis::diagram::{self, Diagram};
use crate::i18n::{Language, Strings};
use crate::trace::Event;

/// One step of the handout.
struct Step {
    seq: u64,
    from: String,
    to: String,
    label: String,
    narration: String,
    /// The request line or status of an HTTP exchange.
    http: Option<String>,
    raw: Option<String>,
}

fn steps(d: &Diagram, events: &[Event], report: &Report, lang: Language) -> Vec<Step> {
    let strings = Strings::embedded();
    (0..events.len())
        .map(|i| {
            let e = &events[i];
            let label = d
                .row_of_event(i)
                .map(|row| d.text(events, report, row, lang).label)
                .unwrap_or_default();
            let http = e.http().and_then(|h| match (&h.method, &h.url, h.status) {
                (Some(m), Some(u), _) => Some(format!("{m} {u}")),
                (_, _, Some(s)) => {
                    Some(strings.fmt(lang, "label.http", &[("status", &s.to_string())]))
                }
                _ => None,
            });
            let raw = (e.raw.is_some() || e.raw_b64().is_some()).then(|| e.text().into_owned());
            Step {
                seq: e.seq,
                from: e.from.to_string(),
                to: e.to.to_string(),
                label,
                narration: crate::analysis::narration::narrate(events, report, i, &strings, lang),
                http,
                raw,
            }
        })
        .collect()
}

fn t(lang: Language, key: &str) -> String {
    Strings::embedded().get(lang, key).to_string()
}

fn f(lang: Language, key: &str, args: &[(&str, &str)]) -> String {
    Strings::embedded().fmt(lang, key, args)
}

const PRINT_CSS: &str = "body{font:15px/1.45 system-ui,sans-serif;max-width:60rem;margin:2rem auto;\
padding:0 1rem;color:#000;background:#fff}h1{font-size:1.6rem}h2{margin-top:2rem}\
.diagram{overflow-x:auto}.step{border-top:1px solid #999;padding:.6rem 0;\
break-inside:avoid}.step h3{font-size:1rem;margin:.2rem 0}.step .arrow{font-family:monospace}\
.narration{font-size:1.05rem}pre{white-space:pre-wrap;word-break:break-all;background:#f4f4f4;\
border:1px solid #ccc;padding:.5rem;font-size:.8rem}.lesson{font-weight:bold}\
@media print{body{margin:0;max-width:none;font-size:11pt}@page{size:A4;margin:15mm}\
h2{break-before:page}.diagram{break-inside:avoid}.diagram svg{max-width:100%;height:auto}pre{font-size:8pt}}";

/// The handout as a standalone HTML page.
pub fn html(title: &str, events: &[Event], report: &Report, lang: Language) -> String {
    let d = diagram::build(events, report);
    let words = crate::i18n::Words::of(lang);
    let svg = super::render_in(super::svg::write_in, &d, events, report, words);
    let svg = svg.trim_start_matches(|c| c != '<');
    // The SVG's own XML declaration does not belong inside HTML.
    let svg = match svg.strip_prefix("<?xml") {
        Some(rest) => rest.split_once("?>").map_or(rest, |(_, s)| s).trim_start(),
        None => svg,
    };
    let mut out = String::new();
    let _ = write!(
        out,
        "<!doctype html>\n<html lang=\"{code}\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         style-src 'unsafe-inline'; img-src data:\">\n<title>{title}</title>\n<style>{PRINT_CSS}</style>\n</head>\n<body>\n<h1>{title}</h1>\n\
         <p class=\"lesson\">{lesson}</p>\n<h2>{diagram}</h2>\n<div class=\"diagram\">\n{svg}\n</div>\n\
         <h2>{steps}</h2>\n",
        code = lang.code(),
        title = escape(title),
        lesson = escape(&lesson(&d, lang)),
        diagram = escape(&t(lang, "handout.diagram")),
        steps = escape(&t(lang, "handout.steps")),
    );
    let raw_title = t(lang, "handout.raw");
    for s in steps(&d, events, report, lang) {
        let _ = write!(
            out,
            "<section class=\"step\" id=\"seq-{seq}\">\n<h3>#{seq} <span class=\"arrow\">{from} → {to}</span> {label}</h3>\n\
             <p class=\"narration\">{narration}</p>\n",
            seq = s.seq,
            from = escape(&s.from),
            to = escape(&s.to),
            label = escape(&s.label),
            narration = escape(&s.narration),
        );
        if s.http.is_some() || s.raw.is_some() {
            let mut body = s.http.map(|h| format!("{h}\n")).unwrap_or_default();
            body.push_str(s.raw.as_deref().unwrap_or(""));
            let _ = writeln!(
                out,
                "<pre aria-label=\"{}\">{}</pre>",
                escape(&raw_title),
                escape(&body)
            );
        }
        out.push_str("</section>\n");
    }
    let _ = write!(
        out,
        "<footer><p>{}</p></footer>\n</body>\n</html>\n",
        escape(&footer(events.len(), lang))
    );
    out
}

/// The handout as Markdown (the diagram as a Mermaid block).
pub fn markdown(title: &str, events: &[Event], report: &Report, lang: Language) -> String {
    let d = diagram::build(events, report);
    let mut out = String::new();
    let mermaid = mermaid(&d, events, report, lang);
    let _ = write!(
        out,
        "# {title}\n\n**{lesson}**\n\n## {diagram}\n\n{fence}mermaid\n{mermaid}{fence}\n\n## {steps}\n\n",
        title = md(title),
        lesson = md(&lesson(&d, lang)),
        diagram = md(&t(lang, "handout.diagram")),
        fence = markdown_fence(&mermaid),
        steps = md(&t(lang, "handout.steps")),
    );
    for s in steps(&d, events, report, lang) {
        let _ = write!(
            out,
            "### #{} {} {}\n\n{}\n\n",
            s.seq,
            markdown_code(&format!("{} → {}", s.from, s.to)),
            md(&s.label),
            md(&s.narration)
        );
        if s.http.is_some() || s.raw.is_some() {
            let mut body = s.http.map(|h| format!("{h}\n")).unwrap_or_default();
            body.push_str(s.raw.as_deref().unwrap_or(""));
            let fence = markdown_fence(&body);
            let _ = write!(out, "{fence}\n{}\n{fence}\n\n", body.trim_end_matches('\n'));
        }
    }
    // Sightline's own words, with their own Markdown (a command in a code span).
    let _ = writeln!(out, "---\n\n{}", footer(events.len(), lang));
    out
}

fn mermaid(d: &Diagram, events: &[Event], report: &Report, lang: Language) -> String {
    let words = crate::i18n::Words::of(lang);
    super::render_in(super::mermaid::write_in, d, events, report, words)
}

fn lesson(d: &Diagram, lang: Language) -> String {
    d.lesson(crate::i18n::Words::of(lang))
}

fn footer(count: usize, lang: Language) -> String {
    f(lang, "handout.footer", &[("count", &count.to_string())])
}
