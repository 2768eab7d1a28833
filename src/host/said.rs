//! The host's errors said in each language: a run that failed (a server that did not start or
//! answer, an LLM API that refused or broke off), for the command line's errors and the app's
//! notice when a live run fails. The errors keep their English `Display` (logs, JSON); each is
//! worded here from its variant and fields, the `tap`'s too (it uses no `i18n`). What another
//! party wrote (an API's message, a body, the system's error) is quoted as it is.

use super::agent::RunError;
use super::mcp::ConnectError;
use super::provider::ProviderError;
use super::provider::error::secs;
use super::replay::{PlanError, ReplayError};
use crate::i18n::Said;
use crate::tap::{ExitOutcome, TapError};

/// A failed run as a sentence each language can say.
pub fn run(e: &RunError) -> Said {
    match e {
        RunError::Connect(c) => connect(c),
        RunError::Provider(p) => provider(p),
        RunError::Scripted(detail) => Said::new("cli_error.scripted_failed").with("detail", detail),
        RunError::Response(detail) => {
            Said::new("cli_error.response_unreadable").with("detail", detail)
        }
        RunError::SelfExe(source) => {
            Said::new("cli_error.self_exe_builtin").with_said("why", Said::io(source))
        }
        RunError::Remote(detail) => {
            Said::new("cli_error.remote_serve_failed").with("detail", detail)
        }
    }
}

/// A failed exchange with an LLM API as a sentence (`cli_error.provider_*`).
pub fn provider(e: &ProviderError) -> Said {
    match e {
        ProviderError::Config { url, detail } => Said::new("cli_error.provider_config")
            .with("url", url)
            .with("detail", detail),
        ProviderError::MissingKey { variable, url } => Said::new("cli_error.missing_key")
            .with("variable", variable)
            .with("url", url),
        ProviderError::Unreachable { url, detail } => Said::new("cli_error.unreachable")
            .with("url", url)
            .with("detail", detail),
        ProviderError::Timeout { url, timeout } => Said::new("cli_error.provider_timeout")
            .with("url", url)
            .with("secs", secs(*timeout)),
        ProviderError::BodyTimeout {
            url,
            status,
            timeout,
            received,
        } => Said::new("cli_error.provider_body_timeout")
            .with("url", url)
            .with("status", status)
            .with("secs", secs(*timeout))
            .with("received", received),
        ProviderError::BodyCut {
            url,
            status,
            detail,
        } => Said::new("cli_error.provider_body_cut")
            .with("url", url)
            .with("status", status)
            .with("detail", detail),
        ProviderError::Unauthorized {
            url,
            status,
            message,
            variable,
            key_sent,
        } => {
            let hint = match key_sent {
                true => "cli_error.provider_check_key",
                false => "cli_error.provider_no_key",
            };
            Said::new("cli_error.provider_unauthorized")
                .with("url", url)
                .with("status", status)
                .with("message", message)
                .with_said("hint", Said::new(hint).with("variable", variable))
        }
        ProviderError::RateLimited {
            url,
            retry_after,
            message,
        } => {
            let retry = match retry_after {
                Some(secs) => Said::new("cli_error.provider_retry_after").with("secs", secs),
                None => Said::new("cli_error.provider_no_retry_after"),
            };
            let message = match message.is_empty() {
                true => Said::empty(),
                false => Said::new("cli_error.provider_message").with("message", message),
            };
            Said::new("cli_error.provider_rate_limited")
                .with("url", url)
                .with_said("retry", retry)
                .with_said("message", message)
        }
        ProviderError::Status {
            url,
            status,
            message,
        } => Said::new("cli_error.provider_status")
            .with("url", url)
            .with("status", status)
            .with("message", message),
        ProviderError::NotJson {
            url,
            status,
            snippet,
        } => Said::new("cli_error.provider_not_json")
            .with("url", url)
            .with("status", status)
            .with("snippet", snippet),
        ProviderError::BadStream {
            url,
            status,
            detail,
        } => Said::new("cli_error.provider_bad_stream")
            .with("url", url)
            .with("status", status)
            .with("detail", detail),
    }
}

/// A server the host could not reach or that did not answer, as a sentence.
pub fn connect(e: &ConnectError) -> Said {
    match e {
        ConnectError::Tap(t) => tap(t),
        ConnectError::Socket(source) => {
            Said::new("cli_error.socket").with_said("why", Said::io(source))
        }
        ConnectError::Protocol {
            server,
            what,
            message,
        } => Said::new("cli_error.protocol")
            .with("server", server)
            .with("what", what)
            .with("message", message),
        ConnectError::Timeout {
            server,
            request,
            timeout,
        } => Said::new("cli_error.timeout")
            .with("server", server)
            .with("request", request)
            .with("timeout", format!("{timeout:?}")),
    }
}

/// A server the tap could not start, as a sentence (with a hint by the system's error kind).
pub fn tap(e: &TapError) -> Said {
    match e {
        TapError::Spawn {
            program, source, ..
        } => {
            let hint = match source.kind() {
                std::io::ErrorKind::NotFound => Said::new("cli_error.spawn_not_found"),
                std::io::ErrorKind::PermissionDenied if std::path::Path::new(program).is_dir() => {
                    Said::new("cli_error.spawn_directory")
                }
                std::io::ErrorKind::PermissionDenied => Said::new("cli_error.spawn_permission"),
                _ => Said::empty(),
            };
            Said::new("cli_error.spawn")
                .with("program", program)
                .with_said("why", Said::io(source))
                .with_said("hint", hint)
        }
        TapError::Thread(source) => {
            Said::new("cli_error.thread").with_said("why", Said::io(source))
        }
    }
}

