"""Plans of the kinds not yet moved to ctxguard.kinds (diff, json, log): see ctxguard.kinds."""
