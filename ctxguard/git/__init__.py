"""Everything that talks to git: the repository (repo), which range a run reviews (ranges), a diff's paths (paths)."""
