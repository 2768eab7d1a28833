//! The page's entry point (wasm-bindgen exports): start the viewer on a canvas, and tell the
//! page what it shows.

use std::cell::RefCell;
use std::rc::Rc;

use serde::Deserialize;
use wasm_bindgen::prelude::*;
use web_time::Instant;

use super::Inbox;
use crate::i18n::Language;
use crate::ui::app::SightlineApp;
use crate::ui::store::{Source, TraceStore};

/// What the page says about itself (`sightline-config`, written by `export::html`).
#[derive(Deserialize, Default)]
struct Config {
    #[serde(default)]
    title: String,
    lang: Option<String>,
    /// The served event stream, relative to the page.
    live: Option<String>,
}

/// What the page publishes for `window.sightline.status()`, updated every frame.
#[derive(Default, serde::Serialize)]
struct Status {
    title: String,
    events: usize,
    warnings: Vec<String>,
    lang: &'static str,
    selected: Option<usize>,
    /// The selected event's raw text as the inspector shows it (the first 4,000 characters).
    selected_raw: Option<String>,
    teaching: bool,
    cursor: usize,
    narration: String,
    /// Milliseconds from `start` to the end of the first frame that drew diagram rows.
    first_diagram_ms: Option<f64>,
    frames: u64,
    /// The time the last frame's `update` took, in milliseconds.
    last_frame_ms: f64,
    /// The slowest of the last 120 frames.
    max_recent_frame_ms: f64,
    /// eframe's measure of the previous frame as a whole (update, tessellation, painting).
    last_frame_cpu_ms: Option<f64>,
    /// The slowest of the last 120 of those.
    max_recent_cpu_ms: f64,
    /// The stream of a served trace is open.
    live_connected: Option<bool>,
}

thread_local! {
    static STATUS: RefCell<String> = RefCell::new("{}".into());
    static A11Y: RefCell<String> = RefCell::new("[]".into());
}

/// `window.sightline.status()`: JSON of [`Status`].
#[wasm_bindgen]
pub fn status() -> String {
    STATUS.with(|s| s.borrow().clone())
}

/// `window.sightline.a11y()`: JSON of the widgets of the last frame, `[{role, label, x, y, w, h}]`
/// in CSS pixels of the canvas.
#[wasm_bindgen]
pub fn a11y() -> String {
    A11Y.with(|s| s.borrow().clone())
}

/// Starts the viewer on `canvas`. `config` is the page's JSON config; `trace` the bytes of an
/// exported trace (absent for a served page, which reads the stream named in the config).
#[wasm_bindgen]
pub async fn start(
    canvas: web_sys::HtmlCanvasElement,
    config: String,
    trace: Option<Vec<u8>>,
) -> Result<(), JsValue> {
    let started = Instant::now();
    let config: Config = serde_json::from_str(&config)
        .map_err(|e| JsValue::from_str(&format!("bad sightline-config: {e}")))?;
    let mut store = match &trace {
        Some(bytes) => {
            let loaded = crate::trace::load_from_reader(bytes.as_slice())
                .map_err(|e| JsValue::from_str(&format!("cannot read the trace: {e}")))?;
            let title = if loaded.header.title.is_empty() {
                config.title.clone()
            } else {
                loaded.header.title.clone()
            };
            let mut store = TraceStore::new(title, Source::Memory, loaded.events);
            store.warnings = loaded.warnings;
            store
        }
        None => TraceStore::new(config.title.clone(), Source::Memory, Vec::new()),
    };
    drop(trace);
    store.generation = 0;
    let lang = config
        .lang
        .as_deref()
        .and_then(Language::from_code)
        .or_else(|| {
            web_sys::window()
                .and_then(|w| w.navigator().language())
                .and_then(|l| Language::from_code(&l))
        })
        .unwrap_or_default();
    let mut app = SightlineApp::with_store(store);
    app.lang = lang;
    let inbox = config.live.as_ref().map(|url| {
        let inbox = Rc::new(RefCell::new(Inbox::default()));
        app.platform.inbox = Some(inbox.clone());
        app.platform.source = config.title.clone();
        (url.clone(), inbox)
    });
    let page = Page {
        app,
        started,
        first_diagram_ms: None,
        frames: 0,
        recent: Vec::new(),
        last_frame_ms: 0.0,
        cpu: Vec::new(),
    };
    eframe::WebRunner::new()
        .start(
            canvas,
            eframe::WebOptions::default(),
            Box::new(move |cc| {
                cc.egui_ctx.enable_accesskit();
                cc.egui_ctx.add_plugin(Mirror);
                if let Some((url, inbox)) = inbox {
                    listen(&url, inbox, cc.egui_ctx.clone())
                        .map_err(|e| format!("cannot open {url}: {e:?}"))?;
                }
                Ok(Box::new(page))
            }),
        )
        .await
}