/// How a server process ended, as a sentence (`exit code 3`, `signal 9 (SIGKILL)`).
pub fn exit(x: &ExitOutcome) -> Said {
    match (x.code, x.signal) {
        (Some(code), _) => Said::new("replay_stop.exit_code").with("code", code),
        (None, Some(signal)) => Said::new("replay_stop.exit_signal")
            .with("signal", signal)
            .with("name", crate::trace::signal_name(signal)),
        (None, None) => Said::new("replay_stop.exit_unknown"),
    }
}

/// Why a trace cannot be replayed, as a sentence.
pub fn plan(e: &PlanError) -> Said {
    match e {
        PlanError::NoServer => Said::new("cli_error.plan_no_server"),
        PlanError::Several(list) => Said::new("cli_error.plan_several").with("list", list),
        PlanError::Unknown(name, list) => Said::new("cli_error.plan_unknown")
            .with("name", name)
            .with("list", list),
        PlanError::NoRequests(name) => Said::new("cli_error.plan_no_requests").with("name", name),
    }
}

/// Why a replay could not start, as a sentence.
pub fn replay(e: &ReplayError) -> Said {
    match e {
        ReplayError::Tap(t) => tap(t),
        ReplayError::Socket(source) => {
            Said::new("cli_error.replay_socket").with_said("why", Said::io(source))
        }
        ReplayError::Http(detail) => Said::new("cli_error.replay_http").with("detail", detail),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::i18n::{Language, Words};

    #[test]
    fn why_a_replay_cannot_run_is_said_in_each_language() {
        let plans = [
            PlanError::NoServer,
            PlanError::Several("a, b".into()),
            PlanError::Unknown("x".into(), "a, b".into()),
            PlanError::NoRequests("a".into()),
        ];
        for e in plans {
            assert_eq!(plan(&e).english(), e.to_string());
            assert_ne!(plan(&e).say(Words::of(Language::Es)), e.to_string());
        }
        let replays = [
            ReplayError::Socket(std::io::Error::from(std::io::ErrorKind::NotFound)),
            ReplayError::Http("bind failed".into()),
        ];
        for e in replays {
            assert_eq!(replay(&e).english(), e.to_string());
            assert_ne!(replay(&e).say(Words::of(Language::Pt)), e.to_string());
        }
    }

    #[test]
    fn each_llm_api_failure_is_said_in_each_language_and_english_is_the_errors_own() {
        let url = || "http://127.0.0.1:9/v1/messages".to_string();
        let errors = [
            ProviderError::Config {
                url: url(),
                detail: "relative URL without a base".into(),
            },
            ProviderError::Timeout {
                url: url(),
                timeout: Duration::from_millis(300),
            },
            ProviderError::BodyTimeout {
                url: url(),
                status: 200,
                timeout: Duration::from_secs(2),
                received: 10,
            },
            ProviderError::BodyCut {
                url: url(),
                status: 200,
                detail: "connection reset".into(),
            },
            ProviderError::Unauthorized {
                url: url(),
                status: 401,
                message: "invalid x-api-key".into(),
                variable: "ANTHROPIC_API_KEY",
                key_sent: true,
            },
            ProviderError::Unauthorized {
                url: url(),
                status: 401,
                message: "invalid x-api-key".into(),
                variable: "ANTHROPIC_API_KEY",
                key_sent: false,
            },
            ProviderError::RateLimited {
                url: url(),
                retry_after: Some(7),
                message: "slow down".into(),
            },
            ProviderError::RateLimited {
                url: url(),
                retry_after: None,
                message: String::new(),
            },
            ProviderError::Status {
                url: url(),
                status: 500,
                message: "overloaded".into(),
            },
            ProviderError::NotJson {
                url: url(),
                status: 200,
                snippet: "<html>".into(),
            },
            ProviderError::BadStream {
                url: url(),
                status: 200,
                detail: "no message_stop".into(),
            },
        ];
        for e in errors {
            assert_eq!(provider(&e).english(), e.to_string());
            let run_error = RunError::Provider(e);
            for lang in [Language::Pt, Language::Es] {
                let text = run(&run_error).say(Words::of(lang));
                assert_ne!(text, run_error.to_string(), "{lang:?}");
                for english in [
                    "answered",
                    "refused",
                    "no response",
                    "retry after",
                    "was sent",
                ] {
                    assert!(!text.contains(english), "{lang:?}: {text}");
                }
            }
        }
        for e in [
            RunError::Scripted("address in use".into()),
            RunError::Response("no content".into()),
            RunError::SelfExe(std::io::Error::from(std::io::ErrorKind::NotFound)),
            RunError::Remote("tour: address in use".into()),
        ] {
            assert_eq!(run(&e).english(), e.to_string());
            assert_ne!(run(&e).say(Words::of(Language::Pt)), e.to_string());
        }
    }
}
