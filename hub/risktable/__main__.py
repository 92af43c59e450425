"""Allow ``python -m risktable``."""

from risktable.cli import main

raise SystemExit(main())
