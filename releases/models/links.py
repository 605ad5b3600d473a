"""Links typed into multi-line fields (docs PRs, an exception request's PRs): which lines pages may make links of."""

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator


def is_http_url(value: str) -> bool:
    try:
        URLValidator(schemes=["http", "https"])(value)
    except ValidationError:
        return False
    return True
