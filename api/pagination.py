from rest_framework.pagination import CursorPagination


class StableCursorPagination(CursorPagination):
    """Cursor pagination in each view's `ordering` (first field nearly unique, the rest break ties), so a page
    never repeats or skips rows while data changes and no COUNT(*) runs. `?page_size=` up to 500."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500

    def get_ordering(self, request, queryset, view):
        return tuple(view.ordering)
