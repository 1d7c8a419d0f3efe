"""The terrazo Processing provider (id `terrazo`): its algorithms and its settings (docs/qgis.md)."""

from qgis.core import QgsProcessingProvider

from . import backend
from .algorithms import ALGORITHMS


class TerrazoProvider(QgsProcessingProvider):
    def id(self):
        return "terrazo"

    def name(self):
        return "terrazo"

    def longName(self):  # noqa: N802 (QGIS's names)
        return "terrazo: exact out-of-core terrain graphs"

    def load(self):
        try:  # the Processing plugin's settings dialog (Options > Processing > Providers > terrazo)
            from processing.core.ProcessingConfig import ProcessingConfig, Setting
            group = self.name()
            ProcessingConfig.settingIcons[group] = self.icon()
            ProcessingConfig.addSetting(Setting(group, backend.SETTING_BACKEND, "terrazo backend (auto, python or cli)",
                                                "auto", valuetype=Setting.SELECTION, options=backend.BACKENDS))
            ProcessingConfig.addSetting(Setting(group, backend.SETTING_PYTHONPATH,
                                                "terrazo Python package folder (e.g. build/python of a terrazo build)",
                                                "", valuetype=Setting.FOLDER))
            ProcessingConfig.addSetting(Setting(group, backend.SETTING_EXECUTABLE,
                                                "terrazo program (empty: terrazo on PATH)", "", valuetype=Setting.FILE))
            ProcessingConfig.readSettings()
        except Exception:  # no Processing plugin (a bare PyQGIS script): environment variables only
            pass
        self.refreshAlgorithms()
        return True

    def unload(self):
        try:
            from processing.core.ProcessingConfig import ProcessingConfig
            for name in (backend.SETTING_BACKEND, backend.SETTING_PYTHONPATH, backend.SETTING_EXECUTABLE):
                ProcessingConfig.removeSetting(name)
        except Exception:
            pass

    def loadAlgorithms(self):  # noqa: N802
        for algorithm in ALGORITHMS:
            self.addAlgorithm(algorithm())

    def supportedOutputRasterLayerExtensions(self):  # noqa: N802: terrazo writes GeoTIFF
        return ["tif"]

    def supportedOutputVectorLayerExtensions(self):  # noqa: N802: terrazo path writes GeoJSON
        return ["geojson"]
