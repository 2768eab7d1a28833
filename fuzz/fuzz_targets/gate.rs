//! The request gate of Sightline's HTTP listeners (`serve`'s token and resume, every
//! listener's loopback `Host` check): no input panics it, and what it lets through is what it
//! promises: a loopback `Host` has a loopback name, a token is a part of the query as written,
//! a resume point is the id after the one the page saw.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sightline_fuzz::wire::gate;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if gate::host_is_loopback(text) {
        // Whatever passed names this machine: whole, or with its port (after the last `:`) off.
        let name = text.rsplit_once(':').map_or(text, |(name, _)| name);
        assert!(
            gate::is_loopback_name(text) || gate::is_loopback_name(name),
            "{text:?} passed as loopback"
        );
        assert!(!text.contains(['/', '@', ' ', '?', '#']), "{text:?}");
    }
    if let Some(token) = gate::query_param(Some(text), "token") {
        assert!(text.contains(&format!("token={token}")));
        assert!(!token.contains('&'));
        assert!(gate::same_secret(token, token));
    }
    let mid = (0..=text.len() / 2)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    let (a, b) = text.split_at(mid);
    assert_eq!(gate::same_secret(a, b), a == b);
    let from = gate::resume_from(Some(text));
    match text.trim().parse::<usize>() {
        Ok(last) => assert_eq!(from, last.saturating_add(1)),
        Err(_) => assert_eq!(from, 0),
    }
});
