// How fast the web viewer is in headless Chromium, against baselines measured in the same run
// (run by tests/web/measure.sh; not a test: it asserts nothing about time).
//   node measure.mjs BINARY WORKDIR ARTIFACTS [RUNS]
//
// For the weather trace and a synthetic 100,000-event trace, exported with
// `sightline export --format html`, each page is opened RUNS times (default 5) in a fresh tab
// and the medians are printed:
// - page load to the first drawn diagram, and its phases: the page's script starts (the HTML
//   has been read), the wasm is compiled, the trace inflated, the viewer started; in the
//   viewer, reading the trace, analysing it and laying out the diagram, and the first frame
//   (for a big trace, of its first events: the frames after it read the rest);
// - when every event is shown (the big trace read, analysed and laid out in full);
// - the findings after the first diagram (when they are ready, the longest frame meanwhile);
// - frames while scrolling the 100,000 events, one wheel step a frame (eframe's own measure:
//   update, tessellation, painting): during loading (from the first diagram until the
//   findings are ready, in an opening of its own) and after it;
// - the viewer's WebAssembly memory per event.
// Baselines, in the same run and the same browser: for the first diagram, a page carrying
// the same trace the same way (gzip, base64) that only inflates it, decodes it, JSON.parses
// each line with the browser's own reader and clears a WebGL2 canvas once: the least a page
// that shows the trace must do. For scrolling, frames of the same page while the pointer
// moves over the same rows without scrolling. Figures go to ARTIFACTS/measurements.json.
// With SIGHTLINE_BASELINE_BUNDLE=DIR (a tools/build-web.sh output of another commit, e.g.
// main's), the same pages carrying that bundle instead are measured in the same run too,
// interleaved: the weather page's findings and the scrolling during loading ("main").

import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { launch, open, run, status, until, click, syntheticTrace, scrollFrames, withBundle, coreTimes, coreTimesBetween } from './lib.mjs';

const [binary, work, artifacts, runsArg] = process.argv.slice(2);
const RUNS = Number(runsArg || 5);
const mainBundle = process.env.SIGHTLINE_BASELINE_BUNDLE || null;
const N = 100000;
fs.mkdirSync(artifacts, { recursive: true });

const median = (xs) => {
  const s = xs.filter((x) => x != null).sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : null;
};
const quantile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
};
const ms = (x) => (x == null ? '-' : `${x.toFixed(0)} ms`);
const ratio = (a, b) => (a == null || !b ? '-' : `${(a / b).toFixed(2)}x`);

/** A page with `trace` as the viewer's page carries it, doing the least a viewer must. */
function baselinePage(trace, file) {
  const packed = zlib.gzipSync(fs.readFileSync(trace), { level: 1 }).toString('base64');
  fs.writeFileSync(file, `<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>
<canvas id="c" width="1400" height="900"></canvas>
<script type="text/plain" id="trace">${packed}</script>
<script type="module">
const text = document.getElementById('trace').textContent;
const bytes = Uint8Array.fromBase64(text);
const raw = await new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'))).arrayBuffer();
const lines = new TextDecoder().decode(raw).split('\\n');
let events = 0;
for (let i = 1; i < lines.length; i++) if (lines[i]) { JSON.parse(lines[i]); events++; }
const gl = document.getElementById('c').getContext('webgl2');
gl.clearColor(0.1, 0.1, 0.1, 1);
gl.clear(gl.COLOR_BUFFER_BIT);
requestAnimationFrame(() => { window.done = { events, at: performance.now() }; });
</script></body></html>`);
}

async function baseline(browser, file) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto('file://' + file);
  const done = await until('the baseline page', () => page.evaluate(() => window.done), 60000, 10);
  await page.close();
  return done.at;
}

/** One opening of the viewer's page: its phases, and (for the big trace) findings, scrolling
 * and memory. */
