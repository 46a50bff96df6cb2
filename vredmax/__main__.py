import sys

from vredmax.cli import main

sys.exit(main())
