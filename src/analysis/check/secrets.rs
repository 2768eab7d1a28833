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

/// Prefixed key shapes: prefix, minimum length of what follows, what it is.
const PREFIXED: [(&str, usize, &str); 9] = [
    ("sk-ant-", 20, "an Anthropic API key (sk-ant-…)"),
    ("sk-proj-", 20, "an OpenAI project key (sk-proj-…)"),
    ("sk-", 32, "an API key (sk-…)"),
    ("github_pat_", 30, "a GitHub token (github_pat_…)"),
    ("ghp_", 30, "a GitHub token (ghp_…)"),
    ("gho_", 30, "a GitHub OAuth token (gho_…)"),
    ("xoxb-", 20, "a Slack token (xoxb-…)"),
    ("xoxp-", 20, "a Slack token (xoxp-…)"),
    ("AIza", 35, "a Google API key (AIza…)"),
];

/// What kind of credential `text` seems to hold, if any.
pub fn find_secret(text: &str) -> Option<&'static str> {
    let bytes = text.as_bytes();
    for (prefix, min, what) in PREFIXED {
        let mut from = 0;
        while let Some(at) = text[from..].find(prefix) {
            let start = from + at;
            let before_ok = start == 0 || !token_char(bytes[start - 1]);
            if before_ok && run(&bytes[start + prefix.len()..]) >= min {
                return Some(what);
            }
            from = start + prefix.len();
        }
    }
    let mut from = 0;
    while let Some(at) = text[from..].find("AKIA") {
        let start = from + at;
        let key = &bytes[start + 4..];
        let n = key
            .iter()
            .take_while(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
            .count();
        if n == 16 && (start == 0 || !token_char(bytes[start - 1])) {
            return Some("an AWS access key id (AKIA…)");
        }
        from = start + 4;
    }
    if text.contains("-----BEGIN") && text.contains("PRIVATE KEY-----") {
        return Some("a private key (-----BEGIN … PRIVATE KEY-----)");
    }
    for marker in ["Bearer ", "bearer "] {
        let mut from = 0;
        while let Some(at) = text[from..].find(marker) {
            let start = from + at + marker.len();
            if run(&bytes[start..]) >= 24 {
                return Some("a bearer token (Bearer …)");
            }
            from = start;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::find_secret;

    #[test]
    fn common_key_shapes_are_found_and_ordinary_text_is_not() {
        let anthropic = format!("key is sk-ant-api03-{}", "a".repeat(40));
        assert_eq!(
            find_secret(&anthropic),
            Some("an Anthropic API key (sk-ant-…)")
        );
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
}
