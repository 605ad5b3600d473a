"""OpenAPI description of the token header (drf-spectacular finds extensions once this module is imported)."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class ApiTokenScheme(OpenApiAuthenticationExtension):
    target_class = "api.authentication.ApiTokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "`Token <key>`: lifts the anonymous rate limit; required in private mode.",
        }


def blank_strings_any_of(result, generator, request, public):
    """drf-spectacular describes a blank-allowed URL or e-mail field as `oneOf: [{format: uri}, {maxLength: 0}]`;
    a validator that does not check formats finds "" valid under both, which `oneOf` forbids. `anyOf` says the same
    without that trap."""

    def walk(node):
        if isinstance(node, dict):
            alternatives = node.get("oneOf")
            if (
                isinstance(alternatives, list)
                and any(alt.get("maxLength") == 0 for alt in alternatives if isinstance(alt, dict))
                and all(isinstance(alt, dict) and alt.get("type") == "string" for alt in alternatives)
            ):
                node["anyOf"] = node.pop("oneOf")
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(result)
    return result
