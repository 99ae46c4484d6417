// The in-browser editor: CodeMirror 6 with Python highlighting and line numbers.
// Bundled by build.mjs into webplatform/static/vendor/editor.js as the global `RematEditor`.
import { basicSetup, EditorView } from "codemirror";
import { python } from "@codemirror/lang-python";
import { HighlightStyle, indentUnit, syntaxHighlighting } from "@codemirror/language";
import { drawSelection, keymap } from "@codemirror/view";
import { Prec } from "@codemirror/state";
import { indentWithTab } from "@codemirror/commands";
import { tags } from "@lezer/highlight";

// Colours come from the page's CSS variables (arena.css), so the editor follows the site's light
// or dark theme, with the same contrast.
const theme = EditorView.theme({
  "&": { color: "var(--ink)", backgroundColor: "var(--card)" },
  "&.cm-focused": { outline: "3px solid var(--focus)", outlineOffset: "2px" },
  ".cm-content": { caretColor: "var(--ink)" },
  ".cm-cursor, .cm-dropCursor": { borderLeftColor: "var(--ink)" },
  "&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground, .cm-content ::selection":
    { backgroundColor: "var(--selection)" },
  ".cm-activeLine": { backgroundColor: "var(--active-line)" },
  ".cm-gutters": { backgroundColor: "var(--code-bg)", color: "var(--muted)", borderRight: "1px solid var(--line)" },
  ".cm-activeLineGutter": { backgroundColor: "var(--active-line)", color: "var(--ink)" },
  ".cm-tooltip, .cm-panels": { backgroundColor: "var(--card)", color: "var(--ink)", border: "1px solid var(--line)" },
  ".cm-tooltip-autocomplete ul li[aria-selected]": { backgroundColor: "var(--selection)", color: "var(--ink)" },
  ".cm-textfield": { backgroundColor: "var(--card)", color: "var(--ink)" },
  ".cm-button": { backgroundImage: "none", backgroundColor: "var(--button-bg)", color: "var(--ink)" },
});

const highlight = HighlightStyle.define([
  { tag: [tags.keyword, tags.controlKeyword, tags.definitionKeyword, tags.moduleKeyword, tags.operatorKeyword],
    color: "var(--syn-keyword)" },
  { tag: [tags.string, tags.special(tags.string)], color: "var(--syn-string)" },
  { tag: tags.comment, color: "var(--syn-comment)", fontStyle: "italic" },
  { tag: [tags.number, tags.bool, tags.null], color: "var(--syn-number)" },
  { tag: [tags.function(tags.variableName), tags.function(tags.propertyName),
          tags.function(tags.definition(tags.variableName))], color: "var(--syn-function)" },
  { tag: [tags.operator, tags.punctuation], color: "var(--syn-operator)" },
  { tag: [tags.className, tags.definition(tags.className), tags.self, tags.constant(tags.variableName)],
    color: "var(--syn-constant)" },
  { tag: tags.invalid, color: "var(--bad)" },
]);

// CodeMirror writes its styles into a <style> element, which the site's Content-Security-Policy
// lets through only with the page's nonce: the <script> that loads this bundle carries it.
const pageNonce = (document.currentScript && document.currentScript.nonce) || "";

// Creates an editor inside `parent` holding `doc`; `onChange(text)` is called on every edit.
// `options`: `label` (its accessible name), `describedBy` (ids of the text that says how to
// use it), `shortcuts` ({"Mod-Enter": fn, ...}, taken before the editor's own keys).
export function createEditor(parent, doc, onChange, options = {}) {
  // In the tab order explicitly (a contenteditable already is): tools that look for something
  // focusable in the editor's scrolling box, as axe-core does, find it.
  const attributes = { tabindex: "0" };
  if (options.label) attributes["aria-label"] = options.label;
  if (options.describedBy) attributes["aria-describedby"] = options.describedBy;
  const shortcuts = Object.entries(options.shortcuts || {}).map(([key, run]) => ({
    key, run: () => { run(); return true; },
  }));
  const stillCursor = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  const view = new EditorView({
    doc,
    parent,
    extensions: [
      basicSetup,
      python(),
      theme,
      syntaxHighlighting(highlight),
      indentUnit.of("    "),
      // Tab indents; Esc then Tab leaves the editor (CodeMirror's own escape, said next to it).
      keymap.of([indentWithTab]),
      Prec.highest(keymap.of(shortcuts)),
      EditorView.contentAttributes.of(attributes),
      pageNonce ? EditorView.cspNonce.of(pageNonce) : [],
      stillCursor ? drawSelection({ cursorBlinkRate: 0 }) : [],
      EditorView.updateListener.of((update) => {
        if (update.docChanged && onChange) onChange(update.state.doc.toString());
      }),
    ],
  });
  return {
    view,
    focus: () => view.focus(),
    getText: () => view.state.doc.toString(),
    setText: (text) => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } }),
  };
}
