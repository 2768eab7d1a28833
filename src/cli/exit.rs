//! One exit-status convention for every command, so a script can tell "it found something"
//! from "it could not look":
//!
//! | status | meaning |
//! |---|---|
//! | 0 | fine: the command did its job and found nothing to report |
//! | 1 | findings: violations (`validate`), a tool the model cannot see (`doctor`), a rug pull (`pins check`), poisoning (`poison`), … |
//! | 2 | trouble: bad usage (clap's own usage errors exit 2 too), input that cannot be read or is not what it should be, output that cannot be written, a run that failed |
//!
//! The stdio `proxy` is the exception: it stands in for its server, so it exits with the
//! server's status (128 + the signal when the server was killed, 127 when it cannot start).
//! `export --format otlp --endpoint` exits 1 when the endpoint refuses, fails or hangs (what the
//! backend did, not trouble with the command).
//!
//! Errors reach the user through [`trouble`], which prints the error's chain once, in the
//! command's language ([`super::errors`]): a cause whose text an outer message already quotes
//! (an OS error a typed error's message includes) is not printed again.

use std::process::ExitCode;

/// The command did its job and found nothing to report.
pub const FINE: u8 = 0;
/// The command did its job and found something (violations, invisible tools, rug pulls, …).
pub const FINDINGS: u8 = 1;
/// The command could not do its job: bad usage, unreadable input, unwritable output.
pub const TROUBLE: u8 = 2;

/// [`FINDINGS`] when `found`, else [`FINE`].
pub fn findings(found: bool) -> ExitCode {
    ExitCode::from(if found { FINDINGS } else { FINE })
}

/// Prints `err` on stderr (`sightline: error: ...`) in the command's language
/// ([`super::lang::of_process`]) and returns [`TROUBLE`].
pub fn trouble(err: &anyhow::Error) -> ExitCode {
    let w = crate::i18n::Words::of(super::lang::of_process());
    eprintln!(
        "{}",
        w.fmt(
            "cli_error.line",
            &[("message", &super::errors::message_in(err, w))]
        )
    );
    ExitCode::from(TROUBLE)
}

/// The error and its causes joined by `: `, leaving out each cause whose text is already part
/// of what comes before it.
pub fn message(err: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in err.chain() {
        let text = cause.to_string();
        if text.is_empty() || out.contains(&text) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&text);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("cannot open trace {path}: {source}")]
    struct Open {
        path: String,
        #[source]
        source: std::io::Error,
    }

    #[test]
    fn an_os_error_the_message_already_quotes_is_printed_once() {
        let io = std::io::Error::from(std::io::ErrorKind::NotFound);
        let io_text = io.to_string();
        let err = anyhow::Error::new(Open {
            path: "/x.jsonl".into(),
            source: io,
        });
        let text = message(&err);
        assert_eq!(text, format!("cannot open trace /x.jsonl: {io_text}"));
        assert_eq!(text.matches(&io_text).count(), 1, "{text}");
    }

    #[test]
    fn causes_an_outer_message_does_not_quote_are_kept() {
        let err = anyhow::anyhow!("disk full").context("cannot write out.jsonl");
        assert_eq!(message(&err), "cannot write out.jsonl: disk full");
    }

    #[test]
    fn findings_and_fine_are_one_and_zero() {
        assert_eq!(findings(true), ExitCode::from(1));
        assert_eq!(findings(false), ExitCode::from(0));
    }
}
