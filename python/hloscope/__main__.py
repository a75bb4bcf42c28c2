"""`python -m hloscope ARGS` is `hloscope ARGS`: the CLI this package installs.

The installed executable runs when it is there (so that `python -m hloscope run --
python train.py` streams its warnings live); otherwise the same C++ runs in this
process, its output printed when the command ends.
"""
from __future__ import annotations

import os
import shutil
import sys
import sysconfig


def _installed_cli() -> "str | None":
    scripts = sysconfig.get_path("scripts")
    for candidate in (os.path.join(scripts, "hloscope") if scripts else None, shutil.which("hloscope")):
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def main() -> int:
    cli = _installed_cli()
    if cli:
        os.execv(cli, [cli, *sys.argv[1:]])
    from . import _hloscope
    code, out, err = _hloscope.run_cli(sys.argv[1:])
    sys.stdout.write(out)
    sys.stderr.write(err)
    return code


if __name__ == "__main__":
    sys.exit(main())
