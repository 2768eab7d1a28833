//! The viewer and a trace in one HTML file: the desktop app's panels, compiled to WebAssembly,
//! for a browser with no Rust, no server and no network.
//!
//! The page holds everything: wasm-bindgen's JavaScript glue inline, the wasm module and the
//! trace as base64 text (so the trace's bytes arrive exactly as they are on disk, with no
//! escaping question inside a `<script>`), and a small JSON config (title, language, and for
//! `sightline serve` the URL of its event stream instead of a trace). A Content-Security-Policy
//! forbids every connection for an exported file (`connect-src 'none'`), and allows only the
//! page's own server for a served one, so "no request to the network" is the browser's rule,
//! not only a promise.
//!
//! The bundle itself (the wasm and its glue) is built by `tools/build-web.sh` and embedded into
//! the native binary by `build.rs` when it exists ([`bundle`]); see README's "The trace in a
//! browser" for why it is embedded rather than looked up at run time.

use std::fmt::Write as _;

use base64::Engine as _;

/// The web viewer: wasm-bindgen's glue (`--target web`) and the wasm module it loads.
#[derive(Clone, Copy)]
pub struct Bundle<'a> {
    pub js: &'a str,
    pub wasm: &'a [u8],
}

/// What one page shows.
pub struct Page<'a> {
    /// The page's title (the trace's).
    pub title: &'a str,
    /// `en`, `pt` or `es`; `None` follows the browser's language.
    pub lang: Option<&'a str>,
    /// The trace's bytes, as the file holds them (an exported page).
    pub trace: Option<&'a [u8]>,
    /// The server's event stream, relative to the page (a served page).
    pub live: Option<&'a str>,
}

/// A browser tab's WebAssembly memory ends at 4 GiB. The viewer holds the trace's bytes while
/// it reads them, and then about this much per event beside the raw text (measured by
/// tests/web/ in headless Chromium on 100,000 events of 200 bytes: 832 bytes per event of wasm
/// memory in all, the text included).
pub const BYTES_PER_EVENT: u64 = 640;
/// What the viewer may use of a tab's 4 GiB, the rest left to egui, the glue and growth.
pub const MEMORY_BUDGET: u64 = 3 << 30;

/// A trace too big for a browser tab's memory.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{events} events need about {needed_mb} MB in the browser, more than a tab's WebAssembly \
     memory allows ({budget_mb} MB of its 4096)"
)]
pub struct TooLarge {
    pub events: usize,
    pub needed_mb: u64,
    pub budget_mb: u64,
}

/// Whether `events` events whose trace text is `bytes` long fit in the web viewer.
pub fn fits_in_a_tab(events: usize, bytes: u64) -> Result<(), TooLarge> {
    let needed = (events as u64)
        .saturating_mul(BYTES_PER_EVENT)
        .saturating_add(bytes);
    if needed > MEMORY_BUDGET {
        return Err(TooLarge {
            events,
            needed_mb: needed >> 20,
            budget_mb: MEMORY_BUDGET >> 20,
        });
    }
    Ok(())
}

/// The most events of `bytes_per_event` bytes each that fit (for the docs and messages).
pub fn most_events(bytes_per_event: u64) -> u64 {
    MEMORY_BUDGET / (BYTES_PER_EVENT + bytes_per_event)
}

/// The bundle could not be found.
#[derive(Debug, thiserror::Error)]
pub enum HtmlError {
    #[error(
        "this sightline was built without the web viewer: run tools/build-web.sh, then build \
         sightline again (cargo build, or cargo install --path .) so it embeds \
         target/web-bundle/"
    )]
    NoBundle,
}

/// The bundle embedded at build time, if `tools/build-web.sh` had made one.
pub fn bundle() -> Result<Bundle<'static>, HtmlError> {
    #[cfg(sightline_web_bundle)]
    {
        Ok(Bundle {
            js: include_str!(concat!(env!("SIGHTLINE_WEB_BUNDLE_DIR"), "/sightline.js")),
            wasm: include_bytes!(concat!(
                env!("SIGHTLINE_WEB_BUNDLE_DIR"),
                "/sightline_bg.wasm"
            )),
        })
    }
    #[cfg(not(sightline_web_bundle))]
    {
        Err(HtmlError::NoBundle)
    }
}

