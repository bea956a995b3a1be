"""Static demo pages served by the app: the embeddable chat widget and the agent-assist panel."""

from pathlib import Path

STATIC_DIR = Path(__file__).resolve().parent / "static"
