"""What the release imports tell the apps above them, which releases cannot import.

`releases_created` is sent inside the import's transaction with `versions` (the releases it created), so rows
of other apps that name those releases from before they existed (meeting agenda items) are linked in the same
transaction.
"""

from django.dispatch import Signal

releases_created = Signal()
