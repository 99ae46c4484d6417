// The exploration's page while the worker runs: read it again every second and a half until it
// says it is finished (the page also has a plain link for the same, without JavaScript).
(function () {
  var found = document.getElementById("exploration");
  if (found && found.dataset.finished === "false") {
    window.setTimeout(function () { window.location.reload(); }, 1500);
  }
})();
