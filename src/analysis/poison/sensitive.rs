//! Sensitive files, secrets and exfiltration: what a description asks the model to read or
//! send, and where.

use std::collections::HashSet;

use super::rules::hit;
use super::said::{Arg, Said, value};
use super::view::View;
use super::{Context, Hit, Kind};

/// Sensitive files and directories, lowercase.
pub(super) const FILES: &[&str] = &[
    "~/.ssh",
    ".ssh/",
    "id_rsa",
    "id_ed25519",
    "id_ecdsa",
    "id_dsa",
    "authorized_keys",
    "known_hosts",
    "~/.aws",
    ".aws/credentials",
    ".aws/config",
    ".env",
    ".envrc",
    ".netrc",
    ".npmrc",
    ".pypirc",
    ".pgpass",
    ".git-credentials",
    ".gitconfig",
    ".kube/config",
    ".docker/config.json",
    "/etc/passwd",
    "/etc/shadow",
    "mcp.json",
    "claude_desktop_config.json",
    "~/.config",
    "~/.cursor",
    ".bash_history",
    ".zsh_history",
    ".bashrc",
    ".zshrc",
    ".gnupg",
    "wallet.dat",
    "keychain",
    "config file",
    "config files",
    "configuration file",
    "configuration files",
    "credentials file",
];
/// Secrets, lowercase, on word boundaries.
pub(super) const SECRETS: &[&str] = &[
    "api key",
    "api keys",
    "api_key",
    "api-key",
    "apikey",
    "access token",
    "access tokens",
    "auth token",
    "bearer token",
    "refresh token",
    "session token",
    "secret key",
    "private key",
    "private keys",
    "ssh key",
    "ssh keys",
    "password",
    "passwords",
    "passphrase",
    "credentials",
    "credential",
    "seed phrase",
    "recovery phrase",
    "session cookie",
    "secret",
    "secrets",
];
/// Weaker words, counted only in a sentence that already names a secret.
pub(super) const WEAK_SECRETS: &[&str] = &["token", "tokens", "key", "keys"];

/// Matches of `needles`, merged per sentence, not overlapping `exclude`.
pub(super) fn sentence_matches(
    v: &View,
    needles: &[&str],
    exclude: &[(usize, usize)],
) -> Vec<(usize, usize)> {
    let mut found: Vec<(usize, usize)> = needles
        .iter()
        .flat_map(|n| v.find(n))
        .filter(|&(s, e)| !exclude.iter().any(|&(xs, xe)| s < xe && xs < e))
        .collect();
    found.sort();
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for (s, e) in found {
        match merged.last_mut() {
            Some(last) if v.sentence_of(last.0) == v.sentence_of(s) => last.1 = last.1.max(e),
            _ => merged.push((s, e)),
        }
    }
    merged
}

pub(super) fn hidden_note(v: &View, span: (usize, usize)) -> Arg {
    if v.all_hidden(span) {
        Arg::Said(Said::new("poison_why.in_hidden", Vec::new()))
    } else {
        value("")
    }
}

pub(super) const SEND_VERBS: &[&str] = &[
    "send",
    "sends",
    "sending",
    "upload",
    "uploading",
    "post",
    "posting",
    "forward",
    "forwarding",
    "transmit",
    "exfiltrate",
    "submit",
    "email",
    "mail",
    "share",
    "leak",
    "copy",
    "deliver",
    "push",
    "report",
];
pub(super) const PUT_WORDS: &[&str] = &[
    "pass", "put", "paste", "fill", "include", "append", "add", "attach", "insert", "provide",
    "set", "write", "place", "send", "copy", "contents", "content",
];

pub(super) fn addresses(v: &View) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for scheme in ["http://", "https://", "ftp://", "wss://", "ws://"] {
        for (s, _) in v.text.match_indices(scheme) {
            let end = v.text[s..]
                .find(|c: char| c.is_whitespace() || matches!(c, '`' | '"' | '\'' | ')' | '>'))
                .map_or(v.text.len(), |p| s + p);
            out.push((s, end));
        }
    }
    // e-mail addresses: word@word.word
    for (at, _) in v.text.match_indices('@') {
        let start = v.text[..at]
            .rfind(|c: char| !(c.is_alphanumeric() || matches!(c, '.' | '_' | '-' | '+')))
            .map_or(0, |p| p + 1);
        let end = v.text[at + 1..]
            .find(|c: char| !(c.is_alphanumeric() || matches!(c, '.' | '-')))
            .map_or(v.text.len(), |p| at + 1 + p);
        let domain = v.text[at + 1..end].trim_end_matches('.');
        if start < at && domain.contains('.') {
            out.push((start, at + 1 + domain.len()));
        }
    }
    out
}

