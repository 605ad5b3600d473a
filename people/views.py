"""A person's own pages: "My work" (/me/), their preferences, their calendar at a secret URL, and the one-click
unsubscribe that reminder emails link to. Views parse, call one service or selector, and render."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from releases.selectors_published import person_release_roles
from reminders.choices import ReminderKind
from reminders.models import Unsubscription
from reminders.unsubscribe import ONE_CLICK_FIELD, ONE_CLICK_VALUE, BadToken, unsubscribe_address

from . import selectors, services
from .forms import PreferencesForm
from .ical import my_calendar
from .models import Profile

sign_in_required = login_required(login_url="account_login")


def _profile(request) -> Profile | None:
    return Profile.objects.filter(user=request.user).select_related("person").first()


def _not_linked(request):
    return render(request, "people/not_linked.html", {"nav": "me"}, status=404)


@never_cache
@sign_in_required
@require_safe
def me(request):
    profile = _profile(request)
    if profile is None:
        return _not_linked(request)
    work = selectors.my_work(person=profile.person)
    calendar_url = request.build_absolute_uri(f"/me/calendar/{profile.calendar_secret}.ics")
    roles = person_release_roles(person=profile.person)
    context = {"work": work, "calendar_url": calendar_url, "nav": "me", "release_roles": roles}
    return render(request, "people/me.html", context)


@never_cache
@sign_in_required
@require_http_methods(["GET", "HEAD", "POST"])
def preferences(request):
    profile = _profile(request)
    if profile is None:
        return _not_linked(request)
    person = profile.person
    initial = {
        "email": person.email,
        "reminders_opt_out": person.reminders_opt_out,
        "email_reminders": profile.email_reminders,
        "slack_dm": profile.slack_dm,
        "reminder_offsets": profile.reminder_offsets,
        "time_zone": profile.time_zone,
    }
    form = PreferencesForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        changed = services.preferences_update(person=person, user=request.user, **form.cleaned_data)
        messages.success(request, f"Saved ({changed} change{'s' if changed != 1 else ''}).")
        return redirect("people:preferences")
    unsubscribed = Unsubscription.objects.filter(address__iexact=person.email) if person.email else []
    return render(
        request, "people/preferences.html", {"form": form, "unsubscribed": unsubscribed, "person": person, "nav": "me"}
    )


@sign_in_required
@require_POST
def resubscribe(request, kind):
    profile = _profile(request)
    if profile is None or kind not in ReminderKind.values:
        raise Http404
    services.reminders_resubscribe(person=profile.person, user=request.user, kind=kind)
    messages.success(request, f"You will get {ReminderKind(kind).label.lower()}s again.")
    return redirect("people:preferences")


@sign_in_required
@require_POST
def calendar_reset(request):
    profile = _profile(request)
    if profile is None:
        return _not_linked(request)
    services.calendar_secret_reset(person=profile.person, user=request.user)
    messages.success(request, "Your calendar has a new address; the old one no longer works.")
    return redirect("people:me")


@never_cache
@require_safe
def calendar(request, secret):
    """The person's deadlines; the secret in the URL is the only credential (calendar apps send no cookie)."""
    profile = get_object_or_404(Profile.objects.select_related("person"), calendar_secret=secret)
    response = HttpResponse(my_calendar(person=profile.person), content_type="text/calendar; charset=utf-8")
    response["Content-Disposition"] = 'inline; filename="my-deadlines.ics"'
    return response


@never_cache
@csrf_exempt  # RFC 8058: the mail provider POSTs with no cookie and no CSRF token; the signed token is the proof.
@require_http_methods(["GET", "HEAD", "POST"])
def unsubscribe(request, kind, token):
    """GET: a page asking to confirm (link scanners fetch GETs, so a GET changes nothing). POST with
    `List-Unsubscribe=One-Click` (the provider's one-click, or the page's button): unsubscribe that address
    from that kind of reminder."""
    try:
        address = unsubscribe_address(token=token, kind=kind)
    except BadToken as exc:
        return render(request, "people/unsubscribe_invalid.html", {"reason": str(exc)}, status=400)
    context = {"address": address, "kind": ReminderKind(kind), "token": token}
    if request.method == "POST":
        if request.POST.get(ONE_CLICK_FIELD) != ONE_CLICK_VALUE:
            return HttpResponseBadRequest(f"Expected {ONE_CLICK_FIELD}={ONE_CLICK_VALUE}.")
        context["created"] = services.reminders_unsubscribe(address=address, kind=kind)
        return render(request, "people/unsubscribed.html", context)
    context["already"] = Unsubscription.objects.filter(address__iexact=address, kind=kind).exists()
    return render(request, "people/unsubscribe_confirm.html", context)
