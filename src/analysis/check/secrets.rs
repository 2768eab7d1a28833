//! Credential-looking values in recorded text, for `check --fail-on secret`.
//!
//! Sightline redacts the credentials it knows (API keys in headers, environment values) when
//! it records; a key a server echoes in a tool result or a user pastes into a prompt is in the
//! trace as it crossed. These patterns find the common shapes. The finding names the kind of
//! credential, never the value, so a CI log does not repeat the leak.

/// Token characters: what API keys are made of.
fn token_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// Length of the run of token characters at the start of `s`.
fn run(s: &[u8]) -> usize {
    s.iter().take_while(|b| token_char(**b)).count()
}

/// Prefixed key shapes: prefix, minimum length of what follows, what it is (the key of its
/// words in `secret_kind.*`).
const PREFIXED: [(&str, usize, &str); 9] = [
    ("sk-ant-", 20, "secret_kind.anthropic"),
    ("sk-proj-", 20, "secret_kind.openai_project"),
    ("sk-", 32, "secret_kind.api_key"),
    ("github_pat_", 30, "secret_kind.github_pat"),
    ("ghp_", 30, "secret_kind.github"),
    ("gho_", 30, "secret_kind.github_oauth"),
    ("xoxb-", 20, "secret_kind.slack_bot"),
    ("xoxp-", 20, "secret_kind.slack_user"),
    ("AIza", 35, "secret_kind.google"),
];
const AWS: &str = "secret_kind.aws";
const PRIVATE_KEY: &str = "secret_kind.private_key";
const BEARER_TOKEN: &str = "secret_kind.bearer";

/// The bytes a pattern starts with.
const STARTS: [bool; 256] = {
    let mut t = [false; 256];
    let starts = b"sgxA-PBb";
    let mut i = 0;
    while i < starts.len() {
        t[starts[i] as usize] = true;
        i += 1;
    }
    t
};

