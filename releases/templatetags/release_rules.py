"""Template filters that state the release-cycle rules in pages, from `releases.rules`, so no template names a zone
or a status of its own."""

from django import template
from django.templatetags.tz import do_timezone

from releases import rules

register = template.Library()


@register.filter
def pacific(value):
    """An instant in US Pacific time (`rules.PACIFIC`, the zone the schedules quote as "PT"), kept there by the
    `date` filter that follows instead of being shown in the site's zone."""
    return do_timezone(value, rules.PACIFIC)
