from django.core.exceptions import FieldError, ValidationError
from rest_framework.exceptions import NotFound, ParseError
from rest_framework.pagination import CursorPagination


class StableCursorPagination(CursorPagination):
    """Cursor pagination in each view's `ordering` (first field nearly unique, the rest break ties), so a page
    never repeats or skips rows while data changes and no COUNT(*) runs. `?page_size=` up to 500.

    A cursor is visitor input (base64 of `o=`, `r=`, `p=`): one that does not decode, or whose position is not a
    value of the ordering's first field (`p=abc` for a number, `p=2022-13-45` for an instant, a NUL, which
    PostgreSQL refuses in text), is answered 400 with a JSON error before any query runs, not a database error."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500
    invalid_cursor_message = "Invalid cursor: use the next and previous links of an earlier answer."

    def get_ordering(self, request, queryset, view):
        return tuple(view.ordering)

    def paginate_queryset(self, queryset, request, view=None):
        self._queryset = queryset
        return super().paginate_queryset(queryset, request, view)

    def decode_cursor(self, request):
        try:
            cursor = super().decode_cursor(request)
        except NotFound as exc:
            raise ParseError(self.invalid_cursor_message) from exc
        if cursor is not None and cursor.position is not None:
            self._check_position(cursor.position)
        return cursor

    def _check_position(self, position: str) -> None:
        """The position as the database would compare it with the ordering's first field; ParseError if it cannot."""
        if "\x00" in position:
            raise ParseError(self.invalid_cursor_message)
        name = self.ordering[0].lstrip("-")
        try:
            field = self._queryset.query.resolve_ref(name).output_field
            field.get_prep_value(field.to_python(position))
        except (ValidationError, ValueError, TypeError, OverflowError, FieldError) as exc:
            raise ParseError(self.invalid_cursor_message) from exc
