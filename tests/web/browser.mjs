// Sightline's web viewer in a real browser: Debian's Chromium (headless, software WebGL through
// SwiftShader), driven by playwright-core. Run by tests/web/run.sh, which builds the bundle and
// the binary first and passes:
//   node browser.mjs BINARY WORKDIR ARTIFACTS
// What it checks, on the exported file and on the served page: the diagram is drawn (a
// screenshot is kept, and the arrows' accessibility labels are on the page), clicking an arrow
// shows its raw text in the inspector, teaching mode steps, Portuguese switches the narration;
// `serve` of a growing session folder shows new events within a second; `serve --listen` off
// the loopback answers 403 without the token; a served file replaced or written again is
// shown anew from its start (the page reloads); a served page shows the exported page's token
// counts (serve's `event: tokens`); a 100,000-event trace is drawn, its findings
// come after its first diagram, and it scrolls. How fast all that is, is measured by
// measure.mjs (tests/web/measure.sh), not here.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import http from 'node:http';
import assert from 'node:assert/strict';
import * as lib from './lib.mjs';
import { until, status, a11y, widget, click, syntheticTrace, scrollFrames } from './lib.mjs';

const [binary, work, artifacts] = process.argv.slice(2);
fs.mkdirSync(artifacts, { recursive: true });
const children = [];
let browser;

function cleanup() {
  for (const c of children) {
    if (c.exitCode === null) c.kill('SIGTERM');
  }
}
process.on('exit', cleanup);

const run = (args, opts) => lib.run(binary, args, opts);
const open = (url, opts) => lib.open(browser, url, opts);

