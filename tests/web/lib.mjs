// What the browser tests (browser.mjs) and the browser measurements (measure.mjs) share:
// Debian's Chromium started as the tests start it, polling the page's `window.sightline`,
// running the binary, and the synthetic trace of benches/app_scale.rs's shape.
import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** Headless Chromium with software WebGL2 (SwiftShader), as the issue gives it. */
export function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--enable-unsafe-swiftshader',
      '--use-angle=swiftshader',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Polls `fn` (in node) until it returns a truthy value, or fails after `ms` naming `what`. */
export async function until(what, fn, ms = 20000, every = 20) {
  const deadline = Date.now() + ms;
  let last;
  while (Date.now() < deadline) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    await sleep(every);
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what} (last: ${JSON.stringify(String(last))})`);
}

// `window.sightline` is the canvas (its id) until the page's script replaces it.
export const status = (page) => page.evaluate(() => window.sightline && window.sightline.status && window.sightline.status());
export const a11y = (page) => page.evaluate(() => (window.sightline && window.sightline.a11y ? window.sightline.a11y() : []));

/** The first widget whose accessible label `test` accepts. */
export async function widget(page, what, test) {
  try {
    return await until(`a widget labelled ${what}`, async () => (await a11y(page)).find((n) => test(n.label)));
  } catch (e) {
    const labels = (await a11y(page)).map((n) => n.label);
    throw new Error(`${e.message}; the labels on the page: ${JSON.stringify(labels.slice(0, 60))}`);
  }
}

/** Clicks the middle of the first widget whose accessible label `test` accepts. */
export async function click(page, what, test) {
  const n = await widget(page, what, test);
  await page.mouse.click(n.x + n.w / 2, n.y + n.h / 2);
  return n;
}

/** Runs the binary with `args`; resolves with its exit code and output. */
export function run(binary, args, opts = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, out, err }));
  });
}

/** Opens `url` in a fresh page of `browser` and waits for its first drawn diagram. Every
 * request the page makes is kept in `requests`, its errors in `errors`; `times` are the
 * page's own (milliseconds of `performance.now()` since navigation: `script`, `wasm_ready`,
 * `trace_ready`, `start`) with `first_diagram` added. */
export async function open(browser, url, { width = 1400, height = 900 } = {}) {
  const page = await browser.newPage({ viewport: { width, height } });
  const requests = [];
  const errors = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  const t0 = Date.now();
  await page.goto(url);
  const first = await until('the first drawn diagram', async () => {
    const s = await status(page);
    return s && s.events > 0 && s.frames > 0 && s.first_diagram_ms != null ? s : null;
  }, 60000, 10);
  const loadMs = Date.now() - t0;
  const times = await page.evaluate(() => window.sightline.times);
  if (times.start != null) times.first_diagram = times.start + first.first_diagram_ms;
  return { page, requests, errors, first, loadMs, times };
}

/** The weather loop as a synthetic trace of `n` events (the shape of benches/app_scale.rs).
 * With `invalid`, every tool result breaks the schema (its `content` is a string): a
 * violation every 12 events. */
export function syntheticTrace(file, n, { invalid = false } = {}) {
  const lines = [JSON.stringify({ sightline_trace: 1, created: '2026-01-01T00:00:00.000000Z', sightline_version: '0.1.0', title: 'synthetic' })];
  const t0 = Date.parse('2026-01-01T00:00:00Z');
  let seq = 0;
  for (let k = 0; seq < n; k++) {
    const id = 1 + 2 * k;
    const s = 'server:weather';
    const loop = [
      ['user', 'host', 'note', `What's the weather in city ${k}?`],
      ['host', s, 'stdio', JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list', params: {} })],
      [s, 'host', 'stdio', JSON.stringify({ jsonrpc: '2.0', id, result: { tools: [{ name: 'get_weather', description: 'Get current weather information for a location', inputSchema: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] } }] } })],
      ['host', s, 'stdio', JSON.stringify({ jsonrpc: '2.0', id: id + 1, method: 'tools/call', params: { name: 'get_weather', arguments: { location: `city ${k}` } } })],
      [s, 'host', 'stdio', JSON.stringify({ jsonrpc: '2.0', id: id + 1, result: { content: invalid ? `city ${k}` : [{ type: 'text', text: `city ${k}: 15C, partly cloudy` }], isError: false } })],
      [s, 'host', 'stdio', JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'served' } })],
      [s, 'host', 'stderr', `served city ${k}`],
      ['host', s, 'stdio', JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: k, progress: 1 } })],
      ['host', s, 'stdio', JSON.stringify({ jsonrpc: '2.0', id: `p${k}`, method: 'ping' })],
      [s, 'host', 'stdio', JSON.stringify({ jsonrpc: '2.0', id: `p${k}`, result: {} })],
      [s, 'host', 'stdio', 'debug output that is not JSON'],
      ['host', 'user', 'note', `city ${k}: 15C, partly cloudy`],
    ];
    for (const [from, to, channel, raw] of loop) {
      if (seq === n) break;
      const time = new Date(t0 + seq / 20).toISOString().replace('Z', '000Z');
      lines.push(JSON.stringify({ seq, time, from, to, channel, raw }));
      seq++;
    }
  }
  fs.writeFileSync(file, lines.join('\n') + '\n');
}

