//! The viewer and a trace in one HTML file: the desktop app's panels, compiled to WebAssembly,
//! for a browser with no Rust, no server and no network.
//!
//! The page holds everything: wasm-bindgen's JavaScript glue inline, the wasm module and the
//! trace gzip-compressed and then written as base64 text (so the trace's bytes arrive exactly
//! as they are on disk, with no escaping question inside a `<script>`), and a small JSON config (title, language, and for
//! `sightline serve` the URL of its event stream instead of a trace). A Content-Security-Policy
//! forbids every connection for an exported file (`connect-src 'none'`), and allows only the
//! page's own server for a served one, so "no request to the network" is the browser's rule,
//! not only a promise.
//!
//! Compressed, because the browser's HTML parser reads a page's text at about 70 MB/s on a
//! slow machine: a 100,000-event trace (20 MB, 27 MB as base64) kept the page from running
//! any script for half a second; gzip makes it 2 MB. The browser inflates both with its own
//! `DecompressionStream`, the trace while the wasm is instantiated. (The wasm is inflated
//! whole and then instantiated: measured in Chromium, that is ready sooner than
//! `WebAssembly.instantiateStreaming` of the inflating stream, which compiles eagerly.)
//!
//! The bundle itself (the wasm and its glue) is built by `build.rs` in a release build, or by
//! `tools/build-web.sh` for a debug one, and embedded into the native binary ([`bundle`]); see
//! docs/web-viewer.md for why it is embedded rather than looked up at run time.

use std::fmt::Write as _;

use base64::Engine as _;

use crate::analysis::tokens::Carried;

/// The web viewer: wasm-bindgen's glue (`--target web`) and the wasm module it loads.
#[derive(Clone, Copy)]
pub struct Bundle<'a> {
    pub js: &'a str,
    /// The module, gzip-compressed (once, at build time, at the best level).
    pub wasm_gz: &'a [u8],
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
    /// The trace's exact token counts, made natively ([`Carried::of`]): the viewer links no
    /// tokenizer (a served page gets them with the events, in the stream).
    pub tokens: Option<&'a Carried>,
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
        "this sightline was built without the web viewer: `cargo install --locked --path .` \
         (a release build) makes it; a debug build embeds the one tools/build-web.sh writes \
         to target/web-bundle/, so run it, then cargo build again"
    )]
    NoBundle,
}

