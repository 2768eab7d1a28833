// What the long frames of the scrolling during loading are made of, from Chromium's own
// tracing: of each animation frame, its wall time against the main thread's CPU time (the
// rest it spent waiting for a core), the wasm memory before and after it and the memory's
// growth, the garbage collections and lazy wasm compilation on the main thread, what the
// renderer's other threads (V8 compiling the module's hot functions with its top tier) and
// the GPU process did meanwhile, the gaps in V8's sampled stacks and the functions sampled
// most. Not a test: a tool for measure.sh's "scrolling DURING loading" (diag-frames.mjs says
// whose the long frames are by the page's own clocks; this, whether they were working).
//   node tests/web/trace-frames.mjs PAGE.html [OUT.json]
//   ANALYZE=OUT.json node tests/web/trace-frames.mjs   (a kept trace again)
// PAGE.html is an exported page of the big trace (a bundle built with SIGHTLINE_WEB_NAMES=1
// names the wasm functions). OUT.json keeps the whole trace (for chrome://tracing or Perfetto).
import fs from 'node:fs';
import { launch, open, status } from './lib.mjs';

const [file, out] = process.argv.slice(2);
const browser = process.env.ANALYZE ? null : await launch();
const categories = [
  'devtools.timeline', 'v8', 'v8.execute', 'blink.user_timing',
  'disabled-by-default-devtools.timeline', 'disabled-by-default-v8.cpu_profiler',
  'disabled-by-default-v8.gc', 'v8.wasm', 'disabled-by-default-v8.wasm',
];
let events;
if (process.env.ANALYZE) events = JSON.parse(fs.readFileSync(process.env.ANALYZE, 'utf8')).traceEvents;
else try {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  // Each animation frame callback marked with the wasm memory's size before and after it.
  await context.addInitScript(() => {
    const raf = window.requestAnimationFrame.bind(window);
    let n = 0;
    const mem = () => (window.sightline && window.sightline.memory ? window.sightline.memory() : 0);
    window.requestAnimationFrame = (cb) => raf((t) => {
      const before = mem();
      const t0 = performance.now();
      try {
        cb(t);
      } finally {
        const after = mem();
        performance.measure(`raf ${before} ${after} ${n++}`, { start: t0, end: performance.now() });
      }
    });
  });
  await browser.startTracing(undefined, { categories, screenshots: false });
  const { page } = await open(context, 'file://' + file);
  await page.mouse.move(700, 450);
  const frame = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  let i = 0;
  const t0 = Date.now();
  while ((await status(page)).findings_ms == null && Date.now() - t0 < 120000) {
    await page.mouse.wheel(0, (Math.floor(i / 30) % 2) ? -240 : 240);
    await frame();
    i++;
  }
  const buf = await browser.stopTracing();
  if (out) fs.writeFileSync(out, buf);
  events = JSON.parse(buf.toString()).traceEvents;
  console.log(`${i} wheel steps; ${events.length} trace events`);
} finally {
  await browser.close();
}

// The page's main thread: the one that fires the animation frames.
const fired = events.filter((e) => e.name === 'FireAnimationFrame' && e.ph === 'X' && e.dur != null);
if (!fired.length) throw new Error('no animation frames in the trace');
const main = { pid: fired[0].pid, tid: fired[0].tid };
const threads = new Map(events.filter((e) => e.name === 'thread_name').map((e) => [`${e.pid}:${e.tid}`, e.args.name]));
const ms = (us) => us / 1000;
const overlap = (e, f) => Math.max(0, Math.min(e.ts + e.dur, f.ts + f.dur) - Math.max(e.ts, f.ts));

// The wasm memory's size around each frame callback (our measures, by start time).
const marks = events.filter((e) => e.cat === 'blink.user_timing' && e.name.startsWith('raf ') && e.ph === 'b')
  .map((e) => { const [, before, after] = e.name.split(' ').map(Number); return { ts: e.ts, before, after }; })
  .sort((a, b) => a.ts - b.ts);
const memoryOf = (f) => marks.find((m) => m.ts >= f.ts - 50 && m.ts <= f.ts + f.dur);

// V8's sampled stacks of the page's process.
const nodes = new Map();
const samples = [];
let at = null;
for (const e of events) {
  if (e.pid !== main.pid) continue;
  if (e.name === 'Profile') at = e.args.data.startTime;
  if (e.name !== 'ProfileChunk') continue;
  const d = e.args.data;
  for (const n of d.cpuProfile?.nodes || []) nodes.set(n.id, n);
  const ids = d.cpuProfile?.samples || [];
  for (let k = 0; k < ids.length; k++) {
    at += (d.timeDeltas || [])[k] || 0;
    samples.push([at, ids[k]]);
  }
}
samples.sort((a, b) => a[0] - b[0]);
const fn = (id) => (nodes.get(id)?.callFrame.functionName || '(anonymous)').replace(/::h[0-9a-f]{16}$/, '');

