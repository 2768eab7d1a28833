// Where the web viewer's time goes, by function, in headless Chromium (V8's sampling profiler
// through the DevTools protocol). Not a test: a tool for measure.sh's figures.
//   node tests/web/profile.mjs PAGE.html [load|scroll]
// `load` profiles the page from navigation to its first drawn diagram; `scroll` (default)
// 120 wheel steps over the diagram once it is drawn. Prints the functions with the most self
// time. Wasm functions have names only in a bundle built with them: tools/build-web.sh keeps
// them with SIGHTLINE_WEB_NAMES=1.
import { launch, status, until, scrollFrames } from './lib.mjs';

const [file, what = 'scroll'] = process.argv.slice(2);
const browser = await launch();
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
  if (what === 'load') await cdp.send('Profiler.start');
  await page.goto('file://' + file);
  await until('the first drawn diagram', async () => {
    const s = await status(page);
    return s && s.first_diagram_ms != null && s.findings_ms != null;
  }, 60000, 20);
  let frames = [];
  if (what === 'scroll') {
    await cdp.send('Profiler.start');
    frames = await scrollFrames(page, 120);
  }
  const { profile } = await cdp.send('Profiler.stop');
  const self = new Map();
  const dt = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    dt.set(profile.samples[i], (dt.get(profile.samples[i]) || 0) + (profile.timeDeltas[i] || 0));
  }
  let total = 0;
  for (const n of profile.nodes) {
    const us = dt.get(n.id) || 0;
    const name = `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url ? n.callFrame.url.split('/').pop().slice(0, 30) : ''}`;
    self.set(name, (self.get(name) || 0) + us);
    if (n.callFrame.functionName !== '(idle)' && n.callFrame.functionName !== '(program)') total += us;
  }
  const top = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 40);
  if (frames.length) {
    const s = [...frames].sort((a, b) => a - b);
    console.log(`${frames.length} frames: median ${s[s.length >> 1].toFixed(1)} ms, max ${s[s.length - 1].toFixed(1)} ms`);
  }
  console.log(`busy ${(total / 1000).toFixed(0)} ms (not idle, not program)`);
  for (const [name, us] of top) console.log(`${(us / 1000).toFixed(1).padStart(9)} ms  ${name}`);
} finally {
  await browser.close();
}