/** Starts `sightline serve`, resolves with its printed URL once it listens. */
function serve(args) {
  const child = spawn(binary, ['serve', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${out}`)), 15000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/ at (http:\S+)/);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1], out });
      }
    });
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
  });
}

function get(url) {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode, body }));
      })
      .on('error', reject);
  });
}

async function shot(page, name) {
  const file = path.join(artifacts, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

/** Only the file itself, and data: or blob: URLs the page makes: nothing from the network. */
function assertOffline(requests, pageUrl) {
  const foreign = requests.filter((u) => u !== pageUrl && !u.startsWith('data:') && !u.startsWith('blob:'));
  assert.deepEqual(foreign, [], 'the page made requests of its own');
}

async function exportedWeather(weather) {
  const html = path.join(work, 'weather.html');
  const r = await run(['export', weather, '--format', 'html', '--out', html, '--lang', 'en']);
  assert.equal(r.code, 0, `export failed: ${r.err}`);
  const url = 'file://' + html;
  const { page, requests, errors, first } = await open(url);
  assert.equal(first.lang, 'en');
  assert.equal(first.warnings.length, 0, first.warnings.join('; '));

  // The diagram is drawn: its arrows carry their labels (`#seq label`), the model and server
  // lanes have no arrow between them, and a screenshot is kept.
  const arrows = (await a11y(page)).filter((n) => /^#\d+ /.test(n.label));
  assert.ok(arrows.length >= 10, `only ${arrows.length} arrows drawn`);
  assert.ok(arrows.some((n) => /tools\/call get_weather/.test(n.label)), 'no tools/call arrow');
  await shot(page, 'exported-weather');

  // Clicking an arrow shows its raw text in the inspector.
  const call = await click(page, 'the tools/call arrow', (l) => /^#\d+ tools\/call get_weather/.test(l));
  const seq = Number(call.label.match(/^#(\d+)/)[1]);
  const selected = await until('the selection', async () => {
    const s = await status(page);
    return s.selected != null ? s : null;
  });
  assert.match(selected.selected_raw, /"method":"tools\/call"/);
  assert.match(selected.selected_raw, /get_weather/);
  await until('the raw text in the inspector', async () => (await a11y(page)).some((n) => n.label.includes('"method":"tools/call"')), 5000).catch(() => null);
  await shot(page, 'exported-weather-selected');

  // Teaching mode steps, with narration.
  await click(page, 'View', (l) => l === 'View');
  await click(page, 'Teaching mode', (l) => l === 'Teaching mode');
  const teaching = await until('teaching mode', async () => {
    const s = await status(page);
    return s.teaching && s.narration ? s : null;
  });
  await click(page, 'Next', (l) => l === 'Next');
  const stepped = await until('a step', async () => {
    const s = await status(page);
    return s.cursor === teaching.cursor + 1 && s.narration ? s : null;
  });
  assert.notEqual(stepped.narration, teaching.narration, 'the narration did not change with the step');
  await shot(page, 'exported-weather-teaching');

  // Portuguese switches the narration (and the menus).
  await click(page, 'PT', (l) => l === 'PT');
  const pt = await until('Portuguese', async () => {
    const s = await status(page);
    return s.lang === 'pt' ? s : null;
  });
  assert.equal(pt.cursor, stepped.cursor);
  assert.notEqual(pt.narration, stepped.narration, 'the narration is still English');
  await widget(page, 'Exibir (View in Portuguese)', (l) => l === 'Exibir');
  await shot(page, 'exported-weather-pt');

  assertOffline(requests, url);
  assert.deepEqual(errors, [], 'the page reported errors');
  await page.close();
  console.log(`ok exported weather: ${arrows.length} arrows, arrow #${seq} inspected, teaching steps, pt narration`);
}

async function exportedBig() {
  const n = 100000;
  const trace = path.join(work, 'big.jsonl');
  syntheticTrace(trace, n);
  const html = path.join(work, 'big.html');
  const r = await run(['export', trace, '--format', 'html', '--out', html]);
  assert.equal(r.code, 0, `export failed: ${r.err}`);
  const { page, first, errors } = await open('file://' + html);
  // The first frame draws the first events; the frames after it read the rest.
  assert.ok(first.events > 0 && first.events < n, `the first frame had ${first.events} events`);
  const all = await until('every event', async () => {
    const s = await status(page);
    return s.loaded_ms != null ? s : null;
  }, 60000);
  assert.equal(all.events, n);
  assert.ok(all.loaded_ms > first.first_diagram_ms);
  // The doctor's findings come after the first diagram, an analysis per frame.
  const found = await until('the findings', async () => {
    const s = await status(page);
    return s.findings_ms != null ? s : null;
  }, 60000);
  assert.ok(found.findings_ms > first.first_diagram_ms, 'the findings were computed before the first diagram');
  // Scroll the diagram: one wheel step per frame.
  await scrollFrames(page, 120);
  const arrows = (await a11y(page)).filter((n) => /^#\d+ /.test(n.label));
  assert.ok(arrows.length > 5, 'no arrows after scrolling');
  const firstSeq = Math.min(...arrows.map((a) => Number(a.label.match(/^#(\d+)/)[1])));
  assert.ok(firstSeq > 100, `scrolling did not move the diagram (first arrow #${firstSeq})`);
  await shot(page, 'exported-100k-scrolled');
  assert.deepEqual(errors, []);
  await page.close();
  console.log(`ok 100,000 events: drawn, findings after the first diagram, scrolled to #${firstSeq}`);
}

/** The weather trace with two bad lines (not JSON, and an event without its fields). */
function corruptTrace(weather, file) {
  const lines = fs.readFileSync(weather, 'utf8').trimEnd().split('\n');
  lines.splice(3, 0, '{"seq": 3, "time": "not a time", broken');
  lines.splice(7, 0, '{"seq": 99}');
  fs.writeFileSync(file, lines.join('\n') + '\n');
}

/** The warnings a CLI command prints for `file` (each `sightline: FILE: line N: ...`), as the
 * desktop app lists them (`line N: ...`). */
async function desktopWarnings(file) {
  const r = await run(['summary', file]);
  assert.equal(r.code, 0, `summary failed: ${r.err}`);
  const prefix = `sightline: ${file}: `;
  return r.err.split('\n').filter((l) => l.startsWith(prefix)).map((l) => l.slice(prefix.length));
}

async function corruptWarnings(weather) {
  const trace = path.join(work, 'corrupt.jsonl');
  corruptTrace(weather, trace);
  const expected = await desktopWarnings(trace);
  assert.equal(expected.length, 2, `the app's warnings: ${expected}`);
  assert.match(expected[0], /^line 4: /);
  assert.match(expected[1], /^line 8: /);

  // Exported: the page lists the same warnings, and says so in its status bar.
  const html = path.join(work, 'corrupt.html');
  const r = await run(['export', trace, '--format', 'html', '--out', html, '--lang', 'en']);
  assert.equal(r.code, 0, `export failed: ${r.err}`);
  const exported = await open('file://' + html);
  assert.deepEqual(exported.first.warnings, expected);
  await widget(exported.page, 'the warning in the status bar', (l) => /^2 lines of .* could not be read and were skipped\.$/.test(l));
  await shot(exported.page, 'exported-corrupt');
  await exported.page.close();

  // Served: the server reads the file and sends its warnings to the page.
  const { child, url } = await serve([trace, '--listen', '127.0.0.1:0']);
  const served = await open(url);
  const got = await until('the served warnings', async () => {
    const s = await status(served.page);
    return s.warnings.length === expected.length && s.events === exported.first.events ? s : null;
  }, 5000);
  // As the app following a file (or a session folder) words them: with the file's name.
  const followed = expected.map((w) => w.replace(/^(line \d+): /, '$1: corrupt.jsonl: '));
  assert.deepEqual(got.warnings, followed);
  await widget(served.page, 'the warning in the status bar', (l) => /^2 lines of .* could not be read/.test(l));
  await served.page.close();
  child.kill('SIGTERM');
  console.log(`ok corrupt trace: the page warns as the app does (${expected.join('; ')})`);
}

async function servedGrowingSession(weather) {
  // A session folder that a proxy is writing: the first half of the weather trace now, the
  // rest while the page is open.
  const dir = path.join(work, 'session');
  fs.mkdirSync(dir, { recursive: true });
  const lines = fs.readFileSync(weather, 'utf8').trimEnd().split('\n');
  const half = Math.floor(lines.length / 2);
  const file = path.join(dir, 'weather-1.jsonl');
  fs.writeFileSync(file, lines.slice(0, half + 1).join('\n') + '\n');
  const { url } = await serve([dir, '--listen', '127.0.0.1:0']);
  const { page, first, requests } = await open(url);
  assert.equal(first.events, half);
  await shot(page, 'served-session-before');
  const t0 = Date.now();
  fs.appendFileSync(file, lines.slice(half + 1).join('\n') + '\n');
  const after = await until('the new events', async () => {
    const s = await status(page);
    return s.events === lines.length - 1 ? s : null;
  }, 5000, 10);
  const ms = Date.now() - t0;
  assert.ok(ms < 1000, `new events took ${ms} ms to appear`);
  assert.equal(after.live_connected, true);
  await shot(page, 'served-session-after');
  const origin = new URL(url).origin;
  assert.deepEqual(requests.filter((u) => !u.startsWith(origin) && !u.startsWith('data:') && !u.startsWith('blob:')), []);
  await page.close();
  console.log(`ok served session: ${lines.length - 1 - half} new events shown in ${ms} ms`);
}

/** What the model sees, on a page: the tools' token figure (`The tools cost about N tokens
 * (KIND)`) of the last LLM request. */
async function tokenFigure(page) {
  await click(page, 'the What the model sees tab', (l) => l === 'What the model sees');
  return (await widget(page, 'the token figure', (l) => /^The tools cost about \d+ tokens \(/.test(l))).label;
}

async function servedTokens() {
  // An OpenAI-shaped run: the native build counts its tools exactly; the page has no
  // tokenizer and shows the counts the export carries, or those serve's stream sends
  // (`event: tokens`).
  const trace = path.join(work, 'openai-chat.jsonl');
  const rec = await run(['run', 'scenarios/weather.toml', '--provider', 'openai-chat', '--model', 'scripted', '--trace', trace]);
  assert.equal(rec.code, 0, `run failed: ${rec.err}`);
  const html = path.join(work, 'openai-chat.html');
  const r = await run(['export', trace, '--format', 'html', '--out', html, '--lang', 'en']);
  assert.equal(r.code, 0, `export failed: ${r.err}`);
  const exported = await open('file://' + html);
  const figure = await tokenFigure(exported.page);
  await exported.page.close();
  assert.doesNotMatch(figure, /estimate/, `the exported page estimates: ${figure}`);
  const { child, url } = await serve([trace, '--listen', '127.0.0.1:0']);
  const served = await open(url);
  await until('every served event', async () => (await status(served.page)).events === exported.first.events, 5000);
  assert.equal(await tokenFigure(served.page), figure);
  assert.deepEqual(served.errors, [], 'the served page reported errors');
  await served.page.close();
  child.kill('SIGTERM');
  console.log(`ok token counts: the served page shows the exported page's "${figure}"`);
}

async function servedReplacedTrace(weather) {
  // A new `run --trace` over a served file replaces it (or a tool writes it again from its
  // start): the page must show the new recording from its start, never append it to the old
  // one. serve sends `event: restart`; the page reloads.
  const file = path.join(work, 'replaced.jsonl');
  fs.copyFileSync(weather, file);
  const lines = fs.readFileSync(weather, 'utf8').trimEnd().split('\n');
  const { child, url } = await serve([file, '--listen', '127.0.0.1:0']);
  const { page, first } = await open(url);
  assert.equal(first.events, lines.length - 1);
  let reloads = 0;
  page.on('framenavigated', (f) => {
    if (f === page.mainFrame()) reloads++;
  });
  // The page is between documents while it reloads: no status then.
  const events = async (n) => {
    const s = await status(page).catch(() => null);
    return s && s.events === n && s.frames > 0 ? s : null;
  };
  // Replaced: a new file renamed over the old one (a new inode), six events long.
  fs.writeFileSync(file + '.new', lines.slice(0, 7).join('\n') + '\n');
  const t0 = Date.now();
  fs.renameSync(file + '.new', file);
  await until('the replacing recording', () => events(6), 10000);
  const replacedMs = Date.now() - t0;
  assert.equal(reloads, 1, 'the page did not reload once');
  // Written again in place (the same inode, truncated): four events.
  fs.writeFileSync(file, lines.slice(0, 5).join('\n') + '\n');
  await until('the rewritten recording', () => events(4), 10000);
  assert.equal(reloads, 2, 'the page did not reload for the rewrite');
  await shot(page, 'served-replaced');
  await page.close();
  child.kill('SIGTERM');
  console.log(`ok served trace replaced: the page reloaded and showed the new recording in ${replacedMs} ms`);
}

async function servedOffLoopback(weather) {
  const { out } = await serve([weather, '--listen', '0.0.0.0:0']);
  const m = out.match(/:(\d+)\/\?token=([0-9a-f]{32})/);
  assert.ok(m, `no token in ${out}`);
  const [, port, token] = m;
  for (const p of ['/', '/events', '/?token=wrong', `/?token=${token}x`]) {
    const r = await get(`http://127.0.0.1:${port}${p}`);
    assert.equal(r.status, 403, `${p} answered ${r.status}`);
  }
  const ok = await get(`http://127.0.0.1:${port}/?token=${token}`);
  assert.equal(ok.status, 200);
  const { page, first } = await open(`http://127.0.0.1:${port}/?token=${token}`);
  assert.ok(first.events > 10);
  await page.close();
  console.log('ok serve off the loopback: 403 without the token, the page with it');
}

async function main() {
  browser = await lib.launch();
  const weather = path.join(work, 'weather.jsonl');
  const rec = await run(['run', 'scenarios/weather.toml', '--trace', weather]);
  assert.equal(rec.code, 0, `run failed: ${rec.err}`);
  await exportedWeather(weather);
  await corruptWarnings(weather);
  await exportedBig();
  await servedGrowingSession(weather);
  await servedTokens();
  await servedReplacedTrace(weather);
  await servedOffLoopback(weather);
}

main()
  .then(async () => {
    await browser.close();
    cleanup();
  })
  .catch(async (e) => {
    console.error(e);
    if (browser) await browser.close().catch(() => {});
    cleanup();
    process.exit(1);
  });
