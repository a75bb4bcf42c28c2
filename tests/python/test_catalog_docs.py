"""What is generated from the catalogs is current: docs/cli.md, the rule and gate
tables of docs/analysis.md, the JSON Schema's cause, rule and gate enums
(tools/gen_catalog_docs.py writes them; run it after changing a catalog)."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_generated_docs_are_current(hloscope_bin):
    p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "gen_catalog_docs.py"), "--check",
                        "--hloscope", hloscope_bin], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
