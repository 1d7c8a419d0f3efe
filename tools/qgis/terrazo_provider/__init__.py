"""QGIS Processing provider for terrazo (docs/qgis.md): QGIS loads the plugin through classFactory;
qgis_process calls classFactory(None) and then initProcessing() (hasProcessingProvider=yes in
metadata.txt)."""


def classFactory(iface):  # noqa: N802 (QGIS's name)
    from .plugin import TerrazoPlugin
    return TerrazoPlugin(iface)
