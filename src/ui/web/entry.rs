//! The page's entry point (wasm-bindgen exports): start the viewer on a canvas, and tell the
//! page what it shows.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use serde::Deserialize;
use wasm_bindgen::prelude::*;
use web_time::Instant;

use super::Inbox;
use crate::analysis::tokens::Carried;
use crate::i18n::{Language, Words};
use crate::trace::Loading;
use crate::ui::app::SightlineApp;
use crate::ui::store::{Source, TraceStore};

/// A bigger trace's first frame shows its first this many events (more than two screens of
/// rows), and the frames after it read the rest.
const PREVIEW_EVENTS: usize = 1_000;

/// What the page says about itself (`sightline-config`, written by `export::html`).
#[derive(Deserialize, Default)]
struct Config {
    #[serde(default)]
    title: String,
    lang: Option<String>,
    /// The served event stream, relative to the page.
    live: Option<String>,
    /// The trace's exact token counts, made by the native build; `null` on a served page,
    /// which gets them with the events.
    #[serde(default)]
    tokens: Option<Carried>,
}

/// What the page publishes for `window.sightline.status()`, updated every frame.
#[derive(Default, serde::Serialize)]
struct Status {
    title: String,
    events: usize,
    /// The first 100 load warnings, and how many there are.
    warnings: Vec<String>,
    warnings_total: usize,
    lang: &'static str,
    selected: Option<usize>,
    /// The selected event's raw text as the inspector shows it (the first 4,000 characters).
    selected_raw: Option<String>,
    teaching: bool,
    cursor: usize,
    narration: String,
    /// Milliseconds from `start` to the end of the first frame that drew diagram rows.
    first_diagram_ms: Option<f64>,
    /// Of which: reading the trace's lines, and analysing them and laying out the diagram.
    load_ms: f64,
    analysis_ms: f64,
    /// Milliseconds from `start` to the first frame with every event of the trace (a big
    /// exported trace's first frames show its first events while the rest is read).
    loaded_ms: Option<f64>,
    /// Milliseconds from `start` to the frame that had the doctor's findings (they are
    /// computed after the first diagram, a few milliseconds of each frame).
    findings_ms: Option<f64>,
    /// The longest time a frame spent reading the trace and taking its events in, and the
    /// longest step of each stage of the findings (milliseconds of our own work in a frame).
    longest_read_ms: f64,
    findings_steps_ms: Vec<(&'static str, f64)>,
    frames: u64,
    /// The time the last frame's `update` took, in milliseconds.
    last_frame_ms: f64,
    /// The slowest of the last 120 frames.
    max_recent_frame_ms: f64,
    /// eframe's measure of the previous frame as a whole (update, tessellation, painting).
    last_frame_cpu_ms: Option<f64>,
    /// The slowest of the last 120 of those.
    max_recent_cpu_ms: f64,
    /// The last 300 of those, oldest first (with `frames`, a measure can take exactly the
    /// frames of what it did).
    recent_cpu_ms: Vec<f64>,
    /// Our own work (reading the trace, the findings) in each of those frames, in
    /// milliseconds: what of a long frame was ours, what the drawing's.
    recent_work_ms: Vec<f64>,
    /// And the time of `update` in each of those frames (the panels built, our work among
    /// it); the rest of a frame is egui's tessellation and the painting.
    recent_update_ms: Vec<f64>,
    /// The stream of a served trace is open.
    live_connected: Option<bool>,
}

thread_local! {
    // What the last frame showed, kept as it is and written as JSON only when asked for (a
    // frame must not pay for what the page may never read).
    static STATUS: RefCell<Status> = RefCell::new(Status::default());
    static A11Y: RefCell<Option<egui::accesskit::TreeUpdate>> = const { RefCell::new(None) };
}

/// `window.sightline.status()`: JSON of [`Status`].
#[wasm_bindgen]
pub fn status() -> String {
    STATUS.with(|s| serde_json::to_string(&*s.borrow()).unwrap_or_else(|_| "{}".into()))
}

/// `window.sightline.a11y()`: JSON of the widgets of the last frame, `[{role, label, x, y, w, h}]`
/// in CSS pixels of the canvas (a plain label's text as its label).
#[wasm_bindgen]
pub fn a11y() -> String {
    A11Y.with(|s| {
        let Some(update) = &*s.borrow() else {
            return "[]".to_string();
        };
        let nodes: Vec<serde_json::Value> = update
            .nodes
            .iter()
            .filter_map(|(_, node)| {
                // A plain label's text is its value.
                let label = node.label().or_else(|| {
                    (node.role() == egui::accesskit::Role::Label)
                        .then(|| node.value())
                        .flatten()
                })?;
                let b = node.bounds()?;
                Some(serde_json::json!({
                    "role": format!("{:?}", node.role()),
                    "label": label,
                    "x": b.x0, "y": b.y0, "w": b.x1 - b.x0, "h": b.y1 - b.y0,
                    "toggled": node.toggled().map(|t| format!("{t:?}")),
                }))
            })
            .collect();
        serde_json::Value::Array(nodes).to_string()
    })
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
    let mut load_ms = 0.0;
    let mut loading = None;
    let mut store = match trace {
        Some(bytes) => {
            let mut reading = Loading::new(bytes)
                .map_err(|e| JsValue::from_str(&format!("cannot read the trace: {e}")))?;
            let title = if reading.header().title.is_empty() {
                config.title.clone()
            } else {
                reading.header().title.clone()
            };
            // The first screens' events now, the rest between the frames (super::poll).
            let mut done = false;
            while !done && reading.events().len() < PREVIEW_EVENTS {
                done = reading.step(64 << 10);
            }
            if done {
                let loaded = reading.finish();
                load_ms = ms_since(started);
                let mut store = TraceStore::new(title, Source::Memory, loaded.events);
                store.warnings = loaded.warnings;
                store
            } else {
                let (first, warnings) = reading.take();
                load_ms = ms_since(started);
                loading = Some(reading);
                let mut store = TraceStore::preview(title, first);
                store.warnings = warnings;
                store
            }
        }
        None => TraceStore::new(config.title.clone(), Source::Memory, Vec::new()),
    };
    let analysis_ms = ms_since(started) - load_ms;
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
    app.platform.loading = loading;
    app.platform.tokens = config.tokens.unwrap_or_default();
    let inbox = config.live.as_ref().map(|url| {
        let inbox = Rc::new(RefCell::new(Inbox::default()));
        app.platform.inbox = Some(inbox.clone());
        app.platform.source = config.title.clone();
        (url.clone(), inbox)
    });
    let mut page = Page {
        app,
        started,
        first_diagram_ms: None,
        load_ms,
        analysis_ms,
        loaded_ms: None,
        findings_ms: None,
        frames: 0,
        recent: Vec::new(),
        last_frame_ms: 0.0,
        cpu: VecDeque::new(),
        work: VecDeque::new(),
        update: VecDeque::new(),
        raw: (None, None),
    };
    eframe::WebRunner::new()
        .start(
            canvas,
            eframe::WebOptions::default(),
            Box::new(move |cc| {
                page.app.install_fonts(&cc.egui_ctx);
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
            // Typed (`trace::LoadWarning`): the status bar words it in the page's language.
            if let Some(w) = m
                .data()
                .as_string()
                .and_then(|w| serde_json::from_str::<crate::trace::LoadWarning>(&w).ok())
            {
                inbox.borrow_mut().warnings.push(w);
            }
            wake();
        })
    };
    source.add_event_listener_with_callback("warning", on_warning.as_ref().unchecked_ref())?;
    on_warning.forget();
    let on_tokens = {
        let inbox = inbox.clone();
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |m: web_sys::MessageEvent| {
            if let Some(counts) = m
                .data()
                .as_string()
                .and_then(|t| serde_json::from_str::<Carried>(&t).ok())
            {
                inbox.borrow_mut().tokens.extend(counts);
            }
        })
    };
    source.add_event_listener_with_callback("tokens", on_tokens.as_ref().unchecked_ref())?;
    on_tokens.forget();
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
    load_ms: f64,
    analysis_ms: f64,
    loaded_ms: Option<f64>,
    findings_ms: Option<f64>,
    frames: u64,
    recent: Vec<f64>,
    last_frame_ms: f64,
    cpu: VecDeque<f64>,
    /// Our work in the frames of `cpu`, the same way.
    work: VecDeque<f64>,
    update: VecDeque<f64>,
    /// The selection (and store generation) of `selected_raw`, and its text.
    raw: (Option<(usize, u64)>, Option<String>),
}

