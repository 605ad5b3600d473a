"""Reading /metrics the way Prometheus does: the text format parsed by prometheus-client's own parser."""

from prometheus_client.parser import text_string_to_metric_families


class Scrape:
    def __init__(self, text: str):
        self.text = text
        self.samples = [sample for family in text_string_to_metric_families(text) for sample in family.samples]

    def value(self, name: str, **labels: str) -> float:
        """The sum of the samples called `name` whose labels include `labels` (0 when there are none)."""
        return sum(s.value for s in self.samples if s.name == name and labels.items() <= s.labels.items())

    def has(self, name: str, **labels: str) -> bool:
        return any(s.name == name and labels.items() <= s.labels.items() for s in self.samples)


def scrape(client, **extra) -> Scrape:
    response = client.get("/metrics", **extra)
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain; version=")
    return Scrape(response.content.decode())


class Delta:
    """What changed in /metrics between two scrapes (the registry lives as long as the test process)."""

    def __init__(self, client):
        self.client = client
        self.before = scrape(client)

    def __call__(self, name, **labels):
        return scrape(self.client).value(name, **labels) - self.before.value(name, **labels)
