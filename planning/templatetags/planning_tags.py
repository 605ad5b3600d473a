"""Plans on lower apps' pages: the release page's line (`{% release_plan_line release.version %}`)."""

from django import template

from planning.selectors_outcome import release_plan_summary

register = template.Library()


@register.inclusion_tag("planning/release_plan_line.html")
def release_plan_line(version: str) -> dict:
    summary = release_plan_summary(version=version)
    return {"version": version, "decided": summary.decided, "committed": summary.committed, "sigs": summary.sigs}