/// What kind of credential `text` seems to hold, if any, as the key of its words
/// (`secret_kind.*`, "an Anthropic API key (sk-ant-…)"): the first kind in this file's order
/// (the prefixed keys, an AWS key id, a private key, a bearer token) that occurs anywhere.
///
/// One pass over the text (a check reads every recorded byte, so a pass per pattern was most
/// of `--fail-on secret`): each byte that can start a pattern is tried against the patterns
/// that start with it, and only those, and the best-ranked hit so far is kept.
pub fn find_secret(text: &str) -> Option<&'static str> {
    const AKIA: usize = PREFIXED.len();
    const PRIVATE: usize = AKIA + 1;
    const BEARER: usize = AKIA + 2;
    let bytes = text.as_bytes();
    let mut best = usize::MAX;
    let (mut begin, mut private) = (false, false);
    for (i, &b) in bytes.iter().enumerate() {
        if !STARTS[usize::from(b)] {
            continue;
        }
        let here = &bytes[i..];
        // The second byte first: most places a pattern could start are not one.
        let second = here.get(1).copied();
        match b {
            b'-' => begin |= second == Some(b'-') && here.starts_with(b"-----BEGIN"),
            b'P' => private |= second == Some(b'R') && here.starts_with(b"PRIVATE KEY-----"),
            b'B' | b'b'
                if best > BEARER
                    && second == Some(b'e')
                    && here[1..].starts_with(b"earer ")
                    && run(&here[7..]) >= 24 =>
            {
                best = BEARER;
            }
            b's' | b'g' | b'x' | b'A' => {
                // Keys start a token: not inside a word.
                if i > 0 && token_char(bytes[i - 1]) {
                    continue;
                }
                for (rank, (prefix, min, _)) in PREFIXED.iter().enumerate().take(best.min(AKIA)) {
                    if prefix.as_bytes()[0] == b
                        && here.starts_with(prefix.as_bytes())
                        && run(&here[prefix.len()..]) >= *min
                    {
                        best = rank;
                        break;
                    }
                }
                if best == 0 {
                    break;
                }
                if b == b'A' && best > AKIA && here.starts_with(b"AKIA") {
                    let n = here[4..]
                        .iter()
                        .take_while(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
                        .count();
                    if n == 16 {
                        best = AKIA;
                    }
                }
            }
            _ => {}
        }
    }
    if best > PRIVATE && begin && private {
        best = PRIVATE;
    }
    match best {
        r if r < AKIA => Some(PREFIXED[r].2),
        AKIA => Some(AWS),
        PRIVATE => Some(PRIVATE_KEY),
        BEARER => Some(BEARER_TOKEN),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::find_secret;

    #[test]
    fn common_key_shapes_are_found_and_ordinary_text_is_not() {
        let anthropic = format!("key is sk-ant-api03-{}", "a".repeat(40));
        assert_eq!(find_secret(&anthropic), Some("secret_kind.anthropic"));
        assert!(find_secret(&format!("\"token\":\"ghp_{}\"", "Z9".repeat(18))).is_some());
        assert!(find_secret("AKIAIOSFODNN7EXAMPLE in the config").is_some());
        assert!(find_secret(&format!("Authorization: Bearer {}", "x".repeat(30))).is_some());
        assert!(find_secret("-----BEGIN RSA PRIVATE KEY-----\nMII...").is_some());
        for fine in [
            "Seoul: 15C, partly cloudy",
            "task-sk-1 risk-assessment",
            "sk-short",
            "the Bearer of bad news",
            "AKIA is a prefix",
        ] {
            assert_eq!(find_secret(fine), None, "{fine}");
        }
    }

    /// The pattern-by-pattern search the one pass replaced: the same answer on every text.
    fn by_pattern(text: &str) -> Option<&'static str> {
        let bytes = text.as_bytes();
        let after = |s: usize, n: usize| super::run(&bytes[s + n..]);
        for (prefix, min, what) in super::PREFIXED {
            for (start, _) in text.match_indices(prefix) {
                if (start == 0 || !super::token_char(bytes[start - 1]))
                    && after(start, prefix.len()) >= min
                {
                    return Some(what);
                }
            }
        }
        for (start, _) in text.match_indices("AKIA") {
            let n = bytes[start + 4..]
                .iter()
                .take_while(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
                .count();
            if n == 16 && (start == 0 || !super::token_char(bytes[start - 1])) {
                return Some(super::AWS);
            }
        }
        if text.contains("-----BEGIN") && text.contains("PRIVATE KEY-----") {
            return Some(super::PRIVATE_KEY);
        }
        let bearer = ["Bearer ", "bearer "]
            .iter()
            .any(|m| text.match_indices(m).any(|(s, _)| after(s, m.len()) >= 24));
        bearer.then_some(super::BEARER_TOKEN)
    }

    /// Each kind has its words in every language (a key missing would show as itself).
    #[test]
    fn every_kind_is_said_in_each_language() {
        use crate::i18n::{Language, shared};
        let kinds = super::PREFIXED.iter().map(|p| p.2);
        for key in kinds.chain([super::AWS, super::PRIVATE_KEY, super::BEARER_TOKEN]) {
            for lang in Language::ALL {
                assert!(shared().has(lang, key), "{key} ({})", lang.code());
            }
        }
    }

    #[test]
    fn the_one_pass_ranks_kinds_as_the_pattern_order_does() {
        let key = |p: &str, n: usize| format!("{p}{}", "k".repeat(n));
        let parts = [
            key("sk-ant-", 20),
            key("sk-", 32),
            key("sk-", 31),
            key("ghp_", 30),
            key("xoxp-", 19),
            key("AIza", 35),
            "AKIAIOSFODNN7EXAMPLE".to_string(),
            "AKIAIOSFODNN7EXAMPLEX".to_string(),
            format!("xAKIA{}", "Q".repeat(16)),
            "-----BEGIN".to_string(),
            "EC PRIVATE KEY-----".to_string(),
            key("Bearer ", 24),
            key("bearer ", 23),
            key("bearer ", 24),
            key("xBearer ", 24),
            key("ssk-", 32),
            key("-gho_", 30),
            "B".to_string(),
            "x-----BEGIN".to_string(),
            key("é_sk-", 40),
            "plain words, ünïcode".to_string(),
        ];
        for a in &parts {
            for b in &parts {
                for text in [format!("{a} {b}"), format!("{b}{a}"), a.clone()] {
                    assert_eq!(find_secret(&text), by_pattern(&text), "{text}");
                }
            }
        }
    }
}
