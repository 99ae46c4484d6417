// Marks the page as scripted before it is painted, so that the styles for "with JavaScript" apply
// from the start. A file of its own, loaded in <head> without defer, because the
// Content-Security-Policy refuses inline script.
document.documentElement.classList.add("js");
