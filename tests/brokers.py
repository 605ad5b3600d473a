"""Pointing the Celery app at another broker in a test, and back."""

from kombu import pools as kombu_pools

from sigtracker.celery import app


def drop_broker_connections():
    """Close the app's pooled broker connections and forget the pools, so the next use connects afresh
    (to the broker URL in force then); a closed pool left behind would fail every later publish."""
    kombu_pools.reset()  # closes every pooled connection and forgets the pools (kombu keeps them per URL)
    app._pool = None
    app.amqp._producer_pool = None
