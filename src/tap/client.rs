//! The HTTP client every request Sightline makes starts from, on the crate's one TLS back end.
//!
//! reqwest's own default back end is rustls on aws-lc, whose C library takes a minute and a
//! half of a cold build on two cores; rustls on ring does the same TLS (the platform's
//! certificate store through rustls-platform-verifier, as before) and builds in seconds. ring
//! is not reqwest's default, so it must be the process's before the first client is built,
//! or building one panics: every client comes from [`http`], which installs it once. The host,
//! the proxies, the app, the CLI and the tests all use the tap, so they start here; the OTLP
//! exporter, which may not, is handed a builder.

use std::sync::Once;

/// A client builder whose TLS is rustls on ring, installed as this process's default the
/// first time (a default another part of the process installed first is kept).
pub fn http() -> reqwest::ClientBuilder {
    static TLS: Once = Once::new();
    TLS.call_once(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
    reqwest::Client::builder()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_client_builds_with_ring_as_the_process_default() {
        let client = super::http().build();
        assert!(client.is_ok(), "{client:?}");
        assert!(rustls::crypto::CryptoProvider::get_default().is_some());
    }
}
