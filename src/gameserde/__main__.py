from gameserde.cli import main

raise SystemExit(main())