/// The page as one HTML document.
pub fn render(bundle: Bundle<'_>, page: &Page<'_>) -> String {
    let b64 = base64::engine::general_purpose::STANDARD;
    let config = serde_json::json!({
        "title": page.title,
        "lang": page.lang,
        "live": page.live,
    });
    let connect = if page.live.is_some() {
        "'self'"
    } else {
        "'none'"
    };
    let mut html = String::with_capacity(bundle.wasm.len() * 4 / 3 + bundle.js.len() + 4096);
    let _ = write!(
        html,
        r#"<!DOCTYPE html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline' 'wasm-unsafe-eval'; style-src 'unsafe-inline'; img-src data: blob:; connect-src {connect}">
<meta name="generator" content="sightline {version}">
<title>{title}</title>
<style>
html, body {{ margin: 0; padding: 0; width: 100%; height: 100%; overflow: hidden; background: #1b1b1b; }}
canvas#sightline {{ position: absolute; top: 0; left: 0; width: 100%; height: 100%; outline: none; }}
#sightline-loading {{ position: absolute; top: 40%; width: 100%; text-align: center; color: #ccc; font: 16px sans-serif; }}
</style>
</head>
<body>
<canvas id="sightline"></canvas>
<p id="sightline-loading">Sightline: loading the viewer…</p>
<script type="application/json" id="sightline-config">{config}</script>
"#,
        lang = page.lang.unwrap_or("en"),
        version = env!("CARGO_PKG_VERSION"),
        title = super::markup::html(&format!("{} - Sightline", page.title)),
        config = script_text(&config.to_string()),
    );
    html.push_str(r#"<script type="text/plain" id="sightline-wasm">"#);
    html.push_str(&b64.encode(bundle.wasm));
    html.push_str("</script>\n");
    if let Some(trace) = page.trace {
        html.push_str(r#"<script type="text/plain" id="sightline-trace">"#);
        html.push_str(&b64.encode(trace));
        html.push_str("</script>\n");
    }
    html.push_str("<script type=\"module\">\n");
    html.push_str(&script_text(bundle.js));
    html.push_str(BOOT);
    html.push_str("</script>\n</body>\n</html>\n");
    html
}

/// Starts the viewer once the glue above has been evaluated (in the same module).
const BOOT: &str = r#"
;(async () => {
  const bytes = (id) => {
    const text = document.getElementById(id).textContent;
    // Native base64 where the browser has it (Chromium 140+, Firefox 133+, Safari 18.2+).
    if (Uint8Array.fromBase64) return Uint8Array.fromBase64(text);
    const bin = atob(text);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  };
  const loading = document.getElementById('sightline-loading');
  const times = { script: performance.now() };
  try {
    await __wbg_init({ module_or_path: bytes('sightline-wasm') });
    times.wasm_ready = performance.now();
    const trace = document.getElementById('sightline-trace') ? bytes('sightline-trace') : undefined;
    const config = document.getElementById('sightline-config').textContent;
    window.sightline = {
      status: () => JSON.parse(status()),
      a11y: () => JSON.parse(a11y()),
      memory: () => wasm.memory.buffer.byteLength,
      times,
    };
    await start(document.getElementById('sightline'), config, trace);
    loading.remove();
  } catch (e) {
    loading.textContent = 'Sightline could not start: ' + e;
    throw e;
  }
})();
"#;

/// `text` made safe inside a `<script>` element: a `</script` (or `<!--`) in it would end or
/// confuse the element, so every `<` that starts one is written `\u003c`, which means the same
/// inside JavaScript strings, regular expressions and JSON strings, the only places it can
/// occur in them.
fn script_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('<') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let lower = after.get(..7).unwrap_or(after).to_ascii_lowercase();
        if lower.starts_with("/script") || lower.starts_with("!--") || lower.starts_with("script") {
            out.push_str("\\u003c");
        } else {
            out.push('<');
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trace_beyond_a_tabs_memory_is_refused_with_its_figures() {
        // The 100,000-event trace of tests/web (200 bytes an event) fits; 4 million of them
        // do not: about 3.9 million is the most.
        assert_eq!(fits_in_a_tab(100_000, 20_000_000), Ok(()));
        let most = most_events(200);
        assert!((3_800_000..3_900_000).contains(&most), "{most}");
        assert_eq!(fits_in_a_tab(most as usize, most * 200), Ok(()));
        let err = fits_in_a_tab(4_000_000, 800_000_000).expect_err("too large");
        assert_eq!(err.needed_mb, 3204);
        assert_eq!(
            err.to_string(),
            "4000000 events need about 3204 MB in the browser, more than a tab's WebAssembly \
             memory allows (3072 MB of its 4096)"
        );
        // A few huge events (50 MB base64 images) count by their bytes.
        assert!(fits_in_a_tab(70, 70 * (50 << 20)).is_err());
    }

    const BUNDLE: Bundle<'static> = Bundle {
        js: "export function start() {}\nconst s = '</script>';",
        wasm: b"\0asm\x01\0\0\0",
    };

    #[test]
    fn an_exported_page_holds_the_trace_bytes_and_allows_no_connection() {
        let trace = b"{\"sightline\":1,\"title\":\"</script><b>x\"}\n";
        let html = render(
            BUNDLE,
            &Page {
                title: "a <b> title",
                lang: Some("pt"),
                trace: Some(trace),
                live: None,
            },
        );
        assert!(html.contains("connect-src 'none'"));
        assert!(html.contains("<title>a &lt;b&gt; title - Sightline</title>"));
        assert!(html.contains("<html lang=\"pt\">"));
        let b64 = base64::engine::general_purpose::STANDARD;
        assert!(html.contains(&b64.encode(trace)));
        assert!(html.contains(&b64.encode(BUNDLE.wasm)));
        // The glue's own `</script>` cannot close the element early.
        assert_eq!(html.matches("</script>").count(), 4);
        assert!(html.contains("const s = '\\u003c/script>';"));
    }

    #[test]
    fn a_served_page_streams_from_its_own_server_only() {
        let html = render(
            BUNDLE,
            &Page {
                title: "live",
                lang: None,
                trace: None,
                live: Some("events?token=abc"),
            },
        );
        assert!(html.contains("connect-src 'self'"));
        assert!(!html.contains("id=\"sightline-trace\""));
        assert!(html.contains(r#""live":"events?token=abc""#));
        assert!(html.contains(r#""lang":null"#));
    }
}