async function viewer(browser, file, { scroll = false, doctor = false } = {}) {
  const { page, first, times, errors } = await open(browser, 'file://' + file);
  if (errors.length) throw new Error(`the page reported errors: ${errors.join('; ')}`);
  if (scroll === 'loading') {
    // From the first diagram on, while the rest is read and the findings computed: a reader
    // who scrolls at once, down and up. (The timings of this opening are not kept: the
    // scrolling slows the reading down.)
    const frames = [];
    // How long the page's main thread ran meanwhile, and waited for a core: on a loaded
    // machine a frame waits, whatever it does.
    const cores = await coreTimes(browser);
    for (let batch = 0; batch < 1000; batch++) {
      if ((await status(page)).findings_ms != null) break;
      frames.push(...(await scrollFrames(page, 30, batch % 2 ? -240 : 240)));
    }
    const s = await status(page);
    const core = coreTimesBetween(cores, await coreTimes(browser));
    await page.close();
    return {
      frames, core, from_events: first.events, events: s.events, findings: s.findings_ms != null,
      longest_read: s.longest_read_ms, findings_steps: Object.fromEntries(s.findings_steps_ms),
    };
  }
  const r = {
    script: times.script,
    wasm_ready: times.wasm_ready,
    trace_ready: times.trace_ready,
    start: times.start,
    first_diagram: times.first_diagram,
    trace_read: first.load_ms,
    analysis_and_layout: first.analysis_ms,
    first_frame: first.first_diagram_ms - first.analysis_ms - first.load_ms,
    first_events: first.events,
  };
  const loaded = await until('every event', async () => {
    const s = await status(page);
    return s.loaded_ms != null ? s : null;
  }, 60000);
  r.loaded = times.start + loaded.loaded_ms;
  r.events = loaded.events;
  const found = await until('the findings', async () => {
    const s = await status(page);
    return s.findings_ms != null ? s : null;
  }, 60000);
  r.findings_ready = times.start + found.findings_ms;
  r.longest_frame_meanwhile = found.max_recent_cpu_ms;
  r.findings_steps = Object.fromEntries(found.findings_steps_ms);
  if (scroll) {
    r.still = await scrollFrames(page, 60, 0);
    r.scroll = await scrollFrames(page, 120);
  }
  if (doctor) {
    // The doctor's tab open, its list of violations long: frames while the pointer moves.
    r.violations = Number((await click(page, 'the Doctor tab', (l) => /^Doctor \(\d+\)$/.test(l))).label.match(/\d+/)[0]);
    r.doctor = await scrollFrames(page, 60, 0);
  }
  r.memory = await page.evaluate(() => window.sightline.memory());
  await page.close();
  return r;
}

