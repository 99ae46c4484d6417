from django.contrib.auth import login
from django.contrib.auth.views import LoginView
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme

from webplatform.core.http import wants_json

from . import backends, selectors, services
from .forms import SignUpForm
from .services import create_user


def locked_message(seconds: int) -> str:
    minutes = max(1, round(seconds / 60))
    return (
        f"Too many wrong passwords: signing in is paused for this account (or from this address) for "
        f"{minutes} minute{'s' if minutes != 1 else ''}. Try again after that; if you forgot your password, "
        f"reset it by e-mail (the link under the form)."
    )


class ThrottledLoginView(LoginView):
    """Django's sign-in, with wrong passwords counted (accounts.services.sign_in_failed): at the
    limit the page answers 429 with Retry-After, and nobody signs in under the locked account or
    address until it ends, right password or not."""

    def post(self, request, *args, **kwargs):
        self.keys = selectors.throttle_keys(
            username=request.POST.get("username", ""), address=request.META.get("REMOTE_ADDR")
        )
        wait = selectors.locked_for(keys=self.keys)
        if wait:
            return self.locked(wait)
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form):
        wait = services.sign_in_failed(keys=self.keys) if self.request.method == "POST" else 0
        return self.locked(wait, form) if wait else super().form_invalid(form)

    def form_valid(self, form):
        services.sign_in_succeeded(keys=self.keys)
        return super().form_valid(form)

    def locked(self, seconds: int, form=None):
        message = locked_message(seconds)
        if wants_json(self.request):
            response = JsonResponse({"error": message, "retry_after_s": seconds}, status=429)
        else:
            form = form or self.get_form_class()(self.request)
            response = render(
                self.request, self.template_name, {**self.get_context_data(form=form), "locked": message}, status=429
            )
        response["Retry-After"] = str(seconds)
        return response


def signup(request):
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = create_user(
            username=form.cleaned_data["username"],
            password=form.cleaned_data["password1"],
            email=form.cleaned_data["email"],
        )
        login(request, user, backend=backends.PATH)
        target = request.POST.get("next", "")
        if not url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}):
            target = reverse("practice:problem_list")
        return redirect(target)
    return render(request, "accounts/signup.html", {"form": form, "next": request.GET.get("next", "")})
