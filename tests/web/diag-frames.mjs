// Which frames of the scrolling during loading are long, and whose time they are: our work
// (reading the trace, the findings' steps; `recent_work_ms`) or the drawing (the rest of
// eframe's measure). Not a test: a tool for measure.sh's "scrolling DURING loading".
//   [AFTER=1] node tests/web/diag-frames.mjs PAGE.html RUNS [BUNDLE_DIR...]
// PAGE.html is an exported page (of the big trace); with BUNDLE_DIRs (tools/build-web.sh
// outputs), the same page carrying each bundle instead, interleaved run by run. With AFTER=1,
// the same scrolling once the findings are ready (150 frames), for the drawing alone.
import fs from 'node:fs';
import path from 'node:path';
import { launch, open, status, withBundle, coreTimes, coreTimesBetween } from './lib.mjs';

const [html, runsArg, ...bundles] = process.argv.slice(2);
const RUNS = Number(runsArg || 2);

const pages = bundles.length ? bundles.map((b, i) => {
  const f = path.join(path.dirname(html), `diag-${i}.html`);
  withBundle(html, b, f);
  return [b, f];
}) : [['(own)', html]];

async function once(browser, file) {
  const { page } = await open(browser, 'file://' + file);
  const cores = await coreTimes(browser);
  await page.mouse.move(700, 450);
  const frame = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const before = await status(page);
  let i = 0;
  let t0 = Date.now();
  while ((await status(page)).findings_ms == null && Date.now() - t0 < 120000) {
    await page.mouse.wheel(0, (Math.floor(i / 30) % 2) ? -240 : 240);
    await frame();
    i++;
  }
  await frame();
  let after = await status(page);
  if (process.env.AFTER) {
    // The same scrolling once everything is loaded, for the drawing's own time.
    const b2 = after;
    for (let k = 0; k < 150; k++) { await page.mouse.wheel(0, (Math.floor(k / 30) % 2) ? -240 : 240); await frame(); }
    await frame();
    after = await status(page);
    const n2 = Math.min(after.frames - b2.frames, after.recent_cpu_ms.length);
    const c2 = after.recent_cpu_ms.slice(-n2), u2 = after.recent_update_ms.slice(-n2), w2 = after.recent_work_ms.slice(-n2);
    const qq = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
    console.log(`AFTER loading ${n2} frames: median ${qq(c2, 0.5).toFixed(1)} p95 ${qq(c2, 0.95).toFixed(1)} over16 ${c2.filter((x) => x > 16).length}; panels median ${qq(u2.map((u, i) => u - w2[i]), 0.5).toFixed(1)} p95 ${qq(u2.map((u, i) => u - w2[i]), 0.95).toFixed(1)}; paint median ${qq(c2.map((c, i) => c - u2[i]), 0.5).toFixed(1)} p95 ${qq(c2.map((c, i) => c - u2[i]), 0.95).toFixed(1)}`);
    await page.close();
    return { cpu: [0], work: [0], update: [0], wheel: i, steps: after.findings_steps_ms, read: after.longest_read_ms };
  }
  const core = coreTimesBetween(cores, await coreTimes(browser)).page;
  const n = Math.min(after.frames - before.frames, after.recent_cpu_ms.length);
  const cpu = after.recent_cpu_ms.slice(-n);
  const work = after.recent_work_ms ? after.recent_work_ms.slice(-n) : cpu.map(() => null);
  const update = after.recent_update_ms ? after.recent_update_ms.slice(-n) : cpu.map(() => null);
  await page.close();
  return { cpu, work, update, wheel: i, steps: after.findings_steps_ms, read: after.longest_read_ms, core, frames: after.frames - before.frames };
}

const q = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
const browser = await launch();
const got = Object.fromEntries(pages.map(([b]) => [b, []]));
try {
  for (let r = 0; r < RUNS; r++) for (const [b, f] of pages) got[b].push(await once(browser, f));
} finally {
  await browser.close();
}
console.log(`load ${fs.readFileSync('/proc/loadavg', 'utf8').trim()}`);
for (const [b, runs] of Object.entries(got)) {
  const cpu = runs.flatMap((r) => r.cpu);
  const work = runs.flatMap((r) => r.work);
  const update = runs.flatMap((r) => r.update);
  const over = cpu.map((c, i) => [c, work[i]]).filter(([c]) => c > 16);
  console.log(`\n${b}: ${cpu.length} frames (last 300 of each run), median ${q(cpu, 0.5).toFixed(1)}, p95 ${q(cpu, 0.95).toFixed(1)}, max ${Math.max(...cpu).toFixed(1)}, over 16: ${over.length}`);
  if (work[0] != null) {
    const draw = cpu.map((c, i) => c - work[i]);
    console.log(`  work: median ${q(work, 0.5).toFixed(1)} max ${Math.max(...work).toFixed(1)}; drawing: median ${q(draw, 0.5).toFixed(1)} p95 ${q(draw, 0.95).toFixed(1)} max ${Math.max(...draw).toFixed(1)}`);
    const panels = update.map((u, i) => u - work[i]);
    const post = cpu.map((c, i) => c - update[i]);
    console.log(`  panels (update less work): median ${q(panels, 0.5).toFixed(1)} p95 ${q(panels, 0.95).toFixed(1)}; tessellation+paint: median ${q(post, 0.5).toFixed(1)} p95 ${q(post, 0.95).toFixed(1)}`);
    const long = cpu.map((c, i) => [c, work[i], panels[i], post[i]]).filter(([c]) => c > 16);
    console.log(`  over 16 (frame = work + panels + paint): ${long.map((x) => x.map((v) => v.toFixed(1)).join('/')).join('  ')}`);
  }
  if (runs.every((r) => r.core)) {
    const ran = runs.reduce((a, r) => a + r.core.ran, 0);
    const waited = runs.reduce((a, r) => a + r.core.waited, 0);
    const frames = runs.reduce((a, r) => a + r.frames, 0);
    console.log(`  the page's main thread ran ${ran.toFixed(0)} ms and waited ${waited.toFixed(0)} ms for a core meanwhile (${(waited / frames).toFixed(1)} ms a frame, ${frames} frames)`);
  }
  console.log(`  longest read ${Math.max(...runs.map((r) => r.read)).toFixed(1)}; steps ${JSON.stringify(runs[0].steps.map(([k, v]) => [k, +v.toFixed(1)]))}`);
}
