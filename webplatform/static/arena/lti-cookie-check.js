// The LTI login's check that this browser keeps the tool's cookies (pylti1p3's, as a file: the
// site's Content-Security-Policy refuses inline script). With cookies, the page reloads itself with
// the login's parameters and lti1p3_new_window=1 and the login goes on; without, it offers a tab.
(function () {
  "use strict";
  var params = JSON.parse(document.getElementById("lti-login-params").textContent);
  var query = new URLSearchParams(window.location.search);
  Object.keys(params).forEach(function (key) {
    if (!query.has(key)) query.set(key, params[key]);
  });
  var target = window.location.pathname + "?" + query.toString();
  var secure = window.location.protocol === "https:";
  document.cookie = "lti1p3_test_cookie=1; path=/" + (secure ? "; SameSite=None; Secure" : "");
  if (document.cookie.indexOf("lti1p3_test_cookie") !== -1) {
    document.cookie = "lti1p3_test_cookie=1; path=/; expires=Thu, 01 Jan 1970 00:00:01 GMT";
    window.location.replace(target);
  } else {
    document.getElementById("lti1p3-loading-msg").hidden = true;
    var warning = document.getElementById("lti1p3-warning-msg");
    warning.hidden = false;
    document.getElementById("lti1p3-new-tab-link").href = target;
  }
})();
