"""The plugin object QGIS keeps: registers the terrazo Processing provider (docs/qgis.md)."""

from qgis.core import QgsApplication

from .provider import TerrazoProvider


class TerrazoPlugin:
    def __init__(self, iface):
        self.iface = iface  # None under qgis_process
        self.provider = None

    def initProcessing(self):  # noqa: N802 (QGIS's name): called by QGIS and by qgis_process
        if self.provider is None:
            self.provider = TerrazoProvider()
            QgsApplication.processingRegistry().addProvider(self.provider)

    def initGui(self):  # noqa: N802
        self.initProcessing()

    def unload(self):
        if self.provider is not None:
            QgsApplication.processingRegistry().removeProvider(self.provider)
            self.provider = None