const spans = events.filter((e) => e.ph === 'X' && e.dur > 0);
const onMain = (e) => e.pid === main.pid && e.tid === main.tid;
const gcs = spans.filter((e) => onMain(e) && /^(MinorGC|MajorGC)$/.test(e.name));
const lazy = spans.filter((e) => onMain(e) && e.name === 'wasm.CompileLazy');
const grows = spans.filter((e) => onMain(e) && e.name === 'wasm.GrowMemory');
const tierUp = spans.filter((e) => e.pid === main.pid && e.name === 'wasm.TopTierCompilation');
const gpu = spans.filter((e) => threads.get(`${e.pid}:${e.tid}`) === 'CrGpuMain' && e.name === 'GPUTask');
const sum = (xs, f) => xs.reduce((a, e) => a + overlap(e, f), 0);

const q = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
const wall = fired.map((f) => ms(f.dur));
const cpu = fired.map((f) => ms(f.tdur ?? f.dur));
const long = fired.filter((f) => f.dur > 16000);
const t0 = fired[0].ts;
console.log(`${fired.length} animation frames: wall median ${q(wall, 0.5).toFixed(1)} ms, p95 ${q(wall, 0.95).toFixed(1)}, max ${Math.max(...wall).toFixed(1)}, ${long.length} over 16 ms`);
console.log(`  the main thread's CPU in them: median ${q(cpu, 0.5).toFixed(1)} ms, p95 ${q(cpu, 0.95).toFixed(1)}, max ${Math.max(...cpu).toFixed(1)}, ${cpu.filter((c) => c > 16).length} over 16 ms`);
console.log(`  wasm memory grown ${grows.filter((g) => g.ts > t0).length} times after the first frame: ${grows.filter((g) => g.ts > t0).map((g) => ms(g.dur).toFixed(2)).join(' ')} ms; in long frames ${long.filter((f) => grows.some((g) => overlap(g, f) > 0)).length}`);
console.log(`  lazily compiled on the main thread after the first frame: ${lazy.filter((e) => e.ts > t0).length} functions, ${ms(lazy.filter((e) => e.ts > t0).reduce((a, e) => a + e.dur, 0)).toFixed(1)} ms; top tier compiled meanwhile ${ms(tierUp.filter((e) => e.ts > t0).reduce((a, e) => a + e.dur, 0)).toFixed(0)} ms on other threads`);
console.log('\nlong frames: wall / main thread CPU (ms), at (ms after the first frame), memory, and in the frame: GC, lazy compilation, top-tier compilation and GPU tasks on other threads, gaps in the samples over 2 ms');
for (const f of long) {
  const m = memoryOf(f);
  const inside = samples.filter(([t]) => t >= f.ts && t <= f.ts + f.dur);
  const ts = [f.ts, ...inside.map(([t]) => t), f.ts + f.dur];
  const gaps = ts.slice(1).map((t, k) => ms(t - ts[k])).filter((g) => g > 2);
  const self = new Map();
  for (const [, id] of inside) self.set(fn(id), (self.get(fn(id)) || 0) + 1);
  const top = [...self.entries()].filter(([k]) => !/^\((idle|program|root)\)$/.test(k)).sort((a, b) => b[1] - a[1]).slice(0, 4);
  console.log(`${ms(f.dur).toFixed(1).padStart(5)} / ${ms(f.tdur ?? f.dur).toFixed(1).padStart(4)}  at ${ms(f.ts - t0).toFixed(0).padStart(6)}  mem ${m ? `${(m.before / 1e6).toFixed(1)}->${(m.after / 1e6).toFixed(1)} MB` : '-'}  gc ${ms(sum(gcs, f)).toFixed(1)}  lazy ${ms(sum(lazy, f)).toFixed(1)}  tier-up ${ms(sum(tierUp, f)).toFixed(1)}  gpu ${ms(sum(gpu, f)).toFixed(1)}  gaps ${gaps.map((g) => g.toFixed(1)).join(' ') || '-'}`);
  console.log(`        sampled most: ${top.map(([k, v]) => `${k.slice(0, 60)} ${v}`).join(' | ')}`);
}