pub(super) fn sensitive(v: &View, ctx: &Context<'_>, out: &mut Vec<Hit>) {
    let files = sentence_matches(v, FILES, &[]);
    for &(s, e) in &files {
        let span = v.span(s, e);
        let shown = v.shown(s, e);
        out.push(hit(
            Kind::SensitiveFile,
            span,
            Said::new(
                "poison_why.sensitive_file",
                vec![("text", value(shown)), ("hidden", hidden_note(v, span))],
            ),
        ));
    }
    let mut secrets = sentence_matches(v, SECRETS, &files);
    // Weak words join a sentence that already names a secret.
    let weak: Vec<(usize, usize)> = WEAK_SECRETS
        .iter()
        .flat_map(|n| v.find(n))
        .filter(|&(s, _)| {
            secrets
                .iter()
                .any(|&(x, _)| v.sentence_of(x) == v.sentence_of(s))
        })
        .collect();
    for (s, e) in weak {
        if let Some(m) = secrets
            .iter_mut()
            .find(|(x, _)| v.sentence_of(*x) == v.sentence_of(s))
        {
            *m = (m.0.min(s), m.1.max(e));
        }
    }
    secrets.retain(|&(s, e)| !files.iter().any(|&(fs, fe)| s < fe && fs < e));
    for &(s, e) in &secrets {
        let span = v.span(s, e);
        let what = v.shown(s, e);
        let explanation = match ctx.parameter {
            Some(p) => Said::new(
                "poison_why.secret_param",
                vec![("param", value(p)), ("text", value(what))],
            ),
            None => Said::new(
                "poison_why.secret",
                vec![("text", value(what)), ("hidden", hidden_note(v, span))],
            ),
        };
        out.push(hit(Kind::Secret, span, explanation));
    }

    // Exfiltration: a send verb with an address in the same sentence, or an address in a
    // sentence about secrets or files.
    let data: Vec<(usize, usize)> = files.iter().chain(&secrets).copied().collect();
    for (s, e) in addresses(v) {
        let sentence = v.sentence_of(s);
        let verb = v.in_sentence(sentence, SEND_VERBS);
        let about_data = data.iter().any(|&(x, _)| v.sentence_of(x) == sentence);
        if verb.is_none() && !about_data {
            continue;
        }
        let start = verb.map_or(s, |(vs, _)| vs.min(s));
        let span = v.span(start, e);
        out.push(hit(
            Kind::Exfiltration,
            span,
            Said::new(
                "poison_why.exfiltration",
                vec![
                    ("address", value(v.shown(s, e))),
                    ("hidden", hidden_note(v, span)),
                ],
            ),
        ));
    }

    // The `sidenote` trick: a sentence that names files or secrets and an argument of the
    // tool, so that the model puts the data in the call's arguments.
    let mut reported: HashSet<(usize, usize)> = HashSet::new();
    for param in &ctx.params {
        let needle = param.to_lowercase();
        for (ps, pe) in v.find(&needle) {
            // `a` or `id` is an argument only when quoted.
            let quoted = v.text[..ps].ends_with(['`', '"', '\''])
                && v.text[pe..].starts_with(['`', '"', '\'']);
            if needle.chars().count() <= 2 && !quoted {
                continue;
            }
            let sentence = v.sentence_of(ps);
            if !reported.insert(sentence) {
                continue;
            }
            let Some(&(ds, de)) = data.iter().find(|&&(x, _)| v.sentence_of(x) == sentence) else {
                reported.remove(&sentence);
                continue;
            };
            let asks = v.in_sentence(sentence, PUT_WORDS).is_some();
            if !asks {
                reported.remove(&sentence);
                continue;
            }
            let span = v.span(ps.min(ds), pe.max(de));
            out.push(hit(
                Kind::Exfiltration,
                span,
                Said::new(
                    "poison_why.sidenote",
                    vec![
                        ("text", value(v.shown(ds, de))),
                        ("param", value(*param)),
                        ("hidden", hidden_note(v, span)),
                    ],
                ),
            ));
        }
    }
}
