"""python/hloscope/_targets.py (the GPU/TPU targets hloscope compiles for without the
hardware), loaded by path so that tools and tests need no built extension:

    import hloscope_targets as targets      # with tools/ on sys.path
    device = targets.device_for("tpu-v5e")
"""
import importlib.util
import os
import sys

_PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                     "python", "hloscope", "_targets.py")
_spec = importlib.util.spec_from_file_location("hloscope_targets_impl", _PATH)
_mod = importlib.util.module_from_spec(_spec)
sys.modules["hloscope_targets_impl"] = _mod  # dataclasses need the module registered
_spec.loader.exec_module(_mod)

Target, TARGETS, TargetUnavailable = _mod.Target, _mod.TARGETS, _mod.TargetUnavailable
resolve, device_for, place, pip_command = _mod.resolve, _mod.device_for, _mod.place, _mod.pip_command
devices_for = _mod.devices_for
