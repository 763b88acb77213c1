from ctxguard.main import main

raise SystemExit(main())