async function main() {
  const weather = path.join(work, 'weather.jsonl');
  const rec = await run(binary, ['run', 'scenarios/weather.toml', '--trace', weather]);
  if (rec.code !== 0) throw new Error(`run failed: ${rec.err}`);
  const big = path.join(work, 'big.jsonl');
  syntheticTrace(big, N);
  const invalid = path.join(work, 'invalid.jsonl');
  syntheticTrace(invalid, N, { invalid: true });
  const pages = {};
  for (const [name, trace] of [['weather', weather], ['big', big], ['invalid', invalid]]) {
    const html = path.join(work, `${name}.html`);
    const r = await run(binary, ['export', trace, '--format', 'html', '--out', html, '--lang', 'en']);
    if (r.code !== 0) throw new Error(`export failed: ${r.err}`);
    const base = path.join(work, `${name}-baseline.html`);
    if (name !== 'invalid') baselinePage(trace, base);
    pages[name] = { html, base, trace_bytes: fs.statSync(trace).size, html_bytes: fs.statSync(html).size };
    if (mainBundle) {
      pages[name].main = path.join(work, `${name}-main.html`);
      withBundle(html, mainBundle, pages[name].main);
    }
  }

  const browser = await launch();
  const got = { weather: [], big: [], big_loading: [], invalid: [], weather_base: [], big_base: [], weather_main: [], big_loading_main: [] };
  try {
    for (let i = 0; i < RUNS; i++) {
      // Interleaved, so that a busy moment of the machine falls on both.
      got.weather_base.push(await baseline(browser, pages.weather.base));
      got.weather.push(await viewer(browser, pages.weather.html));
      got.big_base.push(await baseline(browser, pages.big.base));
      got.big.push(await viewer(browser, pages.big.html, { scroll: true }));
      got.big_loading.push(await viewer(browser, pages.big.html, { scroll: 'loading' }));
      if (mainBundle) {
        got.weather_main.push(await viewer(browser, pages.weather.main));
        got.big_loading_main.push(await viewer(browser, pages.big.main, { scroll: 'loading' }));
      }
      got.invalid.push(await viewer(browser, pages.invalid.html, { doctor: true }));
    }
  } finally {
    await browser.close();
  }

  const out = { runs: RUNS, load_average: fs.readFileSync('/proc/loadavg', 'utf8').trim() };
  for (const name of ['weather', 'big']) {
    const runs = got[name];
    const m = {};
    for (const k of ['script', 'wasm_ready', 'trace_ready', 'start', 'first_diagram', 'trace_read', 'analysis_and_layout', 'first_frame', 'loaded', 'findings_ready', 'longest_frame_meanwhile']) {
      m[k] = median(runs.map((r) => r[k]));
    }
    m.baseline = median(got[`${name}_base`]);
    m.html_bytes = pages[name].html_bytes;
    m.trace_bytes = pages[name].trace_bytes;
    m.memory = median(runs.map((r) => r.memory));
    m.findings_steps = Object.fromEntries(Object.keys(runs[0].findings_steps).map((k) => [k, Math.max(...runs.map((r) => r.findings_steps[k] ?? 0))]));
    m.events = runs[0].events;
    m.first_events = runs[0].first_events;
    out[name] = m;
  }
  const scroll = got.big.flatMap((r) => r.scroll);
  const still = got.big.flatMap((r) => r.still);
  out.scroll = {
    median: quantile(scroll, 0.5), p95: quantile(scroll, 0.95), max: Math.max(...scroll), frames: scroll.length,
    still_median: quantile(still, 0.5), still_p95: quantile(still, 0.95), still_max: Math.max(...still),
  };
  const duringLoading = (runs) => {
    const loading = runs.flatMap((r) => r.frames);
    return {
      median: quantile(loading, 0.5), p95: quantile(loading, 0.95), max: Math.max(...loading), frames: loading.length,
      over_16ms: loading.filter((x) => x > 16).length, from_events: runs[0].from_events,
      to_events: runs[0].events, findings: runs.every((r) => r.findings),
      longest_read: Math.max(...runs.map((r) => r.longest_read)),
      core: Object.fromEntries(['page', 'gpu'].map((k) => [k, runs.every((r) => r.core[k]) ? {
        ran: runs.reduce((a, r) => a + r.core[k].ran, 0), waited: runs.reduce((a, r) => a + r.core[k].waited, 0),
      } : null])),
      findings_steps: Object.fromEntries(Object.keys(runs[0].findings_steps).map((k) => [k, Math.max(...runs.map((r) => r.findings_steps[k]))])),
    };
  };
  out.scroll_loading = duringLoading(got.big_loading);
  if (mainBundle) {
    out.scroll_loading_main = duringLoading(got.big_loading_main);
    out.weather_main = {
      findings_ready: median(got.weather_main.map((r) => r.findings_ready)),
      longest_frame_meanwhile: median(got.weather_main.map((r) => r.longest_frame_meanwhile)),
      findings_steps: Object.fromEntries(Object.keys(got.weather_main[0].findings_steps).map((k) => [k, Math.max(...got.weather_main.map((r) => r.findings_steps[k] ?? 0))])),
    };
  }
  out.scroll.over_16ms = scroll.filter((x) => x > 16).length;
  out.scroll.still_over_16ms = still.filter((x) => x > 16).length;
  const doctor = got.invalid.flatMap((r) => r.doctor);
  out.doctor = {
    violations: got.invalid[0].violations, findings_ready: median(got.invalid.map((r) => r.findings_ready)),
    longest_frame_meanwhile: median(got.invalid.map((r) => r.longest_frame_meanwhile)),
    median: quantile(doctor, 0.5), p95: quantile(doctor, 0.95), max: Math.max(...doctor), frames: doctor.length,
  };
  out.memory_per_event = Math.round((out.big.memory - out.weather.memory) / (out.big.events - out.weather.events));
  fs.writeFileSync(path.join(artifacts, 'measurements.json'), JSON.stringify({ ...out, all: got }, null, 2) + '\n');

  console.log(`web viewer in headless Chromium, median of ${RUNS} (load average ${out.load_average})`);
  for (const [name, label] of [['weather', `weather (${out.weather.events} events)`], ['big', `synthetic (${out.big.events} events)`]]) {
    const m = out[name];
    console.log(`\n${label}: page ${(m.html_bytes / 1e6).toFixed(1)} MB for a ${(m.trace_bytes / 1e6).toFixed(1)} MB trace`);
    console.log(`  first drawn diagram      ${ms(m.first_diagram).padStart(8)}   ${ratio(m.first_diagram, m.baseline)} the baseline (${ms(m.baseline)}: inflate, JSON.parse each line, one WebGL frame)`);
    console.log(`    script starts          ${ms(m.script).padStart(8)}   (the HTML read)`);
    console.log(`    wasm ready             ${ms(m.wasm_ready).padStart(8)}   trace inflated ${ms(m.trace_ready)}, viewer started ${ms(m.start)}`);
    console.log(`    reading the trace      ${ms(m.trace_read).padStart(8)}`);
    console.log(`    analysis and layout    ${ms(m.analysis_and_layout).padStart(8)}`);
    console.log(`    eframe start, 1st frame${ms(m.first_frame).padStart(8)}   (the diagram of the first ${m.first_events} events)`);
    console.log(`  every event shown        ${ms(m.loaded).padStart(8)}`);
    console.log(`  findings ready           ${ms(m.findings_ready).padStart(8)}   longest frame meanwhile ${ms(m.longest_frame_meanwhile)}`);
    console.log(`    their longest step per stage: ${Object.entries(m.findings_steps).map(([k, v]) => `${k} ${v.toFixed(1)} ms`).join(', ')}`);
  }
  const during = (l, who) => {
    console.log(`\n${who}scrolling DURING loading: from the first diagram (${l.from_events} events) while the rest is read and the findings computed, until they are${l.findings ? '' : ' (NOT reached)'} (${l.frames} frames): median ${l.median.toFixed(1)} ms, p95 ${l.p95.toFixed(1)} ms, max ${l.max.toFixed(1)} ms, ${l.over_16ms} over 16 ms`);
    console.log(`  our own work in those frames at most: reading and taking in events ${l.longest_read.toFixed(1)} ms; the findings' stages: ${Object.entries(l.findings_steps).map(([k, v]) => `${k} ${v.toFixed(1)} ms`).join(', ')}`);
    // (Wall times: a step that waited for a core counts its wait.)
    const c = l.core.page;
    if (c) console.log(`  the page's main thread meanwhile ran ${c.ran.toFixed(0)} ms and waited ${c.waited.toFixed(0)} ms for a core (${(c.waited / l.frames).toFixed(1)} ms a frame)${l.core.gpu ? `; the GPU process's ran ${l.core.gpu.ran.toFixed(0)} ms, waited ${l.core.gpu.waited.toFixed(0)} ms` : ''}`);
  };
  during(out.scroll_loading, '');
  if (mainBundle) {
    during(out.scroll_loading_main, `main's bundle (${mainBundle}), same run: `);
    const w = out.weather_main;
    console.log(`  main's bundle, weather: findings ready ${ms(w.findings_ready)}, longest frame meanwhile ${ms(w.longest_frame_meanwhile)} (this build: ${ms(out.weather.findings_ready)}, ${ms(out.weather.longest_frame_meanwhile)}); longest step per stage: ${Object.entries(w.findings_steps).map(([k, v]) => `${k} ${v.toFixed(1)} ms`).join(', ')}`);
  }
  const s = out.scroll;
  console.log(`scrolling AFTER loading: all 100,000 events read, findings ready (${s.frames} frames): median ${s.median.toFixed(1)} ms, p95 ${s.p95.toFixed(1)} ms, max ${s.max.toFixed(1)} ms, ${s.over_16ms} over 16 ms`);
  console.log(`  against the same rows standing still: median ${s.still_median.toFixed(1)} ms (${ratio(s.median, s.still_median)}), p95 ${s.still_p95.toFixed(1)} ms (${ratio(s.p95, s.still_p95)}), max ${s.still_max.toFixed(1)} ms, ${s.still_over_16ms} over 16 ms`);
  const d = out.doctor;
  console.log(`the doctor's tab open on 100,000 events with ${d.violations} violations (${d.frames} frames): median ${d.median.toFixed(1)} ms, p95 ${d.p95.toFixed(1)} ms, max ${d.max.toFixed(1)} ms`);
  console.log(`  its findings ready ${ms(d.findings_ready)}, the longest frame meanwhile ${ms(d.longest_frame_meanwhile)}`);
  console.log(`memory: ${(out.weather.memory / 1e6).toFixed(1)} MB for the weather trace, ${(out.big.memory / 1e6).toFixed(1)} MB for 100,000 events: ${out.memory_per_event} bytes per event`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
