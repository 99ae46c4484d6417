from django.contrib import admin
from django.contrib.auth import login
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.views import LoginView, PasswordChangeView, PasswordResetConfirmView, PasswordResetView
from django.db import transaction
from django.http import HttpResponseRedirect, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods

from webplatform.core.http import wants_json

from . import backends, selectors, services
from .forms import SignUpForm, VerifiedPasswordResetForm


def locked_message(seconds: int) -> str:
    minutes = max(1, round(seconds / 60))
    return (
        f"Too many wrong passwords: signing in is paused for this account (or from this address) for "
        f"{minutes} minute{'s' if minutes != 1 else ''}. Try again after that; if you forgot your password, "
        f"reset it by e-mail (the link under the form)."
    )


def locked_response(request, seconds: int, render_page):
    """429 with Retry-After: JSON to a JSON client, else the page ``render_page(message)`` makes."""
    message = locked_message(seconds)
    if wants_json(request):
        response = JsonResponse({"error": message, "retry_after_s": seconds}, status=429)
    else:
        response = render_page(message)
    response["Retry-After"] = str(seconds)
    return response


def _locked_now(request) -> int:
    """Seconds of the lock the posted username (or the address) is under, 0 if none."""
    keys = backends.keys_of(request, request.POST.get("username", ""))
    return selectors.locked_for(keys=keys)


class ThrottledLoginView(LoginView):
    """Django's sign-in; wrong passwords are counted under the account and the address wherever
    they are typed (``accounts.backends``, ``accounts.signals``): at the limit the page answers
    429 with Retry-After, and nobody signs in under the locked account or address until it ends,
    right password or not."""

    def post(self, request, *args, **kwargs):
        wait = _locked_now(request)
        if wait:
            return self.locked(wait)
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form):
        wait = getattr(self.request, backends.LOCKED_ATTRIBUTE, 0)
        return self.locked(wait, form) if wait else super().form_invalid(form)

    def locked(self, seconds: int, form=None):
        def page(message):
            shown = form or self.get_form_class()(self.request)
            context = {**self.get_context_data(form=shown), "locked": message}
            return render(self.request, self.template_name, context, status=429)

        return locked_response(self.request, seconds, page)


def admin_login(request, *args, **kwargs):
    """The admin's sign-in (``/admin/login/``), under the same throttle as the site's: its
    failures count for the same account and address, and a lock made at either place answers
    429 at both."""

    def page(message):
        form = AuthenticationForm(request)
        context = {"form": form, "locked": message, "next": request.GET.get("next", "")}
        return render(request, "accounts/login.html", context, status=429)

    if request.method == "POST":
        wait = _locked_now(request)
        if wait:
            return locked_response(request, wait, page)
    response = admin.site.login(request, *args, **kwargs)
    wait = getattr(request, backends.LOCKED_ATTRIBUTE, 0) if request.method == "POST" else 0
    return locked_response(request, wait, page) if wait else response


@require_http_methods(["GET", "POST"])
def verify_email(request, token):
    """The link mailed at sign-up: a page with one button (a mail scanner that opens links
    verifies nothing), which verifies the address; 400 for a link that does not work."""
    if request.method == "POST":
        user = services.verify_email(token=token)
        status = 200 if user is not None else 400
        return render(request, "accounts/verify_email.html", {"verified": user, "failed": user is None}, status=status)
    return render(request, "accounts/verify_email.html", {"verified": None, "failed": False})


class ThrottledPasswordResetView(PasswordResetView):
    """Django's password reset, with its mail counted per e-mail address and per client address
    (``services.reset_mail_allowed``): past the limit the page answers as always, "sent", and
    nothing is sent, so that it neither floods an inbox nor tells which addresses have accounts."""

    form_class = VerifiedPasswordResetForm

    def form_valid(self, form):
        keys = selectors.reset_mail_keys(email=form.cleaned_data["email"], address=backends.address_of(self.request))
        if not services.reset_mail_allowed(keys=keys):
            return HttpResponseRedirect(self.get_success_url())
        return super().form_valid(form)


class ResetPasswordConfirmView(PasswordResetConfirmView):
    """Django's page that sets a new password through a reset link; the account's API tokens are
    revoked with it, in one transaction (``services.password_was_reset``). Sessions signed in with
    the old password end by themselves: Django checks each one's password hash."""

    def form_valid(self, form):
        with transaction.atomic():
            response = super().form_valid(form)
            services.password_was_reset(user=form.user)
        return response


class ChangePasswordView(PasswordChangeView):
    """Django's password change: this session stays signed in (``update_session_auth_hash``),
    every other session of the account ends (its password hash no longer matches)."""


def signup(request):
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            user = services.sign_up(
                username=form.cleaned_data["username"],
                password=form.cleaned_data["password1"],
                email=form.cleaned_data["email"],
                address=backends.address_of(request),
            )
        except services.EmailTaken as taken:
            form.add_error("email", str(taken))
            return render(request, "accounts/signup.html", {"form": form, "next": request.POST.get("next", "")})
        except services.SignUpsLimited as limited:
            if wants_json(request):
                response = JsonResponse({"error": str(limited), "retry_after_s": limited.retry_after_s}, status=429)
            else:
                context = {"form": form, "next": request.POST.get("next", ""), "limited": str(limited)}
                response = render(request, "accounts/signup.html", context, status=429)
            response["Retry-After"] = str(limited.retry_after_s)
            return response
        if user.email:
            token = services.email_token(user=user)
            link = request.build_absolute_uri(reverse("accounts:verify_email", args=[token]))
            services.send_email_verification(user=user, link=link)
        login(request, user, backend=backends.PATH)
        target = request.POST.get("next", "")
        if not url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}):
            target = reverse("practice:problem_list")
        return redirect(target)
    return render(request, "accounts/signup.html", {"form": form, "next": request.GET.get("next", "")})
