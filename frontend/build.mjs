// Bundles the editor and copies KaTeX's browser build into the Django static folder.
import { build } from "esbuild";
import { cpSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";

const VENDOR = "../webplatform/static/vendor";

await build({
  entryPoints: ["editor.js"],
  bundle: true,
  minify: true,
  format: "iife",
  globalName: "RematEditor",
  outfile: `${VENDOR}/editor.js`,
  legalComments: "eof",
});

const KATEX = `${VENDOR}/katex`;
rmSync(KATEX, { recursive: true, force: true });
mkdirSync(`${KATEX}/fonts`, { recursive: true });
cpSync("node_modules/katex/dist/katex.min.js", `${KATEX}/katex.min.js`);
// The stylesheet lists woff2, woff and ttf for each font; keep only the woff2 sources we ship.
const css = readFileSync("node_modules/katex/dist/katex.min.css", "utf8")
  .replace(/,url\(fonts\/[^)]+\.(woff|ttf)\) format\("(woff|truetype)"\)/g, "");
writeFileSync(`${KATEX}/katex.min.css`, css);
cpSync("node_modules/katex/LICENSE", `${KATEX}/LICENSE`);
// woff2 is enough for every browser we support; the other formats would triple the size.
for (const font of readdirSync("node_modules/katex/dist/fonts")) {
  if (font.endsWith(".woff2")) cpSync(`node_modules/katex/dist/fonts/${font}`, `${KATEX}/fonts/${font}`);
}

// axe-core, for the browser tests only (tests/web/test_every_page.py): copied into the tests'
// assets, never served by the site.
const AXE = "../tests/assets/axe-core";
rmSync(AXE, { recursive: true, force: true });
mkdirSync(AXE, { recursive: true });
cpSync("node_modules/axe-core/axe.min.js", `${AXE}/axe.min.js`);
cpSync("node_modules/axe-core/LICENSE", `${AXE}/LICENSE`);