/// Opens the server's event stream: `header` messages carry the title, the others one trace
/// line each. The browser reconnects by itself, resuming after the last event id it saw.
fn listen(url: &str, inbox: Rc<RefCell<Inbox>>, ctx: egui::Context) -> Result<(), JsValue> {
    let source = web_sys::EventSource::new(url)?;
    // egui repaints by itself only on input: the next frame takes the lines in.
    let wake = move || ctx.request_repaint();
    let on_line = {
        let inbox = inbox.clone();
        let wake = wake.clone();
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |m: web_sys::MessageEvent| {
            if let Some(line) = m.data().as_string() {
                inbox.borrow_mut().lines.push(line);
            }
            wake();
        })
    };
    source.set_onmessage(Some(on_line.as_ref().unchecked_ref()));
    on_line.forget();
    let on_header = {
        let inbox = inbox.clone();
        let wake = wake.clone();
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |m: web_sys::MessageEvent| {
            let title = m
                .data()
                .as_string()
                .and_then(|h| serde_json::from_str::<crate::trace::Header>(&h).ok())
                .map(|h| h.title);
            inbox.borrow_mut().title = title;
            wake();
        })
    };
    source.add_event_listener_with_callback("header", on_header.as_ref().unchecked_ref())?;
    on_header.forget();
    let on_warning = {
        let inbox = inbox.clone();
        let wake = wake.clone();
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |m: web_sys::MessageEvent| {
            #[derive(Deserialize)]
            struct Served {
                line: usize,
                message: String,
            }
            if let Some(w) = m
                .data()
                .as_string()
                .and_then(|w| serde_json::from_str::<Served>(&w).ok())
            {
                inbox.borrow_mut().warnings.push(crate::trace::LoadWarning {
                    line: w.line,
                    message: w.message,
                });
            }
            wake();
        })
    };
    source.add_event_listener_with_callback("warning", on_warning.as_ref().unchecked_ref())?;
    on_warning.forget();
    let on_open = {
        let inbox = inbox.clone();
        Closure::<dyn FnMut(web_sys::Event)>::new(move |_| inbox.borrow_mut().connected = true)
    };
    source.set_onopen(Some(on_open.as_ref().unchecked_ref()));
    on_open.forget();
    let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
        inbox.borrow_mut().connected = false;
    });
    source.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    on_error.forget();
    Ok(())
}

/// The app in the page, with the page's bookkeeping.
struct Page {
    app: SightlineApp,
    started: Instant,
    first_diagram_ms: Option<f64>,
    frames: u64,
    recent: Vec<f64>,
    last_frame_ms: f64,
    cpu: Vec<f64>,
}

impl eframe::App for Page {
    fn ui(&mut self, ui: &mut egui::Ui, frame: &mut eframe::Frame) {
        let t0 = Instant::now();
        if let Some(cpu) = frame.info().cpu_usage {
            keep_last(&mut self.cpu, f64::from(cpu) * 1000.0);
        }
        self.app.ui(ui);
        if self.app.platform.inbox.is_some() {
            // A served trace: look for new lines a few times a second even without input.
            ui.ctx()
                .request_repaint_after(std::time::Duration::from_millis(100));
        }
        self.frames += 1;
        self.last_frame_ms = t0.elapsed().as_secs_f64() * 1000.0;
        keep_last(&mut self.recent, self.last_frame_ms);
        if self.first_diagram_ms.is_none() && !self.app.store.is_empty() {
            self.first_diagram_ms = Some(self.started.elapsed().as_secs_f64() * 1000.0);
        }
        self.publish();
    }
}

/// Keeps the last 120 figures.
fn keep_last(list: &mut Vec<f64>, value: f64) {
    list.push(value);
    if list.len() > 120 {
        list.remove(0);
    }
}

impl Page {
    fn publish(&mut self) {
        let app = &mut self.app;
        let narration = if app.replay.active {
            app.narration()
        } else {
            String::new()
        };
        let store = &app.store;
        let selected_raw = app.selected.and_then(|i| store.events.get(i)).map(|e| {
            let shown = crate::ui::visible::escape(e.text().as_ref()).into_owned();
            shown.chars().take(4000).collect()
        });
        let status = Status {
            title: store.title.clone(),
            events: store.len(),
            warnings: store.warnings.iter().map(ToString::to_string).collect(),
            lang: app.lang.code(),
            selected: app.selected,
            selected_raw,
            teaching: app.replay.active,
            cursor: app.replay.cursor,
            narration,
            first_diagram_ms: self.first_diagram_ms,
            frames: self.frames,
            last_frame_ms: self.last_frame_ms,
            max_recent_frame_ms: self.recent.iter().copied().fold(0.0, f64::max),
            last_frame_cpu_ms: self.cpu.last().copied(),
            max_recent_cpu_ms: self.cpu.iter().copied().fold(0.0, f64::max),
            live_connected: app.platform.inbox.as_ref().map(|i| i.borrow().connected),
        };
        let json = serde_json::to_string(&status).unwrap_or_else(|_| "{}".into());
        STATUS.with(|s| *s.borrow_mut() = json);
    }
}

/// Copies each frame's AccessKit tree into [`A11Y`] (eframe's web runner has no screen-reader
/// bridge yet, so the page keeps it readable itself).
struct Mirror;

impl egui::Plugin for Mirror {
    fn debug_name(&self) -> &'static str {
        "sightline-a11y-mirror"
    }

    fn output_hook(&mut self, _ctx: &egui::Context, output: &mut egui::FullOutput) {
        let Some(update) = &output.platform_output.accesskit_update else {
            return;
        };
        let nodes: Vec<serde_json::Value> = update
            .nodes
            .iter()
            .filter_map(|(_, node)| {
                let label = node.label()?;
                let b = node.bounds()?;
                Some(serde_json::json!({
                    "role": format!("{:?}", node.role()),
                    "label": label,
                    "x": b.x0, "y": b.y0, "w": b.x1 - b.x0, "h": b.y1 - b.y0,
                    "toggled": node.toggled().map(|t| format!("{t:?}")),
                }))
            })
            .collect();
        let json = serde_json::Value::Array(nodes).to_string();
        A11Y.with(|s| *s.borrow_mut() = json);
    }
}
