"""Calling the JSON API as a token holder would, through Django's test client."""

import json

from webplatform.api.services import create_token


class Api:
    def __init__(self, client, token: str | None):
        self.client = client
        self.headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}

    def get(self, path: str, **params):
        return self.client.get(f"/api/v1{path}", params, **self.headers)

    def post(self, path: str, body: dict):
        return self.client.post(f"/api/v1{path}", json.dumps(body), content_type="application/json", **self.headers)

    def put(self, path: str, body):
        return self.client.put(f"/api/v1{path}", json.dumps(body), content_type="application/json", **self.headers)


def api_for(client, user) -> Api:
    """A fresh Django test client speaking with a new token of ``user`` (no session cookie)."""
    return Api(client, create_token(user=user, name="tests").token)
