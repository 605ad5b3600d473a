"""What the KEP import tells the apps above it, which keps cannot import.

`keps_created` is sent inside the import's transaction with `kep_numbers` (the KEPs it created), so rows of
other apps that name those numbers from before they existed (meeting agenda items) are linked in the same
transaction: a receiver that fails rolls the import back.
"""

from django.dispatch import Signal

keps_created = Signal()
