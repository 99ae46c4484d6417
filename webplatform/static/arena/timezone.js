// Tells the site the reader's time zone (the `tz` cookie, read by webplatform/core/timezones.py),
// and until the next page, which the server then renders in that zone, shows each
// <time data-local> in it.
(function () {
  var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (!zone) return;
  var known = document.cookie.split("; ").filter(function (c) { return c.indexOf("tz=") === 0; })[0];
  if (known === "tz=" + zone) return;
  document.cookie = "tz=" + zone + "; path=/; max-age=31536000; samesite=lax";  // zone names need no quoting
  // The server's own format ("Fri 4 Dec 2026, 01:41 UTC": course_tags.SHOWN), in English as the
  // site is, so that a page never shows one time one way and the next another.
  var format = new Intl.DateTimeFormat("en-US", {
    weekday: "short", day: "numeric", month: "short", year: "numeric",
    hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZoneName: "short", timeZone: zone,
  });
  function shown(moment) {
    var part = {};
    format.formatToParts(moment).forEach(function (p) { part[p.type] = p.value; });
    return part.weekday + " " + part.day + " " + part.month + " " + part.year + ", " + part.hour + ":" +
      part.minute + " " + part.timeZoneName;
  }
  document.querySelectorAll("time[data-local]").forEach(function (node) {
    node.textContent = shown(new Date(node.getAttribute("datetime")));
  });
  document.querySelectorAll("[data-zone-name]").forEach(function (node) { node.textContent = zone; });
}());
