"""The account page's API tokens: list, create (the token is shown once, on the answer to the
POST that made it, and never stored), revoke. Thin views over ``services`` and ``selectors``."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from . import selectors, services
from .forms import TokenForm


@never_cache  # the answer that shows a new token must not stay in any cache
@login_required
@require_http_methods(["GET", "POST"])
def tokens(request):
    form = TokenForm(request.POST or None)
    created = None
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                created = services.create_token(user=request.user, name=form.cleaned_data["name"])
                form = TokenForm()
            except ValidationError as exc:
                form.add_error("name", exc)
        if created is None:
            status = 400
    return render(
        request,
        "api/tokens.html",
        {
            "form": form,
            "created": created,
            "tokens": selectors.tokens_of(user=request.user),
            "site_url": request.build_absolute_uri("/"),
        },
        status=status,
    )


@login_required
@require_POST
def revoke(request, token_id):
    if services.revoke_token(user=request.user, token_id=token_id):
        messages.success(request, "The token is revoked: anything still using it is refused from now on.")
    else:
        messages.error(request, "There is no such token among yours (it may be revoked already).")
    return redirect("tokens:list")
