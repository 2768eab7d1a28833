// Sightline's picture beside Mermaid's: everything Mermaid draws of a trace, Sightline's own
// picture draws too, whole. Mermaid is the diagram people already know (GitHub renders it), and
// `export --format mermaid` hands it the same trace; a label that Mermaid shows in full and
// Sightline cuts or leaves out would make Sightline the worse picture of its own data.
//
//   node check.mjs BINARY MMDC WORKDIR ARTIFACTS
//
// For every shipped scenario (`run --list`), recorded with the embedded scripted model, in
// English, Portuguese and Spanish: `export --format mermaid` is rendered to SVG by mermaid-cli
// (MMDC, driving Debian's Chromium; every diagram in one mmdc process, as one Markdown file),
// and each text in Mermaid's SVG (participants, the host's box, messages, notes) must be a text
// of `export --format svg` (the labels the app draws, from the same home), not elided:
//   - a message or note as Mermaid writes it (`label · detail`) is our label with its detail
//     drawn beside it, or our label alone when Mermaid's line has no detail; drawn as often as
//     Mermaid draws it;
//   - a line Mermaid's export cut at its length (ending in `…`) is the start of ours;
//   - a participant or the host's box `Name (role)` is our lane title and the role under it;
//   - the lesson note (`Note over L,S1`) is our lesson band: the same sentence, on its lines.
// Mermaid's SVGs and ours are kept in ARTIFACTS. Fails naming the scenario, the language and
// each text Mermaid shows that ours does not.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';

const exec = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const [binary, mmdc, work, artifacts] = process.argv.slice(2);
const LANGS = ['en', 'pt', 'es'];
fs.mkdirSync(work, { recursive: true });
fs.mkdirSync(artifacts, { recursive: true });

const started = Date.now();
const sightline = (args) => exec(binary, args, { maxBuffer: 64 << 20 });

/** `limit` at a time of `jobs` (functions returning promises), results in order. */
async function pool(jobs, limit) {
  const out = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      out[i] = await jobs[i]();
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return out;
}

const ENTITIES = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };
function unxml(s) {
  return s.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (m, e) => {
    if (e[0] === '#') return String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1)));
    return ENTITIES[e] ?? m;
  });
}
const norm = (s) => unxml(s).replace(/\s+/g, ' ').trim();

/** The `<text>` elements of an SVG: `{ cls, text, detail }`. `text` is what the element says,
 * its lines (a `<tspan>` with its own `x` starts one) joined by spaces; `detail` is what a
 * `<tspan dx=…>` adds beside it (Sightline's detail after a label), if any. */
function texts(svg) {
  const out = [];
  for (const m of svg.matchAll(/<text\b([^>]*)>([\s\S]*?)<\/text>/g)) {
    const cls = (m[1].match(/\bclass="([^"]*)"/) || [])[1] || '';
    let body = m[2];
    const details = [];
    body = body.replace(/<tspan\b[^>]*\bdx="[^"]*"[^>]*>([\s\S]*?)<\/tspan>/g, (_, t) => {
      details.push(norm(t.replace(/<[^>]+>/g, '')));
      return '';
    });
    // Each line its own, with a space between lines.
    const text = norm(body.replace(/<tspan\b[^>]*\bx="[^"]*"[^>]*>/g, ' ').replace(/<[^>]+>/g, ''));
    out.push({ cls, text, detail: details.filter((d) => d !== '').join(', ') });
  }
  return out;
}

/** What Mermaid drew: participants (each once, though Mermaid draws them top and bottom), the
 * box labels, and the messages and notes (as often as drawn). */
function mermaidTexts(svg) {
  const seen = new Set();
  const out = [];
  for (const t of texts(svg)) {
    const text = t.text;
    if (!text) continue;
    const kind = /\bmessageText\b/.test(t.cls)
      ? 'message'
      : /\bnoteText\b/.test(t.cls)
        ? 'note'
        : /\bactor\b/.test(t.cls)
          ? 'participant'
          : 'box';
    if (kind === 'participant' || kind === 'box') {
      if (seen.has(text)) continue;
      seen.add(text);
    }
    out.push({ kind, text });
  }
  return out;
}

/** Sightline's SVG: each drawn text, as the strings it shows whole (`label` and, with a detail,
 * `label · detail`), and the lesson band's text. */
function oursTexts(svg) {
  const drawn = [];
  let lesson = null;
  for (const t of texts(svg)) {
    if (/\blesson\b/.test(t.cls)) {
      lesson = t.text;
      continue;
    }
    if (!t.text) continue;
    const shows = [t.text];
    if (t.detail) shows.push(`${t.text} · ${t.detail}`);
    drawn.push({ shows, used: false });
  }
  return { drawn, lesson };
}

/** The texts Mermaid shows that our SVG does not, as messages. `lessonText` is the lesson
 * note's text in Mermaid's source. */
