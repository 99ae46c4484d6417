// The in-browser editor: CodeMirror 6 with Python highlighting and line numbers.
// Bundled by build.mjs into webplatform/static/vendor/editor.js as the global `RematEditor`.
import { basicSetup, EditorView } from "codemirror";
import { python } from "@codemirror/lang-python";
import { indentUnit } from "@codemirror/language";
import { keymap } from "@codemirror/view";
import { indentWithTab } from "@codemirror/commands";

// Creates an editor inside `parent` holding `doc`; `onChange(text)` is called on every edit.
export function createEditor(parent, doc, onChange) {
  const view = new EditorView({
    doc,
    parent,
    extensions: [
      basicSetup,
      python(),
      indentUnit.of("    "),
      keymap.of([indentWithTab]),
      EditorView.updateListener.of((update) => {
        if (update.docChanged && onChange) onChange(update.state.doc.toString());
      }),
    ],
  });
  return {
    view,
    getText: () => view.state.doc.toString(),
    setText: (text) => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } }),
  };
}
