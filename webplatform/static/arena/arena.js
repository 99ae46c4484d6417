// Remat Arena's page behaviour: math, the editor with drafts, run/submit, live status.
(function () {
  "use strict";

  // Statements carry TeX in .math-inline / .math-display spans (see catalog/rendering.py).
  function renderMath(root) {
    if (!window.katex) return;
    root.querySelectorAll(".math-inline, .math-display").forEach(function (el) {
      if (el.dataset.rendered) return;
      window.katex.render(el.textContent, el, {
        displayMode: el.classList.contains("math-display"), throwOnError: false,
      });
      el.dataset.rendered = "1";
    });
  }

  // Polls a submission's status URL until it is done; calls onUpdate with every payload.
  function pollStatus(url, onUpdate) {
    var delay = 300;
    function tick() {
      fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then(function (response) { return response.json(); })
        .then(function (data) {
          onUpdate(data);
          if (!data.done) { delay = Math.min(delay * 1.3, 2000); setTimeout(tick, delay); }
        })
        .catch(function () { delay = Math.min(delay * 2, 5000); setTimeout(tick, delay); });
    }
    tick();
  }

  // The status line: the verdict once graded, else the status and the place in the queue.
  function showStatus(el, data) {
    var graded = data.done && data.verdict;
    el.textContent = graded ? data.verdict : data.status;
    el.className = "status " + (graded ? "verdict " + data.verdict : data.status);
    var place = document.getElementById("place");
    if (place) place.textContent = data.done ? "" : data.place || "";
  }

  // Cancels a queued or running grading; the status poll then shows it cancelled.
  function cancelGrading(url, button) {
    var token = document.querySelector("input[name=csrfmiddlewaretoken]");
    var body = new FormData();
    if (token) body.set("csrfmiddlewaretoken", token.value);
    button.disabled = true;
    fetch(url, { method: "POST", body: body, headers: { Accept: "application/json" }, credentials: "same-origin" })
      .catch(function () { button.disabled = false; });
  }

  function setUpEditor() {
    var host = document.getElementById("editor");
    if (!host || !window.RematEditor) return null;
    var starter = JSON.parse(document.getElementById("starter-code").textContent);
    var key = host.dataset.draftKey;
    var draft = null;
    try { draft = window.localStorage.getItem(key); } catch (e) { /* storage disabled */ }
    var saveTimer = null;
    var editor = null;
    function saveDraft() {
      clearTimeout(saveTimer);
      try { window.localStorage.setItem(key, editor.getText()); } catch (e) { /* storage full or disabled */ }
    }
    editor = window.RematEditor.createEditor(host, draft !== null ? draft : starter, function () {
      clearTimeout(saveTimer);
      saveTimer = setTimeout(saveDraft, 250);
    });
    // A reload or a closed tab right after typing must not lose the last keystrokes.
    window.addEventListener("pagehide", saveDraft);
    var reset = document.getElementById("reset-button");
    if (reset) reset.addEventListener("click", function () {
      if (window.confirm("Replace your draft with the starter code?")) editor.setText(starter);
    });
    window.rematEditor = editor; // for the browser tests and the curious
    return editor;
  }

  function setUpSolveForm(editor) {
    var form = document.getElementById("solve-form");
    if (!form || !editor) return;
    var panel = document.getElementById("result");
    var status = document.getElementById("status");
    var body = document.getElementById("result-body");
    var link = document.getElementById("result-link");
    var cancel = document.getElementById("cancel-button");
    var buttons = form.querySelectorAll("button[type=submit]");
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var url = event.submitter && event.submitter.id === "run-button" ? form.dataset.runUrl : form.dataset.submitUrl;
      var data = new FormData(form);
      data.set("source", editor.getText());
      buttons.forEach(function (b) { b.disabled = true; });
      panel.hidden = false;
      body.innerHTML = "";
      status.textContent = "sending";
      status.className = "status queued";
      fetch(url, { method: "POST", body: data, headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then(function (response) {
          return response.json().then(function (payload) { return { ok: response.ok, payload: payload }; });
        })
        .then(function (answer) {
          if (!answer.ok) throw new Error(answer.payload.error || "refused");
          link.href = answer.payload.url;
          if (cancel) {
            cancel.hidden = false;
            cancel.disabled = false;
            cancel.onclick = function () { cancelGrading(answer.payload.cancel_url, cancel); };
          }
          pollStatus(answer.payload.status_url, function (update) {
            showStatus(status, update);
            if (update.done) {
              body.innerHTML = update.result_html;
              buttons.forEach(function (b) { b.disabled = false; });
              if (cancel) cancel.hidden = true;
            }
          });
        })
        .catch(function (error) {
          status.textContent = "not sent: " + error.message;
          status.className = "status error";
          buttons.forEach(function (b) { b.disabled = false; });
        });
    });
  }

  // The verdict page of a submission still being graded updates itself.
  function setUpLiveResult() {
    var section = document.getElementById("live-result");
    if (!section || !section.dataset.statusUrl) return;
    var status = document.getElementById("status");
    pollStatus(section.dataset.statusUrl, function (update) {
      showStatus(status, update);
      if (update.done) {
        document.getElementById("result-body").innerHTML = update.result_html;
        var form = document.getElementById("cancel-form");
        if (form) form.hidden = true;
      }
    });
  }

  // Shared with authoring.js.
  window.Arena = { renderMath: renderMath, pollStatus: pollStatus };

  document.addEventListener("DOMContentLoaded", function () {
    renderMath(document);
    setUpSolveForm(setUpEditor());
    setUpLiveResult();
  });
})();