/// The bundle embedded at build time: built by `build.rs` (release), or the one
/// `tools/build-web.sh` had made (debug).
pub fn bundle() -> Result<Bundle<'static>, HtmlError> {
    #[cfg(sightline_web_bundle)]
    {
        Ok(Bundle {
            js: include_str!(concat!(env!("SIGHTLINE_WEB_BUNDLE_DIR"), "/sightline.js")),
            wasm_gz: include_bytes!(concat!(
                env!("SIGHTLINE_WEB_BUNDLE_DIR"),
                "/sightline_bg.wasm.gz"
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
        "tokens": page.tokens,
    });
    let connect = if page.live.is_some() {
        "'self'"
    } else {
        "'none'"
    };
    let trace = page.trace.map(gzip);
    let packed = bundle.wasm_gz.len() + trace.as_ref().map_or(0, Vec::len);
    let mut html = String::with_capacity(packed * 4 / 3 + bundle.js.len() + 8192);
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
    b64.encode_string(bundle.wasm_gz, &mut html);
    html.push_str("</script>\n");
    if let Some(trace) = &trace {
        html.push_str(r#"<script type="text/plain" id="sightline-trace">"#);
        b64.encode_string(trace, &mut html);
        html.push_str("</script>\n");
    }
    html.push_str("<script type=\"module\">\n");
    html.push_str(&script_text(bundle.js));
    html.push_str(BOOT);
    html.push_str("</script>\n</body>\n</html>\n");
    html
}

/// The trace as the page carries it. Level 1 of 9: the size hardly matters once it is a
/// twentieth of the text, and a 20 MB trace is compressed in a fraction of a second.
fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write as _;
    let mut out = flate2::write::GzEncoder::new(
        Vec::with_capacity(bytes.len() / 8),
        flate2::Compression::fast(),
    );
    out.write_all(bytes)
        .and_then(|()| out.finish())
        .expect("gzip into a Vec cannot fail: a Vec's writes do not")
}

/// Starts the viewer once the glue above has been evaluated (in the same module). `times`
/// (milliseconds of `performance.now()`, from the start of the page's navigation) says when
/// the script started, the wasm was ready, the trace inflated and the viewer was started.
const BOOT: &str = r#"
// `sightline serve` ends a stream with `event: restart` when its trace file became a new
// recording: the page loads again, from the new recording's start.
if (window.EventSource) {
  const Base = window.EventSource;
  window.EventSource = class extends Base {
    constructor(url, init) {
      super(url, init);
      this.addEventListener('restart', () => { this.close(); location.reload(); });
    }
  };
}
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
  // The gzip-compressed bytes of element `id`, inflated.
  const inflated = async (id) => new Uint8Array(await new Response(
    new Blob([bytes(id)]).stream().pipeThrough(new DecompressionStream('gzip'))).arrayBuffer());
  const loading = document.getElementById('sightline-loading');
  const times = { script: performance.now() };
  try {
    if (typeof DecompressionStream !== 'function') {
      throw new Error('this browser has no DecompressionStream (Chrome 80, Firefox 113, Safari 16.4 and later have it)');
    }
    // The trace is inflated while the wasm compiles.
    const packed = document.getElementById('sightline-trace')
      ? inflated('sightline-trace').then((b) => { times.trace_ready = performance.now(); return b; })
      : undefined;
    await __wbg_init({ module_or_path: await inflated('sightline-wasm') });
    times.wasm_ready = performance.now();
    const trace = packed && await packed;
    const config = document.getElementById('sightline-config').textContent;
    window.sightline = {
      status: () => JSON.parse(status()),
      a11y: () => JSON.parse(a11y()),
      memory: () => wasm.memory.buffer.byteLength,
      times,
    };
    times.start = performance.now();
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
        // The next seven bytes, whatever characters they cut: looking at the whole rest when
        // the seventh byte fell inside a character made a title of `<é<é...` quadratic.
        let lower = after.as_bytes()[..after.len().min(7)].to_ascii_lowercase();
        if lower.starts_with(b"/script")
            || lower.starts_with(b"!--")
            || lower.starts_with(b"script")
        {
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
    /// One pass over the text: 100,000 `<` each followed by a character of two bytes took
    /// minutes when each `<` lowercased the whole rest.
    #[test]
    fn script_text_is_linear_in_a_title_of_lt_and_multibyte_text() {
        let title = "<é".repeat(100_000) + "</SCRIPT><!--";
        let started = std::time::Instant::now();
        let out = super::script_text(&title);
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
        assert!(
            out.ends_with("\\u003c/SCRIPT>\\u003c!--"),
            "{}",
            &out[out.len() - 30..]
        );
        assert_eq!(out.matches('<').count(), 100_000);
    }

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
        wasm_gz: b"\x1f\x8b not really gzip",
    };

    /// The element `id`'s text in `html`, base64-decoded and inflated.
    fn unpacked(html: &str, id: &str) -> Vec<u8> {
        use std::io::Read as _;
        let open = format!(r#"<script type="text/plain" id="{id}">"#);
        let from = html.find(&open).expect("the element") + open.len();
        let text = &html[from..from + html[from..].find('<').expect("its end")];
        let packed = base64::engine::general_purpose::STANDARD
            .decode(text)
            .expect("base64");
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(packed.as_slice())
            .read_to_end(&mut out)
            .expect("gzip");
        out
    }

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
                tokens: None,
            },
        );
        assert!(html.contains("connect-src 'none'"));
        assert!(html.contains("<title>a &lt;b&gt; title - Sightline</title>"));
        assert!(html.contains("<html lang=\"pt\">"));
        // The trace's exact bytes, compressed; the wasm as the bundle has it (compressed).
        assert_eq!(unpacked(&html, "sightline-trace"), trace);
        let b64 = base64::engine::general_purpose::STANDARD;
        assert!(html.contains(&format!(
            r#"id="sightline-wasm">{}</script>"#,
            b64.encode(BUNDLE.wasm_gz)
        )));
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
                tokens: None,
            },
        );
        assert!(html.contains("connect-src 'self'"));
        assert!(!html.contains("id=\"sightline-trace\""));
        assert!(html.contains(r#""live":"events?token=abc""#));
        assert!(html.contains(r#""lang":null"#));
    }
}
