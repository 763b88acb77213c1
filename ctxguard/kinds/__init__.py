"""The artifact kinds: each reads its text once into a document of its own and answers every
question from it (ctxguard.kinds.base.Kind); ctxguard.kinds.registry lists them."""
