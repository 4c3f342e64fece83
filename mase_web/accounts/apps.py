from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "mase_web.accounts"
    label = "accounts"
    verbose_name = "Accounts and projects"
