//! `--filter EXPR` of `summary`, `export` and `stats`: the display-filter language
//! ([`crate::analysis::filter`]) read once, a mistake shown with a caret under its column, and
//! which events the filter keeps.

use crate::analysis::filter::{self, Matcher};
use crate::i18n::Said;
use crate::trace::{Analysis, Event};

/// The filter's text parsed, or an error (exit status 2) that shows it with a caret.
pub fn parse(text: &str) -> anyhow::Result<Matcher> {
    match filter::parse(text) {
        Ok(f) => Ok(Matcher::new(&f)),
        Err(e) => {
            let shown: String = text
                .chars()
                .map(|c| if c.is_control() { ' ' } else { c })
                .collect();
            let caret = format!("{}^", " ".repeat(e.column.saturating_sub(1)));
            Err(super::errors::Saying(
                Said::new("cli_error.filter")
                    .with_said("problem", e.said())
                    .with("filter", shown)
                    .with("caret", caret),
            )
            .into())
        }
    }
}

/// Which events `matcher` keeps, index for index.
pub fn kept(events: &[Event], analysis: &Analysis, matcher: &Matcher) -> Vec<bool> {
    matcher.keeps(events, &analysis.derived)
}
