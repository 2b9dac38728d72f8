// XGrammar's side of the MaskBench-style run (scripts/maskbench/run.sh).
//
//   node xgrammar.cjs <web-xgrammar index.js> <tokenizer.json> <gasp.jsonl> <xgrammar.jsonl>
//
// <gasp.jsonl> is the output of "gasp bench schemas": one line per schema
// with the schema's text and the Llama-3 token ids of a valid instance
// (compact JSON, members in schema order). For each line, XGrammar
// (npm @mlc-ai/web-xgrammar, WebAssembly, one thread) compiles the schema
// with its own JSON-schema compiler, with anyWhitespace=false, no indent
// (indent -1: the JS binding's spelling of Python's indent=None), and
// separators [",", ":"] (compact JSON, the form the instance is in), and
// strictMode=false (MaskBench's "compliant" XGrammar: strict mode would
// forbid members the schema allows but does not list, refusing valid
// instances); compile time = compileJSONSchema
// + createGrammarMatcher. Then it steps through the same ids: at each step
// it times the mask (the synchronous GetNextTokenBitmask that the public
// getNextTokenBitmask wraps), counts the allowed tokens, checks the next
// id's bit and accepts it; the last step checks EOS (128001) and that the
// matcher terminates. Writes one JSON line per schema to <xgrammar.jsonl>
// (not stdout, where XGrammar prints its warnings):
//   {name, status, error, compile_ms, step_us, cpu_us, allowed}
// (cpu_us: the process's CPU time around each mask, µs resolution; the
// mask runs on node's one thread, but the process's other threads count).
// status: ok | rejected (compile error) | refused (a token of the instance,
// or EOS, not allowed: the grammar refuses a valid instance) | compiled
// (no instance to step through).
"use strict";
const fs = require("fs");
const path = require("path");

const [xgPath, tokPath, inPath, outPath] = process.argv.slice(2);
const xg = require(path.resolve(xgPath));
const EOS = 128001;

const nowNs = () => process.hrtime.bigint();
const usSince = (t0) => Number(nowNs() - t0) / 1000;
const cpuNow = () => { const c = process.cpuUsage(); return c.user + c.system; }; // µs, whole process

function popcount32(x) {
  x = x - ((x >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

// vocabulary: id -> byte-level token string, from tokenizer.json
function loadVocab(file) {
  const tj = JSON.parse(fs.readFileSync(file, "utf8"));
  let n = 0;
  for (const id of Object.values(tj.model.vocab)) n = Math.max(n, id + 1);
  for (const t of tj.added_tokens) n = Math.max(n, t.id + 1);
  const vocab = new Array(n).fill("");
  for (const [s, id] of Object.entries(tj.model.vocab)) vocab[id] = s;
  for (const t of tj.added_tokens) vocab[t.id] = t.content;
  return vocab;
}

// step runs the ids through a fresh matcher; returns null or the refusal.
function step(m, ids, vs, out) {
  for (let i = 0; i <= ids.length; i++) {
    const tok = i < ids.length ? ids[i] : EOS;
    const c0 = cpuNow();
    const t0 = nowNs();
    const h = m.handle.GetNextTokenBitmask(vs);
    out.step_us.push(Math.round(usSince(t0) * 1000) / 1000);
    out.cpu_us.push(cpuNow() - c0);
    let cnt = 0;
    const nw = h.size();
    for (let w = 0; w < nw; w++) cnt += popcount32(h.get(w));
    out.allowed.push(cnt);
    const ok = (h.get(tok >>> 5) >>> (tok & 31)) & 1;
    h.delete();
    if (!ok) return `step ${i}: token ${tok} not allowed`;
    if (!m.acceptToken(tok)) return `step ${i}: acceptToken(${tok}) returned false`;
  }
  return m.isTerminated() ? null : "matcher not terminated after EOS";
}

async function one(compiler, r, vs) {
  const out = { name: r.name, status: "", error: null, compile_ms: null, step_us: [], cpu_us: [], allowed: [] };
  let compiled, m;
  const t0 = nowNs();
  try {
    compiled = await compiler.compileJSONSchema(r.schema, false, -1, [",", ":"], false);
    m = await xg.GrammarMatcher.createGrammarMatcher(compiled);
  } catch (e) {
    out.status = "rejected";
    out.error = String(e && e.message ? e.message : e).slice(0, 300);
    if (compiled) compiled.dispose();
    return out;
  }
  out.compile_ms = usSince(t0) / 1000;
  if (r.ids && r.ids.length) {
    const err = step(m, r.ids, vs, out);
    out.status = err ? "refused" : "ok";
    out.error = err;
  } else out.status = "compiled";
  m.dispose();
  compiled.dispose();
  return out;
}

// The schemas run in a worker thread, one at a time; a schema that takes
// longer than TIMEOUT_S (compile and steps; env XG_TIMEOUT_S, default 60)
// stops the worker, is reported as status "timeout", and a fresh worker
// takes the next one (wasm cannot be interrupted otherwise).
const TIMEOUT_S = Number(process.env.XG_TIMEOUT_S || 60);

async function worker() {
  const { parentPort } = require("worker_threads");
  const vocab = loadVocab(tokPath);
  const tokInfo = await xg.TokenizerInfo.createTokenizerInfo(vocab, "byte_level", false, vocab.length, [EOS, 128009]);
  const compiler = await xg.GrammarCompiler.createGrammarCompiler(tokInfo, /*cacheEnabled=*/ false);
  const vs = tokInfo.getVocabSize();
  parentPort.on("message", async (r) => parentPort.postMessage(await one(compiler, r, vs)));
  parentPort.postMessage("ready");
}

function main() {
  const { Worker } = require("worker_threads");
  const recs = fs.readFileSync(inPath, "utf8").split("\n").filter((l) => l.length)
    .map((l) => JSON.parse(l)).filter((r) => r.schema);
  const fd = fs.openSync(outPath, "w");
  const emit = (o) => fs.writeSync(fd, JSON.stringify(o) + "\n");
  let next = 0;
  const start = () => {
    if (next >= recs.length) { fs.closeSync(fd); return; }
    const w = new Worker(__filename, { argv: process.argv.slice(2), stdout: true });
    let timer = null;
    const send = () => {
      if (next >= recs.length) { w.terminate(); fs.closeSync(fd); return; }
      const r = recs[next];
      timer = setTimeout(() => {
        emit({ name: r.name, status: "timeout", error: `over ${TIMEOUT_S} s`, compile_ms: null, step_us: [], cpu_us: [], allowed: [] });
        next++;
        w.terminate().then(start);
      }, TIMEOUT_S * 1000);
      w.postMessage(r);
    };
    w.on("message", (m) => {
      if (m !== "ready") { clearTimeout(timer); emit(m); next++; }
      send();
    });
    w.on("error", (e) => { console.error("FATAL", e); process.exit(2); });
  };
  start();
}

if (require("worker_threads").isMainThread) main();
else worker().catch((e) => { console.error("FATAL", e && e.stack ? e.stack : e); process.exit(2); });