impl eframe::App for Page {
    fn ui(&mut self, ui: &mut egui::Ui, frame: &mut eframe::Frame) {
        let t0 = Instant::now();
        if let Some(cpu) = frame.info().cpu_usage {
            if self.cpu.len() == 300 {
                self.cpu.pop_front();
                self.work.pop_front();
                self.update.pop_front();
            }
            self.cpu.push_back(f64::from(cpu) * 1000.0);
            // The last frame's (the one `cpu` measured): this frame's has not begun.
            self.work.push_back(self.app.platform.last_work_ms());
            self.update.push_back(self.last_frame_ms);
            self.app.platform.last_frame_ms = Some((f64::from(cpu) * 1000.0, self.last_frame_ms));
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
            self.first_diagram_ms = Some(ms_since(self.started));
        }
        if self.loaded_ms.is_none() && self.app.platform.loading.is_none() {
            self.loaded_ms = Some(ms_since(self.started));
        }
        if self.findings_ms.is_none() && self.app.store.findings.is_ready() {
            self.findings_ms = Some(ms_since(self.started));
        }
        self.publish();
    }
}

fn ms_since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
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
        // The selected event's text, escaped once per selection (it may be megabytes).
        let key = app.selected.map(|i| (i, store.generation));
        if self.raw.0 != key {
            let raw = app.selected.and_then(|i| store.events.get(i)).map(|e| {
                let shown = crate::ui::visible::escape(e.text().as_ref()).into_owned();
                shown.chars().take(4000).collect()
            });
            self.raw = (key, raw);
        }
        let selected_raw = self.raw.1.clone();
        let status = Status {
            title: store.title.clone(),
            events: store.len(),
            warnings: store
                .warnings
                .iter()
                .take(100)
                .map(|w| crate::analysis::trace_error::warning(w).say(Words::of(app.lang)))
                .collect(),
            warnings_total: store.warnings.len(),
            lang: app.lang.code(),
            selected: app.selected,
            selected_raw,
            teaching: app.replay.active,
            cursor: app.replay.cursor,
            narration,
            first_diagram_ms: self.first_diagram_ms,
            load_ms: self.load_ms,
            analysis_ms: self.analysis_ms,
            loaded_ms: self.loaded_ms,
            findings_ms: self.findings_ms,
            longest_read_ms: app.platform.longest_read_ms,
            findings_steps_ms: store.findings.steps_ms(),
            frames: self.frames,
            last_frame_ms: self.last_frame_ms,
            max_recent_frame_ms: self.recent.iter().copied().fold(0.0, f64::max),
            last_frame_cpu_ms: self.cpu.back().copied(),
            max_recent_cpu_ms: self.cpu.iter().rev().take(120).copied().fold(0.0, f64::max),
            recent_cpu_ms: self.cpu.iter().copied().collect(),
            recent_work_ms: self.work.iter().copied().collect(),
            recent_update_ms: self.update.iter().copied().collect(),
            live_connected: app.platform.inbox.as_ref().map(|i| i.borrow().connected),
        };
        STATUS.with(|s| *s.borrow_mut() = status);
    }
}

/// Keeps each frame's AccessKit tree in [`A11Y`] (eframe's web runner has no screen-reader
/// bridge yet, so the page keeps it readable itself).
struct Mirror;

impl egui::Plugin for Mirror {
    fn debug_name(&self) -> &'static str {
        "sightline-a11y-mirror"
    }

    fn output_hook(&mut self, _ctx: &egui::Context, output: &mut egui::FullOutput) {
        // Taken, not copied: the web runner does nothing else with it.
        if let Some(update) = output.platform_output.accesskit_update.take() {
            A11Y.with(|s| *s.borrow_mut() = Some(update));
        }
    }
}
