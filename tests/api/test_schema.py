"""The OpenAPI schema is valid, and every documented endpoint answers with data its schema describes."""

import json

import pytest
from openapi_schema_validator import OAS30Validator
from openapi_spec_validator import validate

pytestmark = pytest.mark.django_db


def _schema(client) -> dict:
    response = client.get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    return json.loads(response.content)


def _inline(node, components):
    """The schema with every `#/components/schemas/X` reference replaced by X (the API's schemas are not recursive)."""
    if isinstance(node, dict):
        if "$ref" in node:
            return _inline(components[node["$ref"].rsplit("/", 1)[1]], components)
        return {key: _inline(value, components) for key, value in node.items()}
    if isinstance(node, list):
        return [_inline(value, components) for value in node]
    return node


def test_schema_is_valid_openapi_3(client, api_data):
    schema = _schema(client)
    validate(schema)
    assert schema["openapi"].startswith("3.")
    assert "tokenAuth" in schema["components"]["securitySchemes"]


def test_every_table_has_an_endpoint(client, api_data):
    paths = set(_schema(client)["paths"])
    for path in [
        "/api/v1/releases/",
        "/api/v1/releases/{version}/",
        "/api/v1/tracked-enhancements/",
        "/api/v1/status-changes/",
        "/api/v1/keps/",
        "/api/v1/keps/{number}/",
        "/api/v1/feature-gates/",
        "/api/v1/design-groups/",
        "/api/v1/meetings/",
        "/api/v1/agenda-items/",
        "/api/v1/retrospectives/",
        "/api/v1/action-items/",
        "/api/v1/sigs/",
    ]:
        assert path in paths


def test_tracked_enhancement_filters_are_the_pages_filterset(client, api_data):
    operation = _schema(client)["paths"]["/api/v1/tracked-enhancements/"]["get"]
    names = {p["name"] for p in operation["parameters"]}
    assert {"release", "q", "sig", "type", "stage", "status", "cursor", "page_size"} <= names
    release = next(p for p in operation["parameters"] if p["name"] == "release")
    assert release["required"] is True


def test_kep_filters_include_minimum_planned_slips(client, api_data):
    operation = _schema(client)["paths"]["/api/v1/keps/"]["get"]
    assert "min_slips" in {p["name"] for p in operation["parameters"]}
    detail = _schema(client)["components"]["schemas"]["KepDetail"]["properties"]
    assert {"plan_history", "slips"} <= set(detail)


def test_every_documented_endpoint_answers_data_matching_its_schema(client, api_data):
    schema = _schema(client)
    components = schema["components"]["schemas"]
    values = {
        "version": "1.28",
        "number": str(api_data["keps"][0].number),
        "id": None,  # per path, below
    }
    ids = {
        "/api/v1/meetings/{id}/": api_data["node"].meetings.first().pk,
        "/api/v1/retrospectives/{id}/": api_data["retro"].pk,
        "/api/v1/action-items/{id}/": api_data["retro"].items.filter(category="action_item").first().pk,
    }
    slugs = {"/api/v1/design-groups/{slug}/": "graceful-shutdown", "/api/v1/sigs/{slug}/": "sig-node"}
    checked = 0
    for path, operations in schema["paths"].items():
        if "get" not in operations or path in ("/api/v1/schema/", "/api/v1/docs/"):
            continue
        url = path.replace("{version}", values["version"]).replace("{number}", values["number"])
        url = url.replace("{id}", str(ids.get(path, ""))).replace("{slug}", slugs.get(path, ""))
        url = url.replace("{sig}", "sig-node")  # a SIG's plan (planning)
        required = [
            p["name"] for p in operations["get"].get("parameters", []) if p.get("required") and p["in"] == "query"
        ]
        query = "&".join(f"{name}=1.28" for name in required)  # only `release` is required
        response = client.get(url + (f"?{query}" if query else ""), HTTP_ACCEPT="application/json")
        assert response.status_code == 200, (url, response.content[:300])
        body_schema = operations["get"]["responses"]["200"]["content"]["application/json"]["schema"]
        OAS30Validator(_inline(body_schema, components)).validate(response.json())
        if "results" in response.json():
            assert response.json()["results"], f"{url}: no rows to check against the schema"
        checked += 1
    assert checked >= 17


def test_docs_page_is_browsable(client, api_data):
    response = client.get("/api/v1/docs/", HTTP_ACCEPT="text/html")
    assert response.status_code == 200
    assert b"swagger" in response.content.lower()
    assert b"/api/v1/schema/" in response.content
    root = client.get("/api/v1/", HTTP_ACCEPT="text/html")
    assert root.status_code == 200 and b"tracked-enhancements" in root.content


def test_a_version_parameter_names_no_other_schema(client):
    """The API's one version is its path; `?version=` (a newline in it included) changes nothing of the answer."""
    plain = client.get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    for version in ("2", "x\ny", "v1"):
        response = client.get("/api/v1/schema/", {"version": version}, HTTP_ACCEPT="application/vnd.oai.openapi+json")
        assert response.status_code == 200
        assert response.content == plain.content
        assert response["Content-Disposition"] == plain["Content-Disposition"]
