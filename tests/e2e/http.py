"""A small HTTP client with cookies and Django's CSRF token, over real sockets."""

import http.cookiejar
import json
import urllib.error
import urllib.parse
import urllib.request


class Session:
    def __init__(self, base_url: str):
        self.base = base_url
        self.cookies = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies), NoRedirect())

    def cookie(self, name: str) -> str | None:
        return next((c.value for c in self.cookies if c.name == name), None)

    def request(self, path: str, data: dict | None = None, accept: str = "text/html"):
        body = None
        headers = {"Accept": accept}
        if data is not None:
            body = urllib.parse.urlencode({**data, "csrfmiddlewaretoken": self.cookie("csrftoken") or ""}).encode()
            headers["Referer"] = self.base + path
        request = urllib.request.Request(self.base + path, data=body, headers=headers)
        try:
            with self.opener.open(request, timeout=30) as response:
                return response.status, response.headers, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.headers, error.read().decode()

    def get(self, path: str) -> tuple[int, str]:
        status, _, body = self.request(path)
        return status, body

    def get_json(self, path: str) -> dict:
        status, _, body = self.request(path, accept="application/json")
        assert status == 200, (path, status, body[:500])
        return json.loads(body)

    def post_json(self, path: str, data: dict) -> tuple[int, dict]:
        status, _, body = self.request(path, data, accept="application/json")
        return status, json.loads(body)

    def login(self, username: str, password: str) -> None:
        self.get("/accounts/login/")  # sets the CSRF cookie
        status, headers, body = self.request("/accounts/login/", {"username": username, "password": password})
        assert status == 302, f"login as {username} failed: {status} {body[:300]}"


class NoRedirect(urllib.request.HTTPRedirectHandler):
    """Redirects are answers to look at (a login redirects), not to follow."""

    def redirect_request(self, *args, **kwargs):
        return None
