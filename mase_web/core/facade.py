"""What other apps may use of core: the page shell every section's page is rendered in, and server paths
as answers show them.

Other apps import this module only (an import-linter contract says so).
"""

from mase_web.core.navigation import not_found, section_page
from mase_web.core.shown import shown_text

__all__ = ["not_found", "section_page", "shown_text"]
