// LTI Dynamic Registration's last step: tell the platform's window that registration is done,
// so that it closes the frame or tab it opened (a file, as the site's CSP refuses inline script).
(function () {
  "use strict";
  (window.opener || window.parent).postMessage({ subject: "org.imsglobal.lti.close" }, "*");
})();