/** Scrolls the diagram of `page` one wheel step (`dy` pixels) per frame for `steps` steps and
 * returns eframe's own measure (update, tessellation, painting), in milliseconds, of every
 * frame drawn meanwhile (a wheel step may take more than one: egui scrolls smoothly), and of
 * no other: not the frame before the first step, not those after the last. With `dy` 0 the
 * pointer only moves, which repaints the same rows. */
export async function scrollFrames(page, steps, dy = 120) {
  await page.mouse.move(700, 450);
  const frame = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await frame();
  const before = await status(page);
  for (let i = 0; i < steps; i++) {
    if (dy) await page.mouse.wheel(0, dy);
    else await page.mouse.move(700 + (i % 2), 450);
    await frame();
  }
  const last = (await status(page)).frames;
  // The measure of a frame is published by the next one.
  await frame();
  const after = await status(page);
  // `recent_cpu_ms` ends with the measure of frame `after.frames - 1`; the frames scrolled
  // are `before.frames + 1` to `last`.
  const end = after.recent_cpu_ms.length - (after.frames - 1 - last);
  const start = Math.max(0, end - (last - before.frames));
  return after.recent_cpu_ms.slice(start, end);
}

/** `html` (an exported page) with the viewer of the bundle in `dir` instead of its own. */
export function withBundle(html, dir, file) {
  const page = fs.readFileSync(html, 'utf8');
  const wasm = fs.readFileSync(path.join(dir, 'sightline_bg.wasm.gz')).toString('base64');
  // As export::html's script_text writes the glue into the page.
  const js = fs.readFileSync(path.join(dir, 'sightline.js'), 'utf8').replace(/<(?=\/script|!--|script)/gi, '\\u003c');
  const wasmAt = page.indexOf('<script type="text/plain" id="sightline-wasm">');
  const wasmEnd = page.indexOf('</script>', wasmAt);
  const moduleAt = page.indexOf('<script type="module">\n') + '<script type="module">\n'.length;
  const boot = page.indexOf('\n;(async () => {', moduleAt);
  if (wasmAt < 0 || moduleAt < 0 || boot < 0) throw new Error('withBundle: the page is not shaped as expected');
  const out = page.slice(0, wasmAt) + '<script type="text/plain" id="sightline-wasm">' + wasm
    + page.slice(wasmEnd, moduleAt) + js + page.slice(boot);
  fs.writeFileSync(file, out);
}

/** How long the main threads of the browser's renderer and GPU processes have run, and waited
 * for a core while they could have run, in milliseconds (Linux's /proc/PID/schedstat of each
 * process's first thread), by process id: a frame's wall time is both, and on a loaded
 * machine the wait alone can make it long. Empty where /proc has no schedstat. */
export async function coreTimes(browser) {
  const cdp = await browser.newBrowserCDPSession();
  try {
    const { processInfo } = await cdp.send('SystemInfo.getProcessInfo');
    const out = {};
    for (const p of processInfo.filter((p) => p.type === 'renderer' || p.type === 'GPU')) {
      try {
        const [run, wait] = fs.readFileSync(`/proc/${p.id}/schedstat`, 'utf8').trim().split(/\s+/).map(Number);
        out[p.id] = { type: p.type, ran: run / 1e6, waited: wait / 1e6 };
      } catch {
        // The process has ended, or this is not Linux.
      }
    }
    return out;
  } finally {
    await cdp.detach();
  }
}

/** Between two `coreTimes`: the busiest renderer's main thread (the page's) and the GPU
 * process's, each `{ ran, waited }` in milliseconds, or null when /proc said nothing. */
export function coreTimesBetween(before, after) {
  const delta = (type) => Object.entries(after)
    .filter(([id, t]) => t.type === type && before[id])
    .map(([id, t]) => ({ ran: t.ran - before[id].ran, waited: t.waited - before[id].waited }))
    .sort((a, b) => b.ran - a.ran)[0] || null;
  return { page: delta('renderer'), gpu: delta('GPU') };
}