function compare(mermaid, ours, lessonText) {
  const missing = [];
  const take = (test) => {
    const hit = ours.drawn.find((d) => !d.used && d.shows.some(test));
    if (hit) hit.used = true;
    return hit;
  };
  const any = (text) => ours.drawn.some((d) => d.shows.includes(text));
  // Whole matches first, so that a cut line never takes the text a whole one needs.
  const rest = mermaid.filter((m) => m.kind === 'participant' || m.kind === 'box' || !take((s) => s === m.text));
  for (const m of rest) {
    if (m.kind === 'participant' || m.kind === 'box') {
      // `Name (role)`: our header says the role under the name.
      const parts = m.text.match(/^(.*) \((.*)\)$/);
      if (!(any(m.text) || (parts && any(parts[1]) && (any(parts[2]) || any(`(${parts[2]})`))))) {
        missing.push(`${m.kind} ${JSON.stringify(m.text)}`);
      }
      continue;
    }
    if (lessonText !== null && m.text === lessonText) {
      if (ours.lesson !== m.text) {
        missing.push(`the lesson ${JSON.stringify(m.text)} (ours: ${JSON.stringify(ours.lesson)})`);
      }
      continue;
    }
    if (m.text.endsWith('…')) {
      const start = m.text.slice(0, -1);
      if (take((s) => s.startsWith(start))) continue;
    }
    // The nearest text of ours, to say what is cut or different.
    const all = ours.drawn.flatMap((d) => d.shows);
    const common = (s) => {
      let i = 0;
      while (i < s.length && s[i] === m.text[i]) i++;
      return i;
    };
    const near = all.reduce((best, s) => (common(s) > common(best) ? s : best), '');
    missing.push(`${m.kind} ${JSON.stringify(m.text)}${near ? ` (nearest of ours: ${JSON.stringify(near)})` : ''}`);
  }
  return missing;
}

// The shipped scenarios, each recorded once; exported in each language.
const list = (await sightline(['run', '--list'])).stdout;
const scenarios = [...list.matchAll(/^ {2}(\S+)\s{2,}/gm)].map((m) => m[1]);
assert.ok(scenarios.length >= 10 && scenarios.includes('weather'), `scenarios from run --list: ${scenarios}\n${list}`);
const cases = [];
await pool(
  scenarios.map((name) => async () => {
    const trace = path.join(work, `${name}.jsonl`);
    await sightline(['run', name, '--trace', trace]);
    for (const lang of LANGS) {
      const base = path.join(artifacts, `${name}.${lang}`);
      await sightline(['export', trace, '--format', 'mermaid', '--lang', lang, '--out', `${base}.mmd`]);
      await sightline(['export', trace, '--format', 'svg', '--lang', lang, '--out', `${base}.sightline.svg`]);
      cases.push({ name, lang, base });
    }
  }),
  2,
);
cases.sort((a, b) => a.base.localeCompare(b.base));
const recorded = Date.now();

// One mmdc process for every diagram: a Markdown file of them all, rendered to one SVG each.
const md = path.join(work, 'all.md');
fs.writeFileSync(md, cases.map((c) => '```mermaid\n' + fs.readFileSync(`${c.base}.mmd`, 'utf8') + '```\n').join('\n'));
const out = path.join(work, 'out');
fs.mkdirSync(out, { recursive: true });
await exec(mmdc, ['-q', '-j', '2', '-p', path.join(here, 'puppeteer-config.json'), '-i', md, '-o', path.join(out, 'all.md')], {
  maxBuffer: 64 << 20,
});
const rendered = Date.now();

const faults = [];
let compared = 0;
for (const [i, c] of cases.entries()) {
  const mermaidSvg = fs.readFileSync(path.join(out, `all-${i + 1}.svg`), 'utf8');
  fs.copyFileSync(path.join(out, `all-${i + 1}.svg`), `${c.base}.mermaid.svg`);
  const source = fs.readFileSync(`${c.base}.mmd`, 'utf8');
  const lesson = [...source.matchAll(/^\s*Note over \w+,\w+: (.*)$/gm)].pop();
  const lessonText = lesson ? norm(lesson[1].replace(/#(\d+);/g, (_, n) => String.fromCodePoint(Number(n)))) : null;
  const mermaid = mermaidTexts(mermaidSvg);
  const messages = mermaid.filter((m) => m.kind === 'message' || m.kind === 'note').length;
  const lines = source.split('\n').filter((l) => /^\s*(Note over |\w+(-|--)(>>|x|\))\w+:)/.test(l)).length;
  // Mermaid drew one text per message and note line of its source: nothing was lost on its side.
  if (messages !== lines) faults.push(`${c.name} (${c.lang}): Mermaid drew ${messages} texts of ${lines} lines`);
  const ours = oursTexts(fs.readFileSync(`${c.base}.sightline.svg`, 'utf8'));
  for (const m of compare(mermaid, ours, lessonText)) faults.push(`${c.name} (${c.lang}): ${m}`);
  compared += mermaid.length;
}
const secs = (a, b) => ((b - a) / 1000).toFixed(1);
console.log(
  `mermaid side by side: ${scenarios.length} scenarios x ${LANGS.length} languages, ${compared} texts of Mermaid's ` +
    `(recorded and exported in ${secs(started, recorded)} s, mmdc ${secs(recorded, rendered)} s, compared in ${secs(rendered, Date.now())} s)`,
);
assert.deepEqual(faults, [], `Mermaid shows what Sightline's picture does not (${faults.length}):\n${faults.join('\n')}\n`);
console.log('ok mermaid side by side: Sightline shows every text Mermaid shows');
