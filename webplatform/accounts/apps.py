from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "webplatform.accounts"
    label = "accounts"
