// The assignment form's problem picker: typing in "Find a problem" hides the problems whose title,
// name or section does not contain every word typed (and a section left empty); a ticked problem
// always stays in view, so what the assignment sets is never hidden. Without this script the whole
// list shows, which is as usable, only longer.
(function () {
  var input = document.getElementById("problem-search");
  var list = document.getElementById("problem-list");
  var count = document.getElementById("problem-search-count");
  if (!input || !list) return;
  var items = Array.prototype.slice.call(list.querySelectorAll("li[data-search]"));
  var heads = Array.prototype.slice.call(list.querySelectorAll("li.choice-section"));
  function filter() {
    var words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
    var shown = 0, sections = {};
    items.forEach(function (item) {
      var text = item.getAttribute("data-search");
      var ticked = item.querySelector("input").checked;
      var match = ticked || words.every(function (w) { return text.indexOf(w) !== -1; });
      item.hidden = !match;
      if (match) { shown += 1; sections[item.getAttribute("data-section")] = true; }
    });
    heads.forEach(function (head) { head.hidden = !sections[head.getAttribute("data-section")]; });
    count.textContent = words.length ? shown + " of " + items.length + " shown" : "";
  }
  input.addEventListener("input", filter);
  // Enter in the search box would submit the assignment: it only filters.
  input.addEventListener("keydown", function (event) { if (event.key === "Enter") event.preventDefault(); });
}());
