"""What other apps may use of core: the page shell every section's page is rendered in.

Other apps import this module only (an import-linter contract says so).
"""

from mase_web.core.navigation import not_found, section_page

__all__ = ["not_found", "section_page"]
