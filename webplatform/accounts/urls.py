from django.contrib.auth import views as auth_views
from django.urls import path, reverse_lazy

from . import views

app_name = "accounts"
# Password reset is Django's own (a signed, single-use link by e-mail, through EMAIL_BACKEND); only
# the templates and, the app being namespaced, where each step goes next are the site's; its mail
# is counted per address (views.ThrottledPasswordResetView), and setting the new password revokes
# the account's API tokens (views.ResetPasswordConfirmView). Changing a password (signed in) is
# Django's too: the other sessions of the account end, this one stays.
urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("email/verify/<str:token>/", views.verify_email, name="verify_email"),
    path("login/", views.ThrottledLoginView.as_view(template_name="accounts/login.html"), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(
        "password/reset/",
        views.ThrottledPasswordResetView.as_view(
            template_name="accounts/password_reset.html",
            email_template_name="accounts/password_reset_email.txt",
            subject_template_name="accounts/password_reset_subject.txt",
            success_url=reverse_lazy("accounts:password_reset_done"),
        ),
        name="password_reset",
    ),
    path(
        "password/reset/sent/",
        auth_views.PasswordResetDoneView.as_view(template_name="accounts/password_reset_done.html"),
        name="password_reset_done",
    ),
    path(
        "password/reset/<uidb64>/<token>/",
        views.ResetPasswordConfirmView.as_view(
            template_name="accounts/password_reset_confirm.html",
            success_url=reverse_lazy("accounts:password_reset_complete"),
        ),
        name="password_reset_confirm",
    ),
    path(
        "password/change/",
        views.ChangePasswordView.as_view(
            template_name="accounts/password_change.html", success_url=reverse_lazy("accounts:password_change_done")
        ),
        name="password_change",
    ),
    path(
        "password/change/done/",
        auth_views.PasswordChangeDoneView.as_view(template_name="accounts/password_change_done.html"),
        name="password_change_done",
    ),
    path(
        "password/reset/done/",
        auth_views.PasswordResetCompleteView.as_view(template_name="accounts/password_reset_complete.html"),
        name="password_reset_complete",
    ),
]
