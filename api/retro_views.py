"""Writes on retro boards through the API: items (any signed-in person), votes, and action items (a SIG's leads
and curators). Each refusal names what is missing; the rules are the board's services' (retros.services)."""

from __future__ import annotations

import django_filters
from django.db.models import Count
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, mixins, permissions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.parsers import JSONParser
from rest_framework.response import Response

from community.models import Sig
from releases.models import Release
from retros.choices import BOARD_CATEGORIES, BOARD_CATEGORY_CHOICES
from retros.models import MAX_ITEM_CHARS, RetroItem
from retros.services.actions import action_item_create
from retros.services.board import BoardRefused, RateLimited, retro_item_add, retro_item_vote

from .caching import ConditionalGetMixin
from .permissions import PublicReadOnly


class ReadsPublicWritesSignedIn(permissions.BasePermission):
    """Reads as the rest of the API (private mode asks for a token); writes need a token or a session."""

    def has_permission(self, request, view):
        if request.method in permissions.SAFE_METHODS:
            return PublicReadOnly().has_permission(request, view)
        if not (request.user and request.user.is_authenticated):
            raise exceptions.NotAuthenticated("Sign in or send 'Authorization: Token <key>' to write.")
        return True


def _refused(exc: BoardRefused):
    if isinstance(exc, RateLimited):
        raise exceptions.Throttled(wait=exc.retry_after, detail=f"Too many new items: {exc.message}.")
    if exc.status == 400:
        raise exceptions.ValidationError({"detail": exc.message})
    if exc.status == 404:
        raise exceptions.NotFound(exc.message)
    raise exceptions.PermissionDenied(exc.message)


def _release(version: str) -> Release:
    release = Release.objects.filter(version=(version or "").removeprefix("v")).first()
    if release is None:
        raise exceptions.ValidationError({"release": f"no release {version!r}"})
    return release


def _sig(slug: str) -> Sig:
    sig = Sig.objects.filter(slug=slug or "").first()
    if sig is None:
        raise exceptions.ValidationError({"sig": f"no SIG {slug!r}"})
    return sig


class BoardItemSerializer(serializers.ModelSerializer):
    author = serializers.CharField(source="author.username", read_only=True, allow_null=True, default=None)
    votes = serializers.IntegerField(source="vote_count", read_only=True)

    class Meta:
        model = RetroItem
        fields = ["id", "category", "text", "author", "votes"]


class VoteSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    votes = serializers.IntegerField()
    counted = serializers.BooleanField(help_text="False: this person had voted already; nothing changed.")


class BoardItemInput(serializers.Serializer):
    release = serializers.CharField(max_length=10)
    sig = serializers.CharField(max_length=100)
    category = serializers.ChoiceField(choices=BOARD_CATEGORY_CHOICES)
    text = serializers.CharField(max_length=MAX_ITEM_CHARS, trim_whitespace=True)


class RetroBoardItemFilterSet(django_filters.FilterSet):
    release = django_filters.CharFilter(method="filter_release", label="Release (e.g. 1.36)")
    sig = django_filters.CharFilter(field_name="retrospective__sig__slug", label="SIG slug")
    category = django_filters.ChoiceFilter(choices=BOARD_CATEGORY_CHOICES)

    class Meta:
        model = RetroItem
        fields = ["release", "sig", "category"]

    def filter_release(self, queryset, name, value):
        return queryset.filter(retrospective__release__version=value.removeprefix("v"))


class RetroItemViewSet(ConditionalGetMixin, mixins.ListModelMixin, viewsets.GenericViewSet):
    """Board items (went well, to improve, to discuss) with their votes; hidden items are left out.
    `POST {release, sig, category, text}`: any signed-in person adds one while the board is open (201 with `id`;
    400 empty text or unknown category; 403 when the board is closed; 429 past the per-person limit).
    `POST <id>/votes/`: +1 (one vote a person: a second answers 200 and changes nothing)."""

    serializer_class = BoardItemSerializer
    filterset_class = RetroBoardItemFilterSet
    permission_classes = [ReadsPublicWritesSignedIn]
    ordering = ("id",)

    def get_parsers(self):
        if getattr(self, "request", None) is not None and self.request.method == "POST":
            return [JSONParser()]
        return super().get_parsers()

    def get_queryset(self):
        return (
            RetroItem.objects.filter(hidden_at__isnull=True, category__in=BOARD_CATEGORIES)
            .select_related("author")
            .annotate(vote_count=Count("votes"))
        )

    @extend_schema(request=BoardItemInput, responses={201: BoardItemSerializer})
    def create(self, request):
        data = BoardItemInput(data=request.data)
        data.is_valid(raise_exception=True)
        release, sig = _release(data.validated_data["release"]), _sig(data.validated_data["sig"])
        try:
            item = retro_item_add(
                user=request.user,
                release=release,
                sig=sig,
                category=data.validated_data["category"],
                text=data.validated_data["text"],
            )
        except BoardRefused as exc:
            _refused(exc)
        item.vote_count = 0
        return Response(BoardItemSerializer(item).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={201: VoteSerializer, 200: VoteSerializer})
    @action(detail=True, methods=["post"], url_path="votes")
    def votes(self, request, pk=None):
        visible = RetroItem.objects.filter(hidden_at__isnull=True).select_related("retrospective__release")
        item = get_object_or_404(visible, pk=pk)
        try:
            counted = retro_item_vote(user=request.user, item=item)
        except BoardRefused as exc:
            _refused(exc)
        data = {"id": item.pk, "votes": item.votes.count(), "counted": counted}
        return Response(data, status=status.HTTP_201_CREATED if counted else status.HTTP_200_OK)


class ActionItemInput(serializers.Serializer):
    release = serializers.CharField(max_length=10)
    sig = serializers.CharField(max_length=100)
    text = serializers.CharField(max_length=MAX_ITEM_CHARS, required=False, allow_blank=True, default="")
    owner = serializers.CharField(max_length=40, required=False, allow_blank=True, default="")
    due_release = serializers.CharField(max_length=10, required=False, allow_blank=True, default="")
    issue_url = serializers.CharField(max_length=300, required=False, allow_blank=True, default="")
    from_item = serializers.IntegerField(required=False, allow_null=True, default=None)


def action_item_create_from_api(request):
    """POST /api/v1/action-items/: a lead's or curator's action item; 403 naming the missing role otherwise."""
    if not (request.user and request.user.is_authenticated):
        raise exceptions.NotAuthenticated("Sign in or send 'Authorization: Token <key>' to write.")
    data = ActionItemInput(data=request.data)
    data.is_valid(raise_exception=True)
    values = data.validated_data
    release, sig = _release(values["release"]), _sig(values["sig"])
    due = _release(values["due_release"]) if values["due_release"] else None
    from_item = None
    if values["from_item"] is not None:
        from_item = RetroItem.objects.filter(pk=values["from_item"], category__in=BOARD_CATEGORIES).first()
        if from_item is None:
            raise exceptions.ValidationError({"from_item": "no such board item"})
    try:
        item = action_item_create(
            user=request.user,
            release=release,
            sig=sig,
            text=values["text"],
            owner=values["owner"],
            due_release=due,
            issue_url=values["issue_url"],
            from_item=from_item,
        )
    except BoardRefused as exc:
        _refused(exc)
    return item


__all__ = ["RetroItemViewSet", "action_item_create_from_api"]
