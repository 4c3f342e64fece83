"""What other apps may use of realtime: publishing to a group, and the consumer a live stream extends.

Other apps import this module only (an import-linter contract says so).
"""

from mase_web.realtime.group_stream import GroupStreamConsumer
from mase_web.realtime.publisher import publisher

__all__ = ["GroupStreamConsumer", "publisher"]
