//! Building a request: the endpoint URL and the headers, in the order they are sent.

use super::ProviderConfig;
use crate::wire::api::ApiShape;

/// `base_url` + the shape's path for `model` ([`ApiShape::endpoint_path`]), without a doubled
/// `/v1` or `//`. A Gemini base URL that ends in its API version (`/v1beta`, `/v1`) keeps that
/// version: `http://host/v1` asks `http://host/v1/models/<model>:generateContent`.
pub(super) fn endpoint(base_url: &str, shape: ApiShape, model: &str, stream: bool) -> String {
    let base = base_url.trim().trim_end_matches('/');
    let path = shape.endpoint_path(model, stream);
    if shape == ApiShape::Gemini {
        for version in ["/v1beta", "/v1"] {
            if let (Some(root), Some(rest)) =
                (base.strip_suffix(version), path.strip_prefix("/v1beta"))
            {
                return format!("{root}{version}{rest}");
            }
        }
    }
    match (base.strip_suffix("/v1"), path.strip_prefix("/v1")) {
        (Some(root), Some(rest)) => format!("{root}/v1{rest}"),
        _ => format!("{base}{path}"),
    }
}

/// Whether the URL points at this machine.
pub(super) fn is_loopback(url: &reqwest::Url) -> bool {
    let Some(host) = url.host_str() else {
        return false;
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    match host.parse::<std::net::IpAddr>() {
        Ok(ip) => ip.is_loopback(),
        Err(_) => {
            let name = host.to_ascii_lowercase();
            name == "localhost" || name.ends_with(".localhost")
        }
    }
}

/// The request headers in the order they are sent.
pub(super) fn request_headers(config: &ProviderConfig, key: Option<&str>) -> Vec<(String, String)> {
    let mut headers: Vec<(String, String)> = Vec::new();
    let mut push = |name: &str, value: String| headers.push((name.to_string(), value));
    match config.shape {
        ApiShape::Anthropic => {
            if let Some(key) = key {
                push("x-api-key", key.to_string());
            }
            push("anthropic-version", "2023-06-01".into());
        }
        ApiShape::Openai | ApiShape::OpenaiChat => {
            if let Some(key) = key {
                push("authorization", format!("Bearer {key}"));
            }
        }
        // Gemini CLI (through Google's SDK) sends the key in this header, not in `?key=`.
        ApiShape::Gemini => {
            if let Some(key) = key {
                push("x-goog-api-key", key.to_string());
            }
        }
    }
    push("content-type", "application/json".into());
    let accept = match config.stream {
        true => "text/event-stream",
        false => "application/json",
    };
    push("accept", accept.into());
    push(
        "user-agent",
        format!("sightline/{}", env!("CARGO_PKG_VERSION")),
    );
    for (name, value) in &config.extra_headers {
        match headers
            .iter_mut()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
        {
            Some(existing) => existing.1 = value.clone(),
            None => headers.push((name.to_ascii_lowercase(), value.clone())),
        }
    }
    headers
}
