// The authoring pages: code editors on the package's Python files, rows added to the argument
// and case tables, the slug proposed from the title, the error summary, the live preview, and the
// progress of validations and rejudges.
// Uses window.Arena (arena.js) and window.RematEditor (vendor/editor.js, the learners' editor).
(function () {
  "use strict";

  // Each <textarea data-editor="python"> gets the learners' CodeMirror editor; the textarea
  // stays in the form (hidden) and follows every edit, so submitting the form needs no script.
  function setUpCodeEditors() {
    if (!window.RematEditor) return;
    window.rematEditors = {};
    document.querySelectorAll("textarea[data-editor=python]").forEach(function (textarea) {
      var host = document.createElement("div");
      host.className = "editor";
      host.id = textarea.id + "-editor";
      var help = document.createElement("p");
      help.className = "editor-help";
      help.id = textarea.id + "-keys";
      help.innerHTML = "In the editor <kbd>Tab</kbd> indents: to move on, press <kbd>Esc</kbd> then <kbd>Tab</kbd>.";
      var label = document.querySelector("label[for='" + textarea.id + "']");
      var described = [help.id].concat((textarea.getAttribute("aria-describedby") || "").split(" ").filter(Boolean));
      textarea.hidden = true;
      textarea.parentNode.insertBefore(host, textarea.nextSibling);
      host.parentNode.insertBefore(help, host.nextSibling);
      window.rematEditors[textarea.name] = window.RematEditor.createEditor(host, textarea.value, function (text) {
        textarea.value = text;
        textarea.dispatchEvent(new Event("input", { bubbles: true }));
      }, { label: label ? label.textContent.trim() : textarea.name, describedBy: described.join(" ") });
      if (label) label.addEventListener("click", function () { window.rematEditors[textarea.name].focus(); });
    });
  }

  // The slug follows the title ("Keep the tanh!" -> keep_the_tanh, as forms.slug_from makes it)
  // until the author writes one of their own.
  function setUpSlug() {
    var title = document.getElementById("id_title");
    var slug = document.getElementById("id_slug");
    if (!title || !slug) return;
    var following = slug.value === "" || slug.value === slugFrom(title.value);
    title.addEventListener("input", function () { if (following) slug.value = slugFrom(title.value); });
    slug.addEventListener("input", function () { following = slug.value === ""; });
  }

  function slugFrom(text) {
    return text.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase()
      .replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "").slice(0, 100);
  }

  // After a refused save the summary of its errors takes the focus (a screen reader reads it);
  // each of its links goes to its field, the code editors included.
  function setUpErrorSummary() {
    var summary = document.getElementById("error-summary");
    if (!summary) return;
    summary.focus();
    summary.querySelectorAll("a[href^='#']").forEach(function (link) {
      link.addEventListener("click", function (event) {
        var target = document.getElementById(link.getAttribute("href").slice(1));
        var editor = target && window.rematEditors && window.rematEditors[target.name];
        if (!target) return;
        event.preventDefault();
        (target.closest(".field, td, .scroll-x") || target).scrollIntoView({ block: "center" });
        if (editor) editor.focus(); else target.focus();
      });
    });
  }

  // "Add an argument" / "Add a case": a copy of the formset's empty row, numbered next.
  function setUpRowButtons() {
    document.querySelectorAll("button.add-row").forEach(function (button) {
      button.addEventListener("click", function () {
        var prefix = button.dataset.prefix;
        var total = document.getElementById("id_" + prefix + "-TOTAL_FORMS");
        var html = document.getElementById(prefix + "-empty").innerHTML.replace(/__prefix__/g, total.value);
        document.querySelector("#" + prefix + "-rows tbody").insertAdjacentHTML("beforeend", html);
        total.value = String(Number(total.value) + 1);
      });
    });
  }

  // The preview re-renders from the form as it stands, a moment after the last change.
  function setUpPreview() {
    var form = document.getElementById("package-form");
    var target = document.getElementById("preview");
    if (!form || !target) return;
    var timer = null;
    var sent = 0;
    function refresh() {
      var ticket = ++sent;
      fetch(form.dataset.previewUrl, { method: "POST", body: new FormData(form), credentials: "same-origin",
                                       headers: { Accept: "application/json" } })
        .then(function (response) { return response.json(); })
        .then(function (data) {
          if (ticket !== sent) return; // an older answer arriving late
          target.innerHTML = data.html;
          target.dataset.ok = data.ok ? "1" : "0";
          window.Arena.enhance(target);
        })
        .catch(function () { /* the next change tries again */ });
    }
    function later() { clearTimeout(timer); timer = setTimeout(refresh, 350); }
    form.addEventListener("input", later);
    form.addEventListener("change", later);
    refresh();
  }

  // Validation and rejudge pages update themselves until done.
  function setUpProgress(sectionId, bodyId) {
    var section = document.getElementById(sectionId);
    if (!section || !section.dataset.statusUrl) return;
    window.Arena.pollStatus(section.dataset.statusUrl, function (update) {
      document.getElementById(bodyId).innerHTML = update.html;
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    setUpCodeEditors();
    setUpSlug();
    setUpErrorSummary();
    setUpRowButtons();
    setUpPreview();
    setUpProgress("validation", "validation-body");
    setUpProgress("rejudge", "rejudge-body");
  });
})();
