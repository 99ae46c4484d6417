// Remat Arena's page behaviour, on every page: the menu on a phone, boxes that scroll reachable by
// keyboard, math; on a problem page the editor with drafts and shortcuts, run/submit, live status.
(function () {
  "use strict";

  var MAC = /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);

  // On a phone the site's links fold under a "Menu" button (without JavaScript they wrap).
  function setUpMenu() {
    var bar = document.getElementById("topbar");
    var button = document.getElementById("menu-button");
    if (!bar || !button) return;
    button.addEventListener("click", function () {
      var open = bar.classList.toggle("open");
      button.setAttribute("aria-expanded", open ? "true" : "false");
    });
    document.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && bar.classList.contains("open")) {
        bar.classList.remove("open");
        button.setAttribute("aria-expanded", "false");
        button.focus();
      }
    });
  }

  // A table, a program or a formula wider than its box scrolls inside it; the box then takes the
  // keyboard's focus so that it can be scrolled without a mouse (and gives it back when it fits).
  var SCROLL_BOXES = ".scroll-x, pre, .math-display";
  var resizes = window.ResizeObserver ? new ResizeObserver(function (entries) {
    entries.forEach(function (entry) { markScrollable(entry.target); });
  }) : null;

  function markScrollable(box) {
    var scrolls = box.scrollWidth > box.clientWidth + 1;
    if (scrolls && !box.hasAttribute("tabindex")) {
      box.setAttribute("tabindex", "0");
      box.dataset.scrollFocus = "1";
    } else if (!scrolls && box.dataset.scrollFocus) {
      box.removeAttribute("tabindex");
      delete box.dataset.scrollFocus;
    }
    markMore(box);
  }

  // Which sides hold more than the box shows: the CSS fades those edges, so that a column cut at
  // the edge of a phone reads as "scroll for more", not as the end of the table.
  function markMore(box) {
    var left = box.scrollLeft > 1;
    var right = box.scrollLeft + box.clientWidth < box.scrollWidth - 1;
    var more = left && right ? "both" : left ? "left" : right ? "right" : "";
    if (more) box.dataset.more = more;
    else delete box.dataset.more;
  }

  function enhance(root) {
    renderMath(root);
    root.querySelectorAll(SCROLL_BOXES).forEach(function (box) {
      markScrollable(box);
      if (resizes) resizes.observe(box);
      box.addEventListener("scroll", function () { markMore(box); }, { passive: true });
    });
    if (MAC) root.querySelectorAll("kbd.mod").forEach(function (key) { key.textContent = "Cmd"; });
  }

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

  // Follows a grading pushed by the server (server-sent events: the verdict shows the moment it
  // is stored); falls back to polling when the stream breaks or stays silent past its heartbeat,
  // so the page reaches the verdict either way. Calls onUpdate with every payload, the last one done.
  var STREAM_SILENCE_MS = 20000; // the server sends the status at least every 15 s
  function followStatus(urls, onUpdate) {
    if (!window.EventSource || !urls.events_url) return pollStatus(urls.status_url, onUpdate);
    var source = new EventSource(urls.events_url);
    var over = false;
    var silence = null;
    function fallBack() {
      if (over) return;
      over = true;
      source.close();
      clearTimeout(silence);
      pollStatus(urls.status_url, onUpdate);
    }
    function listen() {
      clearTimeout(silence);
      silence = setTimeout(fallBack, STREAM_SILENCE_MS);
    }
    source.addEventListener("status", function (event) {
      if (over) return;
      var data = JSON.parse(event.data);
      if (data.done) {
        over = true;
        source.close();
        clearTimeout(silence);
      } else {
        listen();
      }
      onUpdate(data);
    });
    source.onerror = fallBack;
    listen();
  }

  // The status line: the verdict once graded, else the status and the place in the queue.
  // An inspection has no verdict: it says it finished, in neutral colours (not "done").
  function showStatus(el, data) {
    var graded = data.done && data.verdict;
    var inspected = data.done && !data.verdict && data.kind === "inspect" && data.status === "done";
    el.textContent = graded ? data.verdict : inspected ? "Inspection finished" : data.status;
    el.className = "status " + (graded ? "verdict " + data.verdict : inspected ? "inspected" : data.status);
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

  function showResult(body, html) {
    body.innerHTML = html;
    enhance(body);
  }

  // Changes made in the editor so far: a verdict takes the focus only from a learner who has not
  // gone back to typing while it was graded.
  var edits = 0;

  // After Run, Inspect or Submit the status line comes into view (on a phone the result starts
  // below the screen, and nothing visibly changed after the press).
  function bringIntoView(el) {
    var box = el.getBoundingClientRect();
    if (box.top < 0 || box.bottom > window.innerHeight) el.scrollIntoView({ block: "start" });
  }

  // When the verdict arrives its heading takes the focus (tabindex=-1 in _result.html): a screen
  // reader reads it, a phone shows it, Tab goes on into the result. Not from someone typing.
  function focusVerdict(body, editsAtSend) {
    var heading = body.querySelector("#verdict-heading");
    if (heading && edits === editsAtSend) heading.focus();
  }

  // The editor replaces the plain text area (which stays in the form, and is what a browser
  // without JavaScript sends).
  function setUpEditor(shortcuts) {
    var host = document.getElementById("editor");
    var source = document.getElementById("source");
    if (!host || !source || !window.RematEditor) return null;
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
    editor = window.RematEditor.createEditor(host, draft !== null ? draft : starter, function (text) {
      edits += 1;
      source.value = text;
      clearTimeout(saveTimer);
      saveTimer = setTimeout(saveDraft, 250);
    }, { label: host.dataset.label, describedBy: host.dataset.describedby, shortcuts: shortcuts });
    source.value = editor.getText();
    source.hidden = true;
    host.hidden = false;
    // A reload or a closed tab right after typing must not lose the last keystrokes.
    window.addEventListener("pagehide", saveDraft);
    var reset = document.getElementById("reset-button");
    if (reset) reset.addEventListener("click", function () {
      if (window.confirm("Replace your draft with the starter code?")) editor.setText(starter);
    });
    document.querySelectorAll("a[href='#source']").forEach(function (link) {
      link.addEventListener("click", function (event) { event.preventDefault(); editor.focus(); });
    });
    window.rematEditor = editor; // for the browser tests and the curious
    return editor;
  }

  // Ctrl/Cmd+Enter runs the samples and Ctrl/Cmd+Shift+Enter submits, from the editor (which
  // takes the keys first) and from anywhere else on the page.
  function shortcutsFor(form) {
    if (!form) return {};
    var run = function () { form.requestSubmit(document.getElementById("run-button")); };
    var submit = function () { form.requestSubmit(document.getElementById("submit-button")); };
    document.addEventListener("keydown", function (event) {
      if (event.defaultPrevented || event.key !== "Enter" || !(event.ctrlKey || event.metaKey)) return;
      event.preventDefault();
      (event.shiftKey ? submit : run)();
    });
    return { "Mod-Enter": run, "Shift-Mod-Enter": submit };
  }

  // "Run samples" and "Submit" each have their own limit a minute; a refusal says why and counts
  // down until the button it was about can be pressed again.
  function countDown(notice, seconds, button, done) {
    var text = notice.querySelector(".countdown");
    var left = seconds;
    button.disabled = true;
    function tick() {
      if (left <= 0) {
        notice.querySelector(".wait").textContent = "You can send again now.";
        done();
        return;
      }
      text.textContent = String(left);
      left -= 1;
      setTimeout(tick, 1000);
    }
    tick();
  }

  function setUpSolveForm(editor) {
    var form = document.getElementById("solve-form");
    if (!form || !editor) return;
    var panel = document.getElementById("result");
    var status = document.getElementById("status");
    var body = document.getElementById("result-body");
    var link = document.getElementById("result-link");
    var cancel = document.getElementById("cancel-button");
    var notice = document.getElementById("refusal");
    var buttons = form.querySelectorAll("button[type=submit]");
    var waiting = {}; // button id -> true while its limit holds
    function release() {
      buttons.forEach(function (b) { b.disabled = !!waiting[b.id]; });
    }
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      // "Run samples" and "Inspect" name their URL (formaction); anything else submits
      var button = event.submitter && event.submitter.getAttribute("formaction") ? event.submitter : document.getElementById("submit-button");
      if (button.disabled) return;
      var url = button.getAttribute("formaction") || form.dataset.submitUrl;
      var data = new FormData(form);
      data.set("source", editor.getText());
      buttons.forEach(function (b) { b.disabled = true; });
      notice.hidden = true;
      panel.hidden = false;
      link.hidden = true; // until it names this submission
      body.innerHTML = "";
      status.textContent = "sending";
      status.className = "status queued";
      bringIntoView(status.closest(".status-line") || panel);
      var editsAtSend = edits;
      fetch(url, { method: "POST", body: data, headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then(function (response) {
          return response.json().then(function (payload) { return { status: response.status, payload: payload }; });
        })
        .then(function (answer) {
          if (answer.status === 429) return refused(answer.payload, button);
          if (answer.status !== 201) throw new Error(answer.payload.error || "refused");
          link.href = answer.payload.url;
          link.textContent = answer.payload.kind === "inspect" ? "open the inspection"
            : "open the verdict page of submission " + answer.payload.id;
          link.hidden = false;
          if (cancel) {
            cancel.hidden = false;
            cancel.disabled = false;
            cancel.onclick = function () { cancelGrading(answer.payload.cancel_url, cancel); };
          }
          followStatus(answer.payload, function (update) {
            showStatus(status, update);
            if (update.done) {
              showResult(body, update.result_html);
              release();
              if (cancel) cancel.hidden = true;
              focusVerdict(body, editsAtSend);
              refreshProblemState(editor);
            }
          });
        })
        .catch(function (error) {
          status.textContent = "not sent: " + error.message;
          status.className = "status error";
          release();
        });
    });

    function refused(payload, button) {
      panel.hidden = true;
      notice.querySelector(".reason").textContent = payload.error;
      var latest = notice.querySelector(".latest");
      latest.hidden = !payload.latest_url;
      if (payload.latest_url) {
        latest.querySelector("a").href = payload.latest_url;
        latest.querySelector("a").textContent = "submission " + payload.latest_id;
      }
      notice.querySelector(".wait").innerHTML = "";
      notice.querySelector(".wait").append("You can press \u201c" + button.textContent.trim() + "\u201d again in ");
      var seconds = document.createElement("span");
      seconds.className = "countdown";
      notice.querySelector(".wait").append(seconds, " s.");
      notice.hidden = false;
      waiting[button.id] = true;
      release();
      countDown(notice, payload.retry_after_s, button, function () {
        delete waiting[button.id];
        release();
      });
    }
  }

  // After a verdict the problem page catches up without a reload: the tick, the solution once
  // solved, the next problem on the track, the recent attempts (see practice/_after_verdict.html).
  function refreshProblemState(editor) {
    var workbench = document.getElementById("workbench");
    if (!workbench || !workbench.dataset.stateUrl) return;
    fetch(workbench.dataset.stateUrl, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (response) { return response.json(); })
      .then(function (state) {
        var title = document.getElementById("problem-title");
        if (state.solved && title && !title.querySelector(".solved")) {
          var tick = document.createElement("span");
          tick.className = "solved";
          tick.title = "you solved this problem";
          tick.textContent = "\u2713 solved";
          title.append(" ", tick);
        }
        var panel = document.getElementById("solution-panel");
        if (panel) {
          panel.outerHTML = state.solution_html;
          enhance(document.getElementById("solution-panel"));
        }
        var after = document.getElementById("after-verdict");
        if (after) {
          after.innerHTML = state.after_verdict_html;
          enhance(after);
          setUpAttempts(editor);
        }
      });
  }

  // "Load" puts an earlier attempt's code back into the editor (after asking: it replaces the draft).
  function setUpAttempts(editor) {
    if (!editor) return;
    var notice = document.getElementById("attempt-loaded");
    document.querySelectorAll("#after-verdict .load-attempt").forEach(function (button) {
      button.hidden = false;
      button.addEventListener("click", function () {
        var id = button.closest("tr").dataset.attempt;
        if (!window.confirm("Replace the code in the editor with attempt " + id + "?")) return;
        fetch(button.dataset.sourceUrl, { headers: { Accept: "application/json" }, credentials: "same-origin" })
          .then(function (response) { return response.json(); })
          .then(function (attempt) {
            editor.setText(attempt.source);
            if (notice) notice.textContent = "Attempt " + attempt.id + " is in the editor.";
            editor.focus();
          });
      });
    });
  }

  // The verdict page of a submission still being graded updates itself.
  function setUpLiveResult() {
    var section = document.getElementById("live-result");
    if (!section || !section.dataset.statusUrl) return;
    var status = document.getElementById("status");
    followStatus({ status_url: section.dataset.statusUrl, events_url: section.dataset.eventsUrl }, function (update) {
      showStatus(status, update);
      if (update.done) {
        showResult(document.getElementById("result-body"), update.result_html);
        var form = document.getElementById("cancel-form");
        if (form) form.hidden = true;
      }
    });
  }

  // Shared with authoring.js.
  window.Arena = { enhance: enhance, pollStatus: pollStatus, followStatus: followStatus };

  document.addEventListener("DOMContentLoaded", function () {
    setUpMenu();
    enhance(document);
    var form = document.getElementById("solve-form");
    var editor = setUpEditor(shortcutsFor(form));
    setUpSolveForm(editor);
    setUpAttempts(editor);
    setUpLiveResult();
  });
})();
